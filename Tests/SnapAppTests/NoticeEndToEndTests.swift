import Foundation
import SnapCore
import SnapTestSupport
import SnapText
import Testing

/// The station's notices through the real binary: an AI service that refuses it, told once to a webhook
/// in the station's language.
@Suite("End to end: notices to a webhook", .serialized, .startsProcesses)
struct NoticeEndToEndTests {
    let folder = TemporaryDirectory("notice-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    func hooks() async -> [[String: String]] {
        ((try? await fake.requests()) ?? []).filter { $0["path"] as? String == "/hook/kitchen" }.compactMap {
            ($0["body"] as? String).flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
        }
    }

    @Test("should tell a refused key once, however often it is refused that day, and then the account's empty credit")
    func refusedOnce() async throws {
        // Refused, refused again on the retry (the same notice: not told again), then out of credit (told).
        try await fake.queue("openai", ["401", "401", "429_quota"])
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\"", "language = \"de\"", "name = \"Küche\""],
                "ai": ["base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\""],
                "notify": ["format = \"webhook\"", "url = \"\(fake.baseURL)/hook/kitchen\""],
            ])
        let station = try StationProcess(
            [
                "run", "--config", config, "--state", folder.path + "/state", "--no-stdin", "--script",
                "1s press, 6s press, 6s press",
            ],
            logPath: folder.path + "/station.log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"])
        let both = await eventually { await hooks().count >= 2 }
        #expect(await station.stop() == 0)
        let sent = await hooks()
        #expect(both, "\(sent)\n\(station.output)")
        let words = Words(.de)
        // In order, one sender: had the second refusal been told, it would have come before the credit's.
        #expect(sent.map { $0["message"] } == [words.aiFailure(.unauthorized), words.aiFailure(.noCredit)], "\(sent)")
        #expect(sent.allSatisfy { $0["kind"] == "ai" && $0["language"] == "de" && $0["station"] == "Küche" })
        #expect(sent.first?["title"] == "Der KI-Dienst hat die Station abgewiesen")
        #expect(station.output.components(separatedBy: "analysis of").count - 1 >= 3, "three refusals")
        #expect(!sent.contains { ($0["message"] ?? "").contains("test-key") }, "no key in a notice")
    }
}
