import Foundation
import SnapCore
import SnapStore
import SnapTestSupport
import Testing

/// The upload queue through the real binary, against the local Supabase-compatible server.
@Suite(
    "End to end: the upload queue with Supabase", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct UploadQueueEndToEndTests {
    let folder = TemporaryDirectory("queue-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func config(_ member: FakeServices.Member) throws -> String {
        try StationFixture.writeConfig(
            in: folder.path,
            [
                "group": [
                    "name = \"Family\"", "review_seconds = 1", "backend = \"supabase\"", "url = \"\(fake.baseURL)\"",
                    "key_source = \"env:SNAPSTATION_TEST_GROUP_KEY\"", "anon_key = \"\(member.anonKey)\"",
                ]
            ])
    }

    private func station(_ member: FakeServices.Member, script: String, log: String) throws -> StationProcess {
        try StationProcess(
            ["run", "--config", config(member), "--state", folder.path + "/state", "--no-stdin", "--script", script],
            logPath: folder.path + "/" + log, environment: ["SNAPSTATION_TEST_GROUP_KEY": member.key])
    }

    private func rows() async throws -> [[String: Any]] { try await fake.rows() }

    @Test("should complete an upload cut off by a kill exactly once after a restart")
    func killDuringUpload() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        try await fake.queue("storage", ["timeout"])  // the first upload hangs: the station is mid-upload
        let first = try station(kitchen, script: "1s press", log: "first.log")
        let uploading = await first.waitFor("screen: uploading")
        // Killed once the upload reached the server, which holds it unanswered.
        let reached = await eventually {
            ((try? await fake.requests()) ?? []).contains { ($0["path"] as? String)?.hasPrefix("/storage/") == true }
        }
        await first.stop(SIGKILL)
        #expect(reached, "the upload reached the server before the kill")
        #expect(uploading, "\(first.output)")
        #expect(try await rows().isEmpty, "nothing arrived before the kill")

        let second = try station(kitchen, script: "", log: "second.log")
        _ = await second.waitFor("delivered ")
        #expect(await second.stop() == 0)
        #expect(second.output.contains("1 photo(s) waiting in the upload queue"))
        let delivered = try await rows()
        #expect(delivered.count == 1, "\(second.output)")
        let objects = try await fake.requests().filter { $0["method"] as? String == "POST" }
            .compactMap { $0["object"] as? String }
        #expect(Set(objects).count == 1, "one object, written twice at the same path: \(objects)")
        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.pendingJobs().isEmpty)
    }

    @Test("should try a waiting photo at once after a restart, whatever wait its backoff had set")
    func retriesAtOnceAfterRestart() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        try await fake.queue("storage", ["503"])
        let first = try station(kitchen, script: "1s press", log: "before.log")
        let queued = await first.waitFor("stays queued")
        await first.stop(SIGKILL)
        #expect(queued, "\(first.output)")
        // As after many failures: the next try an hour away.
        let store = try StationStore(directory: folder.path + "/state")
        for job in try store.pendingJobs() {
            try store.markRetry(job, error: "offline", nextAttempt: Date().addingTimeInterval(3600))
        }

        let second = try station(kitchen, script: "", log: "after.log")
        let delivered = await second.waitFor("delivered ")
        #expect(await second.stop() == 0)
        #expect(delivered, "\(second.output)")
        #expect(try await rows().count == 1)
    }

    @Test("should say 'saved — will send when online' during an outage, and send by itself after it")
    func drainsAfterOutage() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        try await fake.queue("storage", ["503"])
        let station = try station(kitchen, script: "1s press", log: "outage.log")
        let offline = await StationProcess.waitUntil {
            station.output.contains("screen: error-network-down")
        }
        let drained = await station.waitFor("delivered ")
        #expect(await station.stop() == 0)
        #expect(offline, "\(station.output)")
        #expect(drained, "\(station.output)")
        #expect(try await rows().count == 1)
    }
}
