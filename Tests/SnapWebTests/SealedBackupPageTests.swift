import Foundation
import SnapConfig
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

extension BackupPageTests {
    @Test("should seal a backup with the keys under a passphrase typed twice, and restore it only with that passphrase")
    func sealedWithKeys() async throws {
        let a = try WebTestStation(name: "Kitchen")
        try a.meal("m1")
        let key = "sk-proj-SEALEDONTHEPAGE4321"
        try a.config.enteredKeys.keep(key, for: .ai, to: KeyDestination(a.config.ai.baseURL))
        #expect(a.config.enteredKeys.folder == a.config.storage.dir + "/" + StationStore.keysFolder, "one folder")
        let ownerA = try await a.pair()
        let short = await a.post(
            "/backup/download-sealed", [("csrf", ownerA.csrf), ("passphrase", "short"), ("again", "short")],
            cookie: ownerA.cookie)
        #expect(short.status == 400 && short.text.contains("at least 10 characters"), "\(short.text)")
        #expect(short.text.contains("aria-invalid=\"true\""), "the field marked")
        #expect(!short.text.contains("value=\"short\""), "a passphrase is never sent back")
        let differs = await a.post(
            "/backup/download-sealed",
            [("csrf", ownerA.csrf), ("passphrase", "kitchen table 7"), ("again", "kitchen table 8")],
            cookie: ownerA.cookie)
        #expect(differs.status == 400 && differs.text.contains("The two passphrases differ."))
        let passphrase = "kitchen table 7"
        let reply = await a.post(
            "/backup/download-sealed", [("csrf", ownerA.csrf), ("passphrase", passphrase), ("again", passphrase)],
            cookie: ownerA.cookie)
        #expect(reply.status == 200)
        #expect(
            reply.header("Content-Disposition") == "attachment; filename=\"snapstation-Kitchen-\(a.today).sealed\"")
        let sealed = try reply.collected()
        #expect(sealed.starts(with: Array("SnapSeal".utf8)))
        #expect(Data(sealed).range(of: Data(key.utf8)) == nil, "the key is not in the file in clear")
        #expect(Data(sealed).range(of: Data("SQLite format 3".utf8)) == nil, "nor the store")

        let b = try WebTestStation(name: "Hall")
        try b.config.enteredKeys.keep("sk-B-own", for: .ai, to: KeyDestination(b.config.ai.baseURL))
        let ownerB = try await b.pair()
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))
        try await WebServerTests().serving(b) { base in
            let sent = try await client.send(
                HTTPRequest(
                    method: "POST", url: base + "/backup/upload",
                    headers: [
                        ("Cookie", ownerB.cookie), ("X-CSRF-Token", ownerB.csrf),
                        ("Content-Type", "application/octet-stream"),
                    ], body: sealed))
            #expect(sent.status == 303 && sent.header("location") == "/backup", "the page asks for the passphrase")
            let asking = await b.get("/backup", cookie: ownerB.cookie).text
            #expect(asking.contains("This backup is sealed") && asking.contains("action=\"/backup/unlock\""))
            func unlock(_ fields: [(String, String)]) async throws -> HTTPResponse {
                try await client.send(
                    HTTPRequest(
                        method: "POST", url: base + "/backup/unlock",
                        headers: [
                            ("Cookie", ownerB.cookie), ("Content-Type", "application/x-www-form-urlencoded"),
                        ], body: WebTestStation.encode([("csrf", ownerB.csrf)] + fields)))
            }
            let store = b.folder.path + "/snapstation.sqlite"
            let before = FileManager.default.contents(atPath: store)
            let wrong = try await unlock([("passphrase", "kitchen table 8")])
            #expect(wrong.status == 400)
            #expect(String(decoding: wrong.body, as: UTF8.self).contains("That passphrase does not open this backup"))
            #expect(FileManager.default.contents(atPath: store) == before, "B's store as it was")
            #expect(!FileManager.default.fileExists(atPath: b.folder.path + "/restore/staged"))
            let right = try await unlock([("passphrase", passphrase)])
            #expect(right.status == 303 && right.header("location") == "/backup/restore")
            #expect(
                b.link.events.contains { if case .restoreAsked(StationVersion.current, _) = $0 { true } else { false } }
            )
            #expect(!(await b.get("/backup", cookie: ownerB.cookie).text.contains("This backup is sealed")))
        }
        _ = try b.store.confirmRestore()
        #expect(StationStore.applyRestore(in: b.folder.path)?.problem == nil)
        #expect(b.config.enteredKeys.key(.ai) == key, "A's key, moved with its backup")
        let restored = try StationStore(directory: b.folder.path)
        #expect(try restored.meals(on: a.today).map(\.photo.id) == [PhotoID("m1")])
    }

    @Test("should set a sealed backup aside when the owner cancels it")
    func sealedCancelled() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair()
        let waiting = station.folder.path + "/backup/restore-locked.sealed"
        try FileManager.default.createDirectory(
            atPath: station.folder.path + "/backup", withIntermediateDirectories: true)
        try Data("SnapSeal".utf8).write(to: URL(fileURLWithPath: waiting))
        #expect(await station.get("/backup", cookie: owner.cookie).text.contains("This backup is sealed"))
        let cancelled = await station.post(
            "/backup/unlock", [("csrf", owner.csrf), ("forget", "1")], cookie: owner.cookie)
        #expect(cancelled.status == 303 && !FileManager.default.fileExists(atPath: waiting))
        let page = await station.get("/backup", cookie: owner.cookie).text
        #expect(!page.contains("This backup is sealed") && page.contains("data-upload=\"/backup/upload\""))
    }
}
