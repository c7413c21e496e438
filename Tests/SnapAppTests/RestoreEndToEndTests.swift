import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapStore

/// Restores through the real binary, as the owner's phone and the person at the station make them: the
/// backup sent on the page, the station's question answered by the long hold (`pair` typed), the station
/// stopping by itself and started again (as systemd's `Restart=always` would), the phone following the
/// restore's state across that restart. The hostile backups are the audit's (Tests/Support/hostile_backup.py).
@Suite("End to end: restores confirmed at the station, hostile backups among them", .serialized, .startsProcesses)
struct RestoreEndToEndTests {
    let folder = TemporaryDirectory("restore-e2e")
    let fake: FakeServices
    let port = FakeServices.freePort()
    let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))

    init() async throws { fake = try await FakeServices() }

    var state: String { folder.path + "/state" }
    var base: String { "http://127.0.0.1:\(port)" }

    /// The station: meal mode, the AI at the stand-in with the installer's key, its page on `port` (the
    /// phone's address stays the same across restarts), the buttons typed.
    func start(_ log: String, openFiles: Int? = nil) throws -> StationProcess {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\"", "name = \"Kitchen\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 1",
                ],
                "group": ["name = \"Family\""],
                "web": ["address = \"127.0.0.1\"", "port = \(port)"],
            ])
        return try StationProcess(
            ["run", "--config", config, "--state", state], logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"], typing: true, openFiles: openFiles)
    }

    func get(_ path: String, _ phone: PairedBrowser) async throws -> HTTPResponse {
        try await client.send(
            HTTPRequest(url: base + path, headers: [("Cookie", phone.cookie), ("Host", "127.0.0.1:\(port)")]))
    }

    /// The restore's state as the page's script reads it, or nil while the station does not answer.
    func restoreState(_ phone: PairedBrowser) async -> String? {
        guard let answer = try? await get("/backup/restore/state", phone), answer.status == 200 else { return nil }
        return String(decoding: answer.body, as: UTF8.self)
    }

    /// Sends `backup` to restore, as the page's script does; then answers the station's question with the
    /// long hold, and follows the state as the phone does, starting the station again when it stopped (as
    /// systemd would), until the restore's outcome. The station running after it, and the states seen.
    func restore(_ backup: [UInt8], on station: StationProcess, as phone: PairedBrowser, run: Int) async throws
        -> (station: StationProcess, states: [String])
    {
        let follower = LogFollower(path: station.logPath)
        _ = follower.newLines()
        let sent = try await client.send(
            HTTPRequest(
                method: "POST", url: base + "/backup/upload",
                headers: [
                    ("Cookie", phone.cookie), ("X-CSRF-Token", phone.csrf), ("Host", "127.0.0.1:\(port)"),
                    ("Content-Type", "application/octet-stream"),
                ], body: backup))
        #expect(sent.status == 303 && sent.header("location") == "/backup/restore", "\(sent.status) \(sent.text)")
        #expect(await follower.waitFor("screen: restore-confirm"), "the station asks: \(station.output)")
        #expect(await restoreState(phone) == "asking")
        station.type("pair")
        var states: [String] = []
        var running = station
        let outcome = await eventually {
            if !running.process.isRunning, let again = try? start("run-\(run)") { running = again }
            guard let state = await restoreState(phone) else { return false }
            if states.last != state { states.append(state) }
            return state == "restored" || state == "failed"
        }
        #expect(outcome, "the phone reads the outcome: \(states); \(running.output)")
        return (running, states)
    }

    /// The outcome read: "Done" on the restore's page.
    func dismiss(_ phone: PairedBrowser) async throws {
        _ = try await client.send(
            HTTPRequest(
                method: "POST", url: base + "/backup/restore/done",
                headers: [
                    ("Cookie", phone.cookie), ("Host", "127.0.0.1:\(port)"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ], body: Array("csrf=\(phone.csrf)".utf8)))
    }

    /// A's backup: a station's own (its store and photos, made by the store as the page's download is).
    func backupOfA(meals: Int = 1) throws -> [UInt8] {
        let a = try StationStore(directory: folder.path + "/a")
        let day = LocalDay(year: 2026, month: 11, day: 23)
        for index in 0..<meals {
            let id = PhotoID("a\(index)")
            let paths = a.paths(for: id, day: day)
            let photo = ProcessedPhoto(
                id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: Date(),
                stickerPath: paths.sticker)
            try a.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg(), sticker: [1, 2, 3])
            try a.saveMeal(
                Meal(
                    photo: photo, day: day,
                    analysis: MealAnalysis(
                        title: "A's soup", totals: Macros(calories: 300, protein: 10, carbs: 30, fats: 12), items: [])))
        }
        var bytes: [UInt8] = []
        try a.writeBackup { bytes += $0 }
        return bytes
    }

    func hostile(_ plain: [UInt8], _ attack: String, _ value: String) throws -> [UInt8] {
        let (input, output) = (folder.path + "/plain.tar", folder.path + "/\(attack).tar")
        try Data(plain).write(to: URL(fileURLWithPath: input))
        let (status, said) = try ChildOutput.run(
            "/usr/bin/python3", ["Tests/Support/hostile_backup.py", input, output, attack, value])
        try #require(status == 0, "\(said)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    @Test(
        "should restore each hostile backup only after the hold, and read, serve, send or delete nothing outside, keep no trigger or session of the file's, aim nothing elsewhere, and answer its page after each"
    )
    func hostileBackups() async throws {
        try FileManager.default.createDirectory(atPath: state + "/keys", withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "Owner-phone")
        let enteredKey = "sk-entered-\(UUID().uuidString)"
        try Data((enteredKey + "\n").utf8).write(to: URL(fileURLWithPath: state + "/keys/ai.key"))
        let canary = folder.path + "/canary-outside.txt"
        try Data("outside the state folder".utf8).write(to: URL(fileURLWithPath: canary))
        let attacker = try Eavesdropper()
        let token = "attacker-token-\(UUID().uuidString)"
        let plain = try backupOfA()
        var station = try start("first")
        _ = try #require(await station.pagePort(), "\(station.output)")

        let attacks = [
            ("paths", canary), ("paths-v14", state + "/keys/ai.key"), ("triggers", token), ("settings", attacker.url),
            ("bricked", ""), ("garbage", ""),
        ]
        for (run, (attack, value)) in attacks.enumerated() {
            let (after, states) = try await restore(try hostile(plain, attack, value), on: station, as: owner, run: run)
            station = after
            #expect(states.last == "restored", "\(attack): \(states)")
            let today = try await get("/", owner)
            #expect(today.status == 200, "\(attack): the page answers after the restore")
            for path in [
                "/photo/leakkey.jpg", "/photo/leakkey.thumb.jpg", "/photo/leakkey.sticker.png", "/photo/leakinside.jpg",
                "/photo/leakhost.jpg", "/photo/otherid.jpg", "/received/leakreceived.jpg",
            ] {
                let answer = try await get(path, owner)
                #expect(answer.status == 404, "\(attack): \(path) \(answer.status)")
                #expect(!answer.text.contains(enteredKey) && !answer.text.contains("outside the state folder"))
            }
            let intruder = try await client.send(
                HTTPRequest(
                    url: base + "/status",
                    headers: [("Cookie", "snapstation_session=\(token)"), ("Host", "127.0.0.1:\(port)")]))
            #expect(intruder.status == 401, "\(attack): no session of the file's")
            #expect(FileManager.default.fileExists(atPath: canary), "\(attack): nothing outside deleted")
            let page = try await get("/backup/restore", owner).text
            #expect(page.contains("is restored"), "\(attack): the phone is told")
            try await dismiss(owner)
        }
        // The restored settings named the attacker's server: a photo taken now goes to the config's AI.
        let follower = LogFollower(path: station.logPath)
        #expect(await follower.waitFor("screen: ready"), "\(station.output)")
        station.type("press")
        #expect(await follower.waitFor("screen: meal-result"), "\(station.output.suffix(4000))")
        #expect(await station.stop() == 0)
        let asked = try await fake.requests().filter { ($0["path"] as? String)?.hasSuffix("/chat/completions") == true }
        #expect(!asked.isEmpty, "the station's own AI service was asked")
        #expect(attacker.connections == 0 && attacker.heard.isEmpty, "nothing reached the backup's address")
        for file in StationStore.files(under: state + "/outbox") {
            let bytes = FileManager.default.contents(atPath: state + "/outbox/" + file) ?? Data()
            #expect(bytes.range(of: Data(enteredKey.utf8)) == nil, "\(file) holds the key")
        }
        let store = try StationStore(directory: state)
        #expect(try store.schemaObjects().allSatisfy { !$0.contains("evil") })
        #expect(try store.sessions().map(\.name) == ["Owner-phone"])
        #expect(store.keptBackups(.restore).count == 3, "a backup kept before each restore, the newest three")
    }

    @Test("should tell the phone how the restore ended in 20 of 20 runs, across the station's real restart")
    func outcomeAcrossRestarts() async throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "Owner-phone")
        let backup = try backupOfA()
        var station = try start("first")
        _ = try #require(await station.pagePort(), "\(station.output)")
        var told = 0
        for run in 0..<20 {
            let (after, states) = try await restore(backup, on: station, as: owner, run: run)
            station = after
            let page = try await get("/backup/restore", owner).text
            if states.last == "restored" && page.contains("The backup of") && page.contains("is restored") { told += 1 }
            #expect(states.last == "restored", "run \(run): \(states)")
            try await dismiss(owner)
            #expect(await restoreState(owner) == "none", "run \(run): read")
        }
        #expect(await station.stop() == 0)
        #expect(told == 20)
    }

    @Test("should restore a backup of 5,000 files with no more than 1,024 files open")
    func manyFiles() async throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "Owner-phone")
        let backup = try backupOfA(meals: 1_667)
        let station = try start("first", openFiles: 1024)
        _ = try #require(await station.pagePort(), "\(station.output)")
        let (after, states) = try await restore(backup, on: station, as: owner, run: 0)
        #expect(await after.stop() == 0)
        #expect(states.last == "restored", "\(states); \(after.output)")
        let files = StationStore.files(under: state + "/photos")
        #expect(files.count == 1_667 * 3, "every photo, thumbnail and sticker: \(files.count)")
        #expect(!after.output.contains("Too many open files"))
    }
}

extension HTTPResponse {
    fileprivate var text: String { String(decoding: body, as: UTF8.self) }
}
