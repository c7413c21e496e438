import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapStore
@testable import SnapWeb

@Suite("The owner's page: a backup downloaded from one station and restored on another, over a real socket")
struct BackupPageTests {
    @Test("should stream A's backup as it is made, restore it on B with B's pairing kept, and refuse a cut one")
    func downloadAndRestore() async throws {
        let a = try WebTestStation(name: "Kitchen")
        try a.meal("m1")
        try a.meal("m2", title: "Soup", day: a.today.adding(days: -1))
        try a.store.addToShopping([Ingredient(name: "Basil", amount: 1, unit: "bunch")])
        let ownerA = try await a.pair()
        let b = try WebTestStation(name: "Hall")
        try b.meal("b1", title: "B's own")
        let ownerB = try await b.pair()
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))

        var backup: [UInt8] = []
        try await WebServerTests().serving(a) { base in
            let stranger = try await client.send(HTTPRequest(url: base + "/backup/download"))
            #expect(stranger.status == 303 || stranger.status == 401, "no backup without a paired browser")
            let reply = try await client.send(
                HTTPRequest(
                    url: base + "/backup/download", headers: [("Cookie", ownerA.cookie)], maxBodyBytes: 64 << 20))
            #expect(reply.status == 200 && reply.header("content-type") == "application/x-tar")
            let day = a.today.description
            #expect(reply.header("content-disposition") == "attachment; filename=\"snapstation-Kitchen-\(day).tar\"")
            #expect(reply.header("content-length") == nil, "streamed as it is made, its length unknown before")
            backup = reply.body
        }
        let file = a.folder.path + "/downloaded.tar"
        try Data(backup).write(to: URL(fileURLWithPath: file))
        #expect(try StationStore.checkBackup(at: file).directory == a.folder.path, "a whole backup, checked")

        try await WebServerTests().serving(b) { base in
            func send(_ body: [UInt8]) async throws -> HTTPResponse {
                try await client.send(
                    HTTPRequest(
                        method: "POST", url: base + "/backup/upload",
                        headers: [
                            ("Cookie", ownerB.cookie), ("X-CSRF-Token", ownerB.csrf),
                            ("Content-Type", "application/octet-stream"),
                        ], body: body))
            }
            let store = b.folder.path + "/snapstation.sqlite"
            let before = FileManager.default.contents(atPath: store)
            let cut = try await send(Array(backup.prefix(backup.count / 2)))
            #expect(cut.status == 400 && String(decoding: cut.body, as: UTF8.self).contains("ends too early"))
            var flipped = backup
            flipped[flipped.count / 2] ^= 0x40
            let damaged = try await send(flipped)
            #expect(
                damaged.status == 400 && String(decoding: damaged.body, as: UTF8.self).contains("Nothing was changed"))
            #expect(FileManager.default.contents(atPath: store) == before, "B's store as it was")
            #expect(!FileManager.default.fileExists(atPath: b.folder.path + "/restore/staged"))
            #expect(!b.link.events.contains { if case .restoreAsked = $0 { true } else { false } })
            let unpaired = try await client.send(
                HTTPRequest(
                    method: "POST", url: base + "/backup/upload", headers: [("Cookie", ownerB.cookie)], body: backup))
            #expect(unpaired.status == 403, "no token, no restore")

            let kept = try await send(backup)
            #expect(kept.status == 303 && kept.header("location") == "/backup/restore")
            #expect(
                b.link.events.contains {
                    if case .restoreAsked(StationVersion.current, _) = $0 { true } else { false }
                },
                "the station is asked")
            #expect(FileManager.default.fileExists(atPath: b.folder.path + "/restore/staged/ready"))
            let uploads = try FileManager.default.contentsOfDirectory(atPath: b.folder.path + "/backup")
            #expect(!uploads.contains { $0.hasPrefix("restore-upload") }, "the files sent are gone: \(uploads)")
            let page = try await client.send(
                HTTPRequest(url: base + "/backup/restore", headers: [("Cookie", ownerB.cookie)]))
            #expect(String(decoding: page.body, as: UTF8.self).contains("so you confirm it at the station"))
        }
        #expect(StationStore.applyRestore(in: b.folder.path) == nil, "not put in place without the hold")
        _ = try b.store.confirmRestore()
        // The station's next start puts it in place before its store opens.
        #expect(StationStore.applyRestore(in: b.folder.path)?.problem == nil)
        let restored = try StationStore(directory: b.folder.path)
        #expect(try restored.meals(on: a.today).map(\.photo.id) == [PhotoID("m1")])
        #expect(try restored.meals(on: a.today.adding(days: -1)).map(\.analysis.title) == ["Soup"])
        #expect(try restored.shoppingList().map(\.name) == ["Basil"])
        #expect(try restored.sessions().map(\.tokenHash) == b.store.sessions().map(\.tokenHash), "B's own pairing")
        let photo = try #require(try restored.meals(on: a.today).first?.photo.photoPath)
        #expect(photo.hasPrefix(b.folder.path + "/photos/"), "its paths are B's")
        #expect(
            FileManager.default.contents(atPath: photo)
                == FileManager.default.contents(atPath: a.store.paths(for: PhotoID("m1"), day: a.today).photo))
    }

    @Test("should list the backups made before updates, download one, and restore it at the owner's word")
    func keptBeforeUpdates() async throws {
        let station = try WebTestStation()
        try station.meal("m1")
        let owner = try await station.pair()
        #expect(await station.get("/backup", cookie: owner.cookie).text.contains("None yet"))
        let kept = try station.store.keepBackup()
        let name = (kept as NSString).lastPathComponent
        try station.meal("m2", title: "After the backup")
        let page = await station.get("/backup", cookie: owner.cookie).text
        #expect(page.contains("<a href=\"/backup/kept/\(name)\" download>\(name)</a>"), "\(page)")
        let download = await station.get("/backup/kept/\(name)", cookie: owner.cookie)
        #expect(download.header("Content-Disposition") == "attachment; filename=\"\(name)\"")
        #expect(try download.collected() == Array(try Data(contentsOf: URL(fileURLWithPath: kept))), "the file as kept")
        #expect(await station.get("/backup/kept/..%2Fsnapstation.sqlite", cookie: owner.cookie).status == 404)
        let other = await station.post(
            "/backup/restore-kept", [("csrf", owner.csrf), ("name", "../snapstation.sqlite")], cookie: owner.cookie)
        #expect(other.status == 404, "only a kept backup's name")
        let restored = await station.post(
            "/backup/restore-kept", [("csrf", owner.csrf), ("name", name)], cookie: owner.cookie)
        #expect(restored.status == 303 && restored.header("Location") == "/backup/restore")
        #expect(
            station.link.events.contains {
                if case .restoreAsked(StationVersion.current, _) = $0 { true } else { false }
            })
        #expect(FileManager.default.fileExists(atPath: kept), "a kept backup stays after it is restored")
        _ = try station.store.confirmRestore()
        #expect(StationStore.applyRestore(in: station.folder.path)?.problem == nil)
        let store = try StationStore(directory: station.folder.path)
        #expect(try store.meals(on: station.today).map(\.photo.id) == [PhotoID("m1")], "as it was before the update")
    }

    @Test("should show the addresses a restored backup named, and use them only at the owner's word")
    func restoredAddresses() async throws {
        for use in [true, false] {
            let station = try WebTestStation()
            let owner = try await station.pair()
            let waiting = RuntimeSettings(
                aiService: AIService(baseURL: "https://gpu.example.net/v1", model: "llava"),
                mqtt: MQTTSettings(address: "mqtts://broker.example.net", username: "station"))
            try station.store.execute(
                sql:
                    "INSERT INTO restored_settings (id, json) VALUES (1, '\(String(decoding: try JSONEncoder().encode(waiting), as: UTF8.self))')"
            )
            let outcome = RestoreOutcome(
                restore: StagedRestore(
                    version: "0.9.0", created: "2026-11-30T12:00:00Z", report: RestoreReport(),
                    keptBackup: "before-restore-20261201T120000Z.tar"),
                at: station.now, problem: nil)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            try FileManager.default.createDirectory(
                atPath: station.folder.path + "/restore", withIntermediateDirectories: true)
            try encoder.encode(outcome).write(to: URL(fileURLWithPath: station.folder.path + "/restore/outcome.json"))
            let page = await station.get("/backup/restore", cookie: owner.cookie).text
            #expect(
                page.contains("is restored") && page.contains("AI service: https://gpu.example.net/v1 (llava)"),
                "\(page)")
            #expect(page.contains("broker: mqtts://broker.example.net"))
            let answered = await station.post(
                "/backup/restore/settings", [("csrf", owner.csrf), ("use", use ? "1" : "0")], cookie: owner.cookie)
            #expect(answered.status == 303)
            let changed = station.link.events.contains(.settingsChanged(.part(waiting, keys: [.aiService, .mqtt])))
            #expect(changed == use, "used only at the owner's word")
            #expect(station.link.events.contains(.startChanged) == use, "taken as the station starts again")
            #expect(try station.store.restoredSettings() == RuntimeSettings(), "nothing waits any more")
        }
    }
}
