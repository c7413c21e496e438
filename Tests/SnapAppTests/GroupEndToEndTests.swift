import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapTestSupport
import Testing

/// Three stations in one group, three processes of the real binary against the Supabase stand-in on a
/// real PostgreSQL: each shares its photo of the day, sees the other two's, and is refused a second one.
@Suite(
    "End to end: three stations in one group", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct GroupEndToEndTests {
    let folder = TemporaryDirectory("group-e2e")
    let fake: FakeServices
    let stations = ["Kitchen", "Hall", "Porch"]

    init() async throws { fake = try await FakeServices() }

    private func config(_ name: String, _ member: FakeServices.Member) throws -> String {
        try AtomicFile.createFolder(folder.path + "/" + name)
        return try StationFixture.writeConfig(
            in: folder.path + "/" + name,
            [
                "station": ["name = \"\(name)\""],
                "group": [
                    "name = \"Family\"", "review_seconds = 1", "backend = \"supabase\"", "url = \"\(fake.baseURL)\"",
                    "key_source = \"env:SNAPSTATION_TEST_GROUP_KEY\"", "anon_key = \"\(member.anonKey)\"",
                ],
            ])
    }

    private func run(_ name: String, _ member: FakeServices.Member, state: String, script: String, log: String)
        throws -> StationProcess
    {
        try StationProcess(
            ["run", "--config", config(name, member), "--state", state, "--no-stdin", "--script", script],
            logPath: folder.path + "/\(name)-\(log).log", environment: ["SNAPSTATION_TEST_GROUP_KEY": member.key])
    }

    @Test("should let each station share once, show it the other two's photos, and refuse a second photo")
    func threeStations() async throws {
        var members: [String: FakeServices.Member] = [:]
        for name in stations { members[name] = try await fake.member(name, of: "Family") }

        // Each shares its photo of the day, all at once.
        var first: [String: StationProcess] = [:]
        for name in stations {
            first[name] = try run(
                name, members[name]!, state: folder.path + "/\(name)/state", script: "1s press", log: "share")
        }
        for name in stations {
            let shared = await StationProcess.waitUntil { first[name]!.output.contains("delivered ") }
            #expect(shared, "\(name) did not deliver:\n\(first[name]!.output)")
        }
        for process in first.values { await process.stop() }
        #expect(try await fake.rows().count == 3)

        // Started again, each fetches what the others shared; a press on the lock steps the slideshow.
        var second: [String: StationProcess] = [:]
        for name in stations {
            second[name] = try run(
                name, members[name]!, state: folder.path + "/\(name)/state", script: "3s press", log: "receive")
        }
        for name in stations {
            let received = await StationProcess.waitUntil {
                second[name]!.output.components(separatedBy: "received ").count == 3
            }
            #expect(received, "\(name) did not receive two photos:\n\(second[name]!.output)")
        }
        for process in second.values { await process.stop() }
        var bytes: [String: Int] = [:]
        for name in stations {
            let kept = try StationStore(directory: folder.path + "/\(name)/state").receivedPhotos(now: Date())
            #expect(Set(kept.map(\.member)) == Set(stations.filter { $0 != name }), "\(name) has the other two")
            bytes[name] = kept.reduce(0) {
                $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.path)[.size]) as? Int ?? 0)
            }
            #expect(second[name]!.output.contains("screen: group-lock"))
            #expect(!second[name]!.output.contains("screen: countdown"), "the lock holds on a restart")
        }
        print("group e2e: bytes downloaded per station today: \(bytes.sorted { $0.key < $1.key })")

        // A station that lost its state (a new SD card) tries again the same day: the server refuses.
        let fresh = try run(
            "Kitchen", members["Kitchen"]!, state: folder.path + "/Kitchen/fresh-state", script: "1s press",
            log: "again")
        let refused = await StationProcess.waitUntil {
            fresh.output.contains("already has today's photo")
        }
        let locked = await fresh.waitFor("screen: group-lock")
        await fresh.stop()
        #expect(refused && locked, "the server's one-photo-a-day rule:\n\(fresh.output)")
        #expect(try await fake.rows().count == 3, "still one photo per member")
    }
}
