import Foundation
import SnapConfig
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

/// A station moved with its key: A's AI key, entered on its page, goes into a backup sealed with a
/// passphrase; B, which has none, takes it only with the passphrase and then analyses with A's key.
extension BackupEndToEndTests {
    @Test("should move A's key in a sealed backup: not in the file in clear, restored on B only with the passphrase")
    func sealedWithTheKey() async throws {
        for name in ["A", "B"] {
            try FileManager.default.createDirectory(
                atPath: folder.path + "/\(name)/state", withIntermediateDirectories: true)
        }
        // The fake OpenAI service takes "test-key" alone: A's entered key, B has none.
        try EnteredKeys(folder: folder.path + "/A/state/keys").keep(
            "test-key", for: .ai, to: KeyDestination(fake.baseURL + "/v1"))
        let ownerA = try PairedBrowser(in: folder.path + "/A/state", name: "A-phone")
        let ownerB = try PairedBrowser(in: folder.path + "/B/state", name: "B-phone")
        let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))
        /// The Today page at `port` (read from the store) as `owner` sees it; empty when it does not answer.
        func today(_ port: Int, _ owner: PairedBrowser) async -> String {
            let reply = try? await client.send(
                HTTPRequest(
                    url: "http://127.0.0.1:\(port)/",
                    headers: [("Cookie", owner.cookie), ("Host", "127.0.0.1:\(port)")]))
            return reply.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        }
        let passphrase = "a new kitchen, same meals"
        func form(_ fields: [(String, String)]) -> [UInt8] {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return Array(
                fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(
                    separator: "&"
                ).utf8)
        }
        func post(_ port: Int, _ path: String, _ owner: PairedBrowser, _ fields: [(String, String)]) async throws
            -> HTTPResponse
        {
            try await client.send(
                HTTPRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)\(path)",
                    headers: [
                        ("Cookie", owner.cookie), ("Host", "127.0.0.1:\(port)"),
                        ("Content-Type", "application/x-www-form-urlencoded"),
                    ], body: form([("csrf", owner.csrf)] + fields), maxBodyBytes: 64 << 20))
        }

        let a = try start("A", script: "1s press", enteredKey: true)
        let saved = await StationProcess.waitUntil {
            let screens = StationFixture.screens(in: folder.path + "/A/state/frames")
            return screens.last == "ready" && screens.contains("meal-result")
        }
        let portA = try #require(await a.pagePort(), "\(a.output)")
        // The meal in A's store before its backup is made: its Today page (read from the store) lists it.
        let listed = await eventually { await today(portA, ownerA).contains("Spaghetti") }
        #expect(listed, "A's page lists its meal")
        let sealed = try await post(
            portA, "/backup/download-sealed", ownerA, [("passphrase", passphrase), ("again", passphrase)])
        #expect(await a.stop() == 0)
        #expect(saved, "A analysed its meal with the key entered on its page: \(a.output)")
        #expect(sealed.status == 200, "\(String(decoding: sealed.body.prefix(300), as: UTF8.self))")
        for clear in ["test-key", "Spaghetti", "SQLite format 3", "A-phone"] {
            #expect(Data(sealed.body).range(of: Data(clear.utf8)) == nil, "\(clear) is not in the file in clear")
        }

        let b = try start("B", enteredKey: true, typing: true)
        let portB = try #require(await b.pagePort(), "\(b.output)")
        let sent = try await upload(sealed.body, to: portB, as: ownerB, client)
        #expect(sent.status == 303 && sent.header("location") == "/backup", "B asks for the passphrase")
        let store = folder.path + "/B/state/snapstation.sqlite"
        let before = FileManager.default.contents(atPath: store)
        let wrong = try await post(portB, "/backup/unlock", ownerB, [("passphrase", "another kitchen")])
        #expect(wrong.status == 400, "\(wrong.status)")
        #expect(String(decoding: wrong.body, as: UTF8.self).contains("That passphrase does not open this backup"))
        #expect(FileManager.default.contents(atPath: store) == before && b.process.isRunning, "B as it was")
        let right = try await post(portB, "/backup/unlock", ownerB, [("passphrase", passphrase)])
        #expect(right.status == 303, "\(String(decoding: right.body.prefix(300), as: UTF8.self))")
        await confirmAtTheStation(b)
        let stopped = await StationProcess.waitUntil { !b.process.isRunning }
        #expect(stopped, "B restarts into the backup by itself: \(b.output)")
        if !stopped { _ = await b.stop() }

        // B, started again, holds A's key (its user's alone) and analyses a meal of its own with it.
        let again = try start("B", script: "1s press", enteredKey: true)
        // Read from this start's log: the frames folder holds the first start's too (its question, then
        // "restoring"), numbered from 0 again by each start.
        let analysed = await StationProcess.waitUntil {
            let output = again.output
            guard let result = output.range(of: "screen: meal-result", options: .backwards) else { return false }
            return output[result.upperBound...].contains("screen: ready")
        }
        // Both meals in B's store before it stops: its Today page (read from the store) lists two.
        let portAgain = try #require(await again.pagePort(), "\(again.output)")
        let both = await eventually {
            await today(portAgain, ownerB).components(separatedBy: "<li class=\"meal\">").count - 1 == 2
        }
        #expect(both, "B's page lists A's meal and its own")
        #expect(await again.stop() == 0)
        #expect(analysed, "B analysed a meal with A's key: \(again.output)")
        let keyFile = folder.path + "/B/state/keys/ai.key"
        #expect(FileManager.default.contents(atPath: keyFile) == Data("test-key\n".utf8))
        let mode = ((try? FileManager.default.attributesOfItem(atPath: keyFile))?[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
        let restored = try StationStore(directory: folder.path + "/B/state")
        #expect(try restored.sessions().map(\.name) == ["B-phone"], "B keeps its own pairing")
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        let meals = try restored.meals(on: today)
        #expect(meals.count == 2, "A's meal and B's own, analysed with A's key: \(meals.map(\.photo.id))")
    }
}
