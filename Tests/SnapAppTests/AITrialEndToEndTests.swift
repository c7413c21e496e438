import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

/// The AI service tried from the page through the real binary (`StationAITrier`): with no key the OpenAI
/// stand-in's own words are shown; a key entered is tried at once, with the key just entered.
@Suite("End to end: the AI service tried from the owner's page", .serialized, .startsProcesses)
struct AITrialEndToEndTests {
    let folder = TemporaryDirectory("ai-trial-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    @Test("should show the service's own words for a missing key, then try a key entered at once: it works")
    func triedAtOnce() async throws {
        let state = folder.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "phone")
        let config = try StationFixture.writeConfig(
            in: folder.path, ["station": ["default_mode = \"meal\""], "ai": ["base_url = \"\(fake.baseURL)/v1\""]])
        let station = try StationProcess(
            ["run", "--config", config, "--state", state, "--no-stdin"], logPath: folder.path + "/station.log")
        let port = try #require(await station.pagePort(), "\(station.output)")
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(30))
        func post(_ path: String, _ fields: [(String, String)]) async throws -> String {
            let body = ([("csrf", owner.csrf)] + fields).map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let reply = try await client.send(
                HTTPRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)\(path)",
                    headers: [
                        ("Cookie", owner.cookie), ("Host", "127.0.0.1:\(port)"),
                        ("Content-Type", "application/x-www-form-urlencoded"),
                    ], body: Array(body.utf8)))
            #expect(reply.status == 200, "\(path): \(reply.status)")
            return String(decoding: reply.body, as: UTF8.self)
        }
        let none = try await post("/keys/ai/try", [])
        #expect(none.contains("The AI service answered: “You didn"), "\(none.suffix(1500))")
        #expect(none.contains("t provide an API key."), "the stand-in's own words, as OpenAI says them")
        #expect(none.contains("(HTTP 401)"))
        let saved = try await post("/keys/ai", [("key", "test-key")])
        #expect(saved.contains("Saved."))
        #expect(saved.contains("The AI service answers, and offers gpt-4o-mini: it works."), "\(saved.suffix(1500))")
        // The key just entered is the one the station starts again with: it stops by itself at rest.
        let stopped = await StationProcess.waitUntil { !station.process.isRunning }
        if !stopped { _ = await station.stop() }
        #expect(stopped, "the station restarts for its new key: \(station.output)")
        let asked = try await fake.requests().filter { $0["path"] as? String == "/v1/models" }
        #expect(asked.map { $0["auth_ok"] as? Bool } == [false, true], "no key, then the key entered")
    }
}
