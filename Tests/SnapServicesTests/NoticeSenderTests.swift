import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import SnapText
import Testing

/// A notice sent to the ntfy stand-in (Tests/Fakes/ntfy_api.py, held to ntfy's server/server.go) and to a
/// webhook, in the station's language.
@Suite("NoticeSender: ntfy's JSON publish and a webhook", .serialized, .startsProcesses)
struct NoticeSenderTests {
    let fake: FakeServices
    let sender = NoticeSender(client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)))

    init() async throws { fake = try await FakeServices() }

    func message(_ notice: Notice, in language: Language) -> NoticeSender.Message {
        let (title, text) = Words(language).notice(notice)
        return NoticeSender.Message(
            kind: notice.kind, title: title, message: text, station: "Küche", page: "http://kueche.local:8080/",
            language: language.rawValue, at: Date(timeIntervalSince1970: 1_780_000_000))
    }

    /// The topic's messages as ntfy's poll gives them, one JSON object a line.
    func poll(_ topic: String) async throws -> [[String: Any]] {
        let answer = try await HTTPClient().send(HTTPRequest(url: fake.baseURL + "/ntfy/\(topic)/json?poll=1"))
        return try String(decoding: answer.body, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("should publish to an ntfy topic as JSON, the title and message in the station's language")
    func ntfy() async throws {
        let settings = NoticeSettings(address: fake.baseURL + "/ntfy/kitchen-7f3a", format: .ntfy)
        let notice = Notice.shared(member: "Flur", group: "Familie")
        #expect(await sender.send(message(notice, in: .de), to: settings) == .sent)
        let messages = try await poll("kitchen-7f3a")
        #expect(messages.count == 1)
        let got = try #require(messages.first)
        #expect(got["title"] as? String == "Flur hat das Foto von heute geteilt", "UTF-8 whole: \(got)")
        #expect(got["message"] as? String == "In Familie. Die Station zeigt es 48 Stunden lang.")
        #expect(got["tags"] as? [String] == ["camera"] && got["click"] as? String == "http://kueche.local:8080/")
        let ai = NoticeSettings(address: fake.baseURL + "/ntfy/kitchen-7f3a/", format: .ntfy)
        #expect(await sender.send(message(.aiRefused(.noCredit), in: .en), to: ai) == .sent, "a trailing slash")
        let second = try #require(try await poll("kitchen-7f3a").last)
        #expect(second["priority"] as? Int == 4 && second["message"] as? String == "The AI account has no credit left")
    }

    @Test("should take ntfy's refusal as final, in its own words, and a server's failure as worth another try")
    func refusals() async throws {
        let locked = NoticeSettings(address: fake.baseURL + "/ntfy/locked-kitchen", format: .ntfy)
        #expect(await sender.send(message(.storageFull, in: .en), to: locked) == .refused("HTTP 403: forbidden"))
        #expect(try await poll("locked-kitchen").isEmpty)
        try await fake.queue("hook", ["503"])
        let hook = NoticeSettings(address: fake.baseURL + "/hook/kitchen", format: .webhook)
        guard case .failed(let reason) = await sender.send(message(.storageFull, in: .en), to: hook) else {
            Issue.record("a 503 is worth another try")
            return
        }
        #expect(reason == "HTTP 503")
        let nowhere = NoticeSettings(address: "http://127.0.0.1:\(FakeServices.freePort())/hook", format: .webhook)
        guard case .failed = await sender.send(message(.storageFull, in: .en), to: nowhere) else {
            Issue.record("nobody listening is worth another try")
            return
        }
    }

    @Test("should POST one JSON object to a webhook: kind, title, message, station, page, language, time")
    func webhook() async throws {
        let hook = NoticeSettings(address: fake.baseURL + "/hook/kitchen", format: .webhook)
        let notice = Notice.updateRolledBack(tried: "2.0.0", running: "1.0.0")
        #expect(await sender.send(message(notice, in: .it), to: hook) == .sent)
        let received = try await fake.requests().filter { $0["path"] as? String == "/hook/kitchen" }
        #expect(received.count == 1)
        let body = try #require(received.first?["body"] as? String)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
        #expect(object["kind"] == "update" && object["language"] == "it" && object["station"] == "Küche")
        #expect(object["title"] == "L'aggiornamento 2.0.0 non è partito")
        #expect(object["message"] == "La stazione funziona di nuovo con 1.0.0.")
        #expect(object["at"] == "2026-05-28T20:26:40Z" && object["page"] == "http://kueche.local:8080/")
    }

    @Test("should take only an http(s) address, and for ntfy one that names a topic")
    func addresses() {
        #expect(NoticeSettings.problem(address: "", format: .ntfy) == nil, "none")
        #expect(NoticeSettings.problem(address: "ntfy.sh/kitchen", format: .ntfy) == .notHTTP)
        #expect(NoticeSettings.problem(address: "ftp://ntfy.sh/kitchen", format: .webhook) == .notHTTP)
        #expect(NoticeSettings.problem(address: "https://ntfy.sh", format: .ntfy) == .noTopic)
        #expect(NoticeSettings.problem(address: "https://ntfy.sh/", format: .ntfy) == .noTopic)
        #expect(NoticeSettings.problem(address: "https://ntfy.sh/kit chen", format: .ntfy) != nil)
        #expect(NoticeSettings.problem(address: "https://ntfy.sh", format: .webhook) == nil)
        #expect(
            NoticeSettings.topic(of: "https://push.example.org/ntfy/kitchen")! == (
                "https://push.example.org/ntfy/", "kitchen"
            ))
        #expect(NoticeSettings.minute("18:05") == 1085 && NoticeSettings.minute("24:00") == nil)
        #expect(NoticeSettings.minute("6:00") == nil && NoticeSettings.clock(1085) == "18:05")
    }
}
