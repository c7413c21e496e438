import Foundation
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

/// A backup through the real binary: station A, with a meal the AI analysed, gives its backup over HTTP;
/// station B takes it on its page, restarts by itself into it (as systemd would start it again), and
/// shows A's meal to B's own paired phone.
@Suite("End to end: a backup from one station restored on another", .serialized, .startsProcesses)
struct BackupEndToEndTests {
    let folder = TemporaryDirectory("backup-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// Starts station `name`; with `enteredKey` its AI key is the one entered on its page (`keys/ai.key`),
    /// not the config's; with `typing` its buttons are typed (`StationProcess.type`).
    func start(_ name: String, script: String? = nil, enteredKey: Bool = false, typing: Bool = false) throws
        -> StationProcess
    {
        let config = try StationFixture.writeConfig(
            in: folder.path + "/" + name,
            [
                "station": ["default_mode = \"meal\"", "name = \"\(name)\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"",
                    enteredKey ? "" : "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"", "auto_save_seconds = 1",
                ],
            ])
        var arguments = ["run", "--config", config, "--state", folder.path + "/\(name)/state"]
        arguments += typing ? [] : ["--no-stdin"]
        if let script { arguments += ["--script", script] }
        return try StationProcess(
            arguments, logPath: folder.path + "/\(name).log", environment: ["SNAPSTATION_TEST_AI_KEY": "test-key"],
            typing: typing)
    }

    /// Answers the restore's question at `station` with the long hold, once it asks.
    func confirmAtTheStation(_ station: StationProcess) async {
        let asked = await station.waitFor("screen: restore-confirm")
        #expect(asked, "the station asks for the hold: \(station.output)")
        station.type("pair")
    }

    /// A backup file sent to restore on the page at `port`, as the page's script sends it.
    func upload(_ body: [UInt8], to port: Int, as owner: PairedBrowser, _ client: HTTPClient) async throws
        -> HTTPResponse
    {
        try await client.send(
            HTTPRequest(
                method: "POST", url: "http://127.0.0.1:\(port)/backup/upload",
                headers: [
                    ("Cookie", owner.cookie), ("X-CSRF-Token", owner.csrf), ("Host", "127.0.0.1:\(port)"),
                    ("Content-Type", "application/octet-stream"),
                ], body: body))
    }

    @Test("should give A's backup over HTTP, restore it on B's page, restart B into it, and keep B's pairing")
    func restoreOnAnotherStation() async throws {
        try FileManager.default.createDirectory(atPath: folder.path + "/A/state", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/B/state", withIntermediateDirectories: true)
        let ownerA = try PairedBrowser(in: folder.path + "/A/state", name: "A-phone")
        let ownerB = try PairedBrowser(in: folder.path + "/B/state", name: "B-phone")
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))

        let a = try start("A", script: "1s press")
        let saved = await StationProcess.waitUntil {
            let screens = StationFixture.screens(in: folder.path + "/A/state/frames")
            return screens.last == "ready" && screens.contains("meal-result")
        }
        let portA = try #require(await a.pagePort(), "\(a.output)")
        let download = try await client.send(
            HTTPRequest(
                url: "http://127.0.0.1:\(portA)/backup/download",
                headers: [("Cookie", ownerA.cookie), ("Host", "127.0.0.1:\(portA)")], maxBodyBytes: 64 << 20))
        #expect(await a.stop() == 0)
        #expect(saved, "A saved its meal: \(a.output)")
        #expect(download.status == 200, "\(String(decoding: download.body.prefix(300), as: UTF8.self))")

        let b = try start("B", typing: true)
        let portB = try #require(await b.pagePort(), "\(b.output)")
        let sent = try await upload(download.body, to: portB, as: ownerB, client)
        #expect(sent.status == 303, "\(String(decoding: sent.body, as: UTF8.self))")
        await confirmAtTheStation(b)
        // Confirmed at the station: it stops by itself, as systemd's Restart=always would then start it again.
        let stopped = await StationProcess.waitUntil { !b.process.isRunning }
        #expect(stopped, "B restarts into the backup by itself: \(b.output)")
        if !stopped { _ = await b.stop() }
        #expect(b.output.contains("restarting into the backup made by \(StationVersion.current)"))

        let again = try start("B")
        let portAgain = try #require(await again.pagePort(), "\(again.output)")
        let today = try await client.send(
            HTTPRequest(
                url: "http://127.0.0.1:\(portAgain)/",
                headers: [("Cookie", ownerB.cookie), ("Host", "127.0.0.1:\(portAgain)")]))
        #expect(await again.stop() == 0)
        #expect(again.output.contains("restored the backup made by SnapStation \(StationVersion.current)"))
        let page = String(decoding: today.body, as: UTF8.self)
        #expect(today.status == 200 && page.contains("Spaghetti with tomato sauce"), "B shows A's meal to B's phone")
        let store = try StationStore(directory: folder.path + "/B/state")
        #expect(try store.sessions().map(\.name) == ["B-phone"], "B keeps its own pairing, not A's")
        let meal = try #require(
            try store.meals(on: LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)).first)
        #expect(meal.photo.photoPath.hasPrefix(folder.path + "/B/state/photos/"))
        #expect(
            FileManager.default.contents(atPath: meal.photo.photoPath)
                == FileManager.default.contents(
                    atPath: meal.photo.photoPath.replacingOccurrences(of: "/B/state/", with: "/A/state/")),
            "the photo byte for byte")
    }
}
