import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

/// A factory reset through the real binary, against the Supabase stand-in on a real PostgreSQL: a station
/// with a meal, a shared photo, keys entered on its page and a paired phone is asked on its page, confirmed
/// by the long hold at its button, leaves its group (its row and object gone on the server, the other
/// member stays), and starts again as new: no file under its state folder holds a meal, a photo, a key or
/// the phone's session, and its ready screen says how to pair.
@Suite(
    "End to end: a factory reset", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct FactoryResetEndToEndTests {
    let folder = TemporaryDirectory("reset-e2e")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func start(_ member: FakeServices.Member, typing: Bool, log: String) throws -> StationProcess {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\"", "name = \"Kitchen\""],
                "ai": [
                    "base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\"",
                    "auto_save_seconds = 1",
                ],
                "group": [
                    "name = \"Family\"", "review_seconds = 1", "backend = \"supabase\"", "url = \"\(fake.baseURL)\"",
                    "key_source = \"env:SNAPSTATION_TEST_GROUP_KEY\"", "anon_key = \"\(member.anonKey)\"",
                ],
            ])
        return try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state"] + (typing ? [] : ["--no-stdin"]),
            logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key", "SNAPSTATION_TEST_GROUP_KEY": member.key],
            typing: typing)
    }

    /// Every regular file under `folder`, with its bytes.
    private func files(under folder: String) -> [(path: String, bytes: [UInt8])] {
        let walker = FileManager.default.enumerator(atPath: folder)
        var found: [(String, [UInt8])] = []
        while let relative = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = folder + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            found.append((path, [UInt8](FileManager.default.contents(atPath: path) ?? Data())))
        }
        return found
    }

    @Test("should leave the group, delete its photo there, erase everything it held, and start as new")
    func erasesTheStation() async throws {
        let hall = try await fake.member("Hall", of: "Family")
        let kitchen = try await fake.member("Kitchen", of: "Family")
        let state = folder.path + "/state"
        try FileManager.default.createDirectory(atPath: state + "/keys", withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "Kitchen-phone")
        let enteredKey = "sk-entered-on-the-page-\(UUID().uuidString)"
        try Data(enteredKey.utf8).write(to: URL(fileURLWithPath: state + "/keys/ai.key"))
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(30))

        // A meal, then the day's photo shared with the group.
        let station = try start(kitchen, typing: true, log: "before")
        let follower = LogFollower(path: folder.path + "/before.log")
        let page = try #require(await station.pagePort(), "\(station.output)")
        #expect(await follower.waitFor("screen: ready"), "\(station.output)")
        station.type("press")
        // The result and the ready screen after it can come in one read of the log: waited for together.
        let saved = await StationProcess.waitUntil {
            let output = station.output
            guard let result = output.range(of: "screen: meal-result", options: .backwards) else { return false }
            return output[result.upperBound...].contains("screen: ready")
        }
        #expect(saved, "the meal saved: \(station.output)")
        _ = follower.newLines()  // what came until now is read
        station.type("hold")  // to group mode
        #expect(await follower.waitFor("mode switched to group"), "\(station.output)")
        station.type("press")
        #expect(await follower.waitFor("screen: group-lock"), "the photo shared: \(station.output)")
        #expect(try await fake.rows().count == 1)
        #expect(try await fake.objects().contains { $0.hasSuffix(".jpg") })
        let photos = files(under: state + "/photos").filter { $0.path.hasSuffix(".jpg") }
        #expect(photos.count >= 2, "the meal's photo and the shared one")

        // Asked on the page, confirmed at the station.
        let asked = try await client.send(
            HTTPRequest(
                method: "POST", url: "http://127.0.0.1:\(page)/reset",
                headers: [
                    ("Cookie", owner.cookie), ("Host", "127.0.0.1:\(page)"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ], body: Array("csrf=\(owner.csrf)".utf8)))
        let said = String(decoding: asked.body, as: UTF8.self)
        #expect(asked.status == 200 && said.contains("Hold its button for 5 seconds"), "\(asked.status): \(said)")
        #expect(await follower.waitFor("screen: reset-confirm"), "\(station.output)")
        station.type("pair")
        let stopped = await StationProcess.waitUntil { !station.process.isRunning }
        #expect(stopped, "the station restarts by itself to erase: \(station.output)")
        if !stopped { _ = await station.stop() }
        #expect(StationFixture.screens(in: state + "/frames").contains("reset-erasing"))
        #expect(station.output.contains("factory reset: left Family"), "\(station.output)")
        #expect(try await fake.rows().isEmpty, "its row is gone from the group")
        #expect(try await fake.objects().filter { $0.hasSuffix(".jpg") }.isEmpty, "its photo is gone from the bucket")
        #expect(try await fake.members(of: "Family", as: hall) == ["Hall"], "it left; the other member stays")

        // Started again (systemd would): erased, then as new.
        let again = try start(kitchen, typing: false, log: "after")
        _ = try #require(await again.pagePort(), "\(again.output)")
        let firstStart = await StationProcess.waitUntil {
            let caption = (try? String(contentsOfFile: state + "/frames/latest.txt", encoding: .utf8)) ?? ""
            return caption.contains("how to pair shown")
        }
        #expect(await again.stop() == 0)
        #expect(again.output.contains("factory reset: erased"), "\(again.output)")
        #expect(firstStart, "the ready screen says how to pair a phone")
        let left = files(under: state)
        #expect(!left.isEmpty, "the new station's own files")
        let secrets = ["Spaghetti", enteredKey, owner.token, "Kitchen-phone"]
        for (path, bytes) in left {
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in secrets {
                #expect(!text.contains(secret), "\(path) holds \(secret)")
            }
            #expect(!bytes.starts(with: [0xFF, 0xD8, 0xFF]), "\(path) is a JPEG")
            for photo in photos {
                #expect(bytes != photo.bytes, "\(path) is one of the old photos")
            }
        }
    }
}
