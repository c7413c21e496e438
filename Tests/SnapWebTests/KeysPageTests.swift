import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@testable import SnapWeb

@Suite("The owner's page: keys entered instead of a shell, kept 0600, never shown again")
struct KeysPageTests {
    /// A station whose config names key files that do not exist, so that only keys entered count
    /// (unless `installerKey` writes the AI's).
    private func station(supabase: Bool = true, installerKey: String? = nil) throws -> WebTestStation {
        try WebTestStation(groups: []) { config in
            config.ai.keySource = .file(config.storage.dir + "/installer/ai")
            config.group.keySource = .file(config.storage.dir + "/installer/group")
            if supabase { config.group.backend = .supabase }
            if let installerKey {
                try? AtomicFile.write(Array(installerKey.utf8), to: config.storage.dir + "/installer/ai")
            }
        }
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("should keep a key entered on the page in a 0600 file, show only its last four, and restart to use it")
    func keepAndForget() async throws {
        let station = try station()
        let owner = try await station.pair()
        let keys = station.config.enteredKeys
        let before = await station.get("/keys", cookie: owner.cookie)
        #expect(before.status == 200 && before.text.contains("Not set.") && before.text.contains("Group password"))

        let key = "sk-proj-Very5ecretKey-9f3a"
        let saved = await station.post("/keys/ai", [("csrf", owner.csrf), ("key", " \(key)\n")], cookie: owner.cookie)
        #expect(saved.status == 200 && saved.text.contains("Set on this page, ending in 9f3a."))
        #expect(!saved.text.contains(key) && !saved.text.contains("Very5ecret"), "the key is never shown again")
        #expect(keys.key(.ai) == key, "kept trimmed")
        #expect(try mode(keys.path(.ai)) == 0o600 && mode(keys.folder) == 0o700, "readable by the station alone")
        #expect(station.config.key(.ai, entered: keys)?.origin == .entered)
        #expect(station.link.events.filter { $0 == .startChanged }.count == 1, "the station restarts to use it")

        let page = await station.get("/keys", cookie: owner.cookie)
        #expect(page.text.contains("ending in 9f3a") && !page.text.contains(key))
        var backup: [UInt8] = []
        try station.store.writeBackup { backup += $0 }
        let inBackup = String(decoding: backup, as: UTF8.self).contains("Very5ecret")
        #expect(backup.count > 1000 && !inBackup, "a backup leaves the keys out")

        let removed = await station.post("/keys/ai/forget", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(removed.status == 200 && removed.text.contains("Removed.") && removed.text.contains("Not set."))
        #expect(keys.key(.ai) == nil && !FileManager.default.fileExists(atPath: keys.path(.ai)))
        #expect(station.link.events.filter { $0 == .startChanged }.count == 2)
    }

    @Test("should refuse a key with a space, or no key, with the field marked and nothing changed")
    func refusals() async throws {
        let station = try station()
        let owner = try await station.pair()
        let keys = station.config.enteredKeys
        try keys.keep("old-key-1234", for: .group, to: nil)
        for wrong in ["two words", "", String(repeating: "k", count: 513), "ключ"] {
            let reply = await station.post("/keys/group", [("csrf", owner.csrf), ("key", wrong)], cookie: owner.cookie)
            #expect(reply.status == 400, "\(wrong.prefix(20))")
            #expect(reply.text.contains("at most 512 characters") && reply.text.contains("aria-invalid=\"true\""))
            #expect(reply.text.contains("Nothing was changed."))
        }
        #expect(keys.key(.group) == "old-key-1234" && !station.link.events.contains(.startChanged))
        let stranger = await station.post("/keys/ai", [("key", "sk-stranger-0000")])
        #expect(stranger.status != 200 && keys.key(.ai) == nil, "no key from an unpaired browser")
    }

    @Test("should say that the installer's key is in force, and offer no field that would not be used")
    func installerWins() async throws {
        let station = try station(installerKey: "sk-installer-5678\n")
        let owner = try await station.pair()
        try station.config.enteredKeys.keep("sk-entered-1234", for: .ai, to: KeyDestination(station.config.ai.baseURL))
        let page = await station.get("/keys", cookie: owner.cookie)
        let source = "file:\(station.config.storage.dir)/installer/ai"
        #expect(page.text.contains("Set by the installer (\(source)). Change it there."))
        #expect(!page.text.contains("action=\"/keys/ai\"") && page.text.contains("action=\"/keys/group\""))
        #expect(station.config.key(.ai)?.key == "sk-installer-5678")
    }

    @Test("should offer no group password where the group has no account to sign in to")
    func folderGroup() async throws {
        let station = try station(supabase: false)
        let owner = try await station.pair()
        let page = await station.get("/keys", cookie: owner.cookie)
        #expect(page.status == 200 && !page.text.contains("Group password"))
        let reply = await station.post("/keys/group", [("csrf", owner.csrf), ("key", "pw-1234")], cookie: owner.cookie)
        #expect(reply.status == 404 && station.config.enteredKeys.key(.group) == nil)
    }
}
