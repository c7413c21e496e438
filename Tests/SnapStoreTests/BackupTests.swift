import Foundation
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@testable import SnapStore

@Suite("StationStore: a backup, checked whole and restored on another station")
struct BackupTests {
    let folder = TemporaryDirectory("backup")
    let noon = Date(timeIntervalSince1970: 1_795_435_200)

    /// Station A's store: meals over three days (one photo of 300 kB, so that files stream in pieces),
    /// stickers, a shopping list with a planned meal, goals and settings, a group's received photo, and a
    /// paired phone.
    func stationA(_ path: String) throws -> StationStore {
        let store = try StationStore(directory: path)
        var random = SystemRandomNumberGenerator()
        for (index, offset) in [-2, -1, 0].enumerated() {
            let day = LocalDay(year: 2026, month: 11, day: 23 + offset)
            let id = PhotoID("a\(index)")
            let paths = store.paths(for: id, day: day)
            let photo = ProcessedPhoto(
                id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail,
                takenAt: noon.addingTimeInterval(Double(offset) * 86_400), stickerPath: paths.sticker)
            let jpeg = (0..<(index == 0 ? 300_000 : 2_000)).map { _ in UInt8.random(in: 0...255, using: &random) }
            try store.storePhoto(photo, jpeg: jpeg, thumbnail: [3, UInt8(index)], sticker: [4, UInt8(index)])
            try store.saveMeal(
                Meal(
                    photo: photo, day: day,
                    analysis: MealAnalysis(
                        title: "Meal \(index)", totals: Macros(calories: 300 + index, protein: 10, carbs: 30, fats: 12),
                        items: [
                            MealItem(
                                name: "Soup", grams: 400,
                                macros: Macros(calories: 300 + index, protein: 10, carbs: 30, fats: 12))
                        ])))
        }
        try store.addToShopping([Ingredient(name: "Tomatoes", amount: 600, unit: "g")])
        let plan = try store.addPlanDraft(
            PlanRequest(name: "chili", portions: 2, units: .metric, timesAWeek: 1), title: "Chili", contains: [],
            lines: [Ingredient(name: "Beans", amount: 400, unit: "g")],
            usedOn: LocalDay(year: 2026, month: 11, day: 23),
            at: noon)
        #expect(try store.confirmPlan(plan, lines: [Ingredient(name: "Beans", amount: 400, unit: "g")]))
        try store.saveRuntimeSettings(
            RuntimeSettings(
                dietaryPreferences: [.vegan], filter: .vivid,

                groups: ["Family"], goals: Macros(calories: 2000, protein: 120, carbs: 0, fats: 0)))
        try store.keepReceived(
            SharedPhoto(
                id: PhotoID("r1"), group: "Family", member: "Hall", takenAt: noon,
                expiresAt: noon.addingTimeInterval(172_800),
                path: ""),
            jpeg: [9, 9, 9])
        try store.createSession(
            WebSession(tokenHash: "a-phone", csrf: "c", name: "A's phone", created: noon, lastSeen: noon))
        return store
    }

    /// Station B: its own meal and its own paired phone.
    func stationB(_ path: String) throws -> StationStore {
        let store = try StationStore(directory: path)
        let day = LocalDay(year: 2026, month: 11, day: 20)
        let paths = store.paths(for: PhotoID("b0"), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID("b0"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: noon)
        try store.storePhoto(photo, jpeg: [7, 7], thumbnail: [7])
        try store.saveMeal(
            Meal(
                photo: photo, day: day,
                analysis: MealAnalysis(
                    title: "B's meal", totals: Macros(calories: 1, protein: 1, carbs: 1, fats: 1), items: [])))
        try store.createSession(
            WebSession(tokenHash: "b-phone", csrf: "c", name: "B's phone", created: noon, lastSeen: noon))
        return store
    }

    func backup(of store: StationStore, to path: String, format: Int? = nil, passphrase: String? = nil) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil), "\(path) made")
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? output.close() }
        try store.writeBackup(format: format, passphrase: passphrase) { piece in output.write(Data(piece)) }
    }

    func sha256(_ path: String) throws -> String {
        let hash = SHA256Stream()
        hash.update(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return hash.finish()
    }

    /// Every file under the state folder's photos and inbox (and `also`), by its path there, with its bytes.
    func files(_ directory: String, also: [String] = []) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for folder in StationStore.backupFolders + also {
            for relative in StationStore.files(under: directory + "/" + folder) {
                found[folder + "/" + relative] = try Data(
                    contentsOf: URL(fileURLWithPath: "\(directory)/\(folder)/\(relative)"))
            }
        }
        return found
    }

    /// Each file of `cases` written, then refused by `store` (at `path`) with its problem: its store's file
    /// the same bytes after, nothing left to apply.
    func expectRefused(
        _ cases: [(String, Data, BackupProblem)], by store: StationStore, at path: String, passphrase: String? = nil
    ) throws {
        for (name, data, problem) in cases {
            let file = folder.path + "/" + name
            try data.write(to: URL(fileURLWithPath: file))
            let before = try sha256(path + "/snapstation.sqlite")
            #expect(throws: problem, "\(name)") { try store.stageRestore(from: file, passphrase: passphrase) }
            #expect(try sha256(path + "/snapstation.sqlite") == before, "\(name): the store unchanged")
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: path + "/restore")) ?? []).isEmpty,
                "\(name): nothing left to apply")
            #expect(StationStore.applyRestore(in: path) == nil)
        }
    }

    @Test("should restore A's backup on B: the same rows, table by table, byte-identical photos, B's own pairing")
    func roundTrip() throws {
        let (a, b, file) = (folder.path + "/a", folder.path + "/b", folder.path + "/a.snapbackup")
        let storeA = try stationA(a)
        try backup(of: storeA, to: file)
        let expected = try storeA.tables()
        do {
            let storeB = try stationB(b)
            let staged = try storeB.stageRestore(from: file)
            #expect(staged.version == StationVersion.current && staged.report.refusedRows == 0, "\(staged.report)")
            #expect(try storeB.tables()["meals"]?.count == 1, "B unchanged until it starts again")
            #expect(StationStore.applyRestore(in: b) == nil, "nothing put in place before the hold confirms it")
            let confirmed = try #require(try storeB.confirmRestore())
            let kept = try #require(confirmed.keptBackup)
            #expect(storeB.keptBackups(.restore).map { ($0 as NSString).lastPathComponent } == [kept])
        }
        let outcome = try #require(StationStore.applyRestore(in: b))
        #expect(outcome.problem == nil && outcome.restore.version == StationVersion.current)
        #expect(StationStore.applyRestore(in: b) == nil, "applied once")
        let restored = try StationStore(directory: b)
        let tables = try restored.tables()
        #expect(Set(tables.keys) == Set(expected.keys))
        for (table, rows) in expected where table != "web_sessions" {
            // SQLite's text as GRDB quotes it: "\"/tmp/…/a/photos/…\"".
            let moved = rows.map { $0.map { $0.hasPrefix("\"\(a)/") ? "\"\(b)" + $0.dropFirst(a.count + 1) : $0 } }
            #expect(tables[table] == moved.sorted { $0.lexicographicallyPrecedes($1) }, "\(table)")
        }
        #expect(try restored.sessions().map(\.name) == ["B's phone"], "B keeps its own pairing, not A's")
        #expect(try files(b) == files(a), "every photo, thumbnail, sticker and received photo, byte for byte")
        #expect(try restored.audit().missingFiles.isEmpty)
        #expect(try restored.audit().integrity == "ok")
        #expect(!FileManager.default.fileExists(atPath: b + "/photos/2026-11-20"), "B's own photos are gone")
    }

    @Test("should write a tar that tar unpacks and sha256sum checks")
    func plainTar() throws {
        let file = folder.path + "/a.tar"
        try backup(of: try stationA(folder.path + "/a"), to: file)
        let out = folder.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let untar = try ChildOutput.run("/usr/bin/tar", ["-xf", file, "-C", out], in: out)
        #expect(untar.status == 0, "\(untar.output)")
        let check = try ChildOutput.run("/usr/bin/sha256sum", ["-c", "--strict", "SHA256SUMS"], in: out)
        #expect(check.status == 0, "\(check.output)")
        // The header, the store, 9 photo files (3 meals: photo, thumbnail, sticker) and 1 received photo.
        let checked = check.output.components(separatedBy: ": OK").count - 1
        #expect(checked == 12, "\(check.output)")
    }

    @Test("should keep the newest three backups made before updates, each whole")
    func keptBeforeUpdates() throws {
        let store = try stationA(folder.path + "/a")
        var made: [String] = []
        for hour in 0..<4 { made.append(try store.keepBackup(now: noon.addingTimeInterval(Double(hour) * 3600))) }
        let newest: [String] = Array(made.suffix(3).reversed())
        #expect(store.keptBackups() == newest, "the newest three, newest first")
        #expect(!FileManager.default.fileExists(atPath: made[0]))
        for path in store.keptBackups() { #expect(try StationStore.checkBackup(at: path).format == 1) }
        #expect(made[3].hasSuffix("/backup/before-update-20261123T150000Z.tar"), "\(made[3])")
        #expect(StationStore.files(under: folder.path + "/a/backup").allSatisfy { $0.hasPrefix("before-update-") })
    }

    @Test("should refuse a cut, damaged, newer or foreign file with its reason, and leave B's store as it was")
    func refusals() throws {
        let storeA = try stationA(folder.path + "/a")
        let good = folder.path + "/good"
        try backup(of: storeA, to: good)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        var cases: [(String, Data, BackupProblem)] = []
        cases.append(("cut in half", bytes.prefix(bytes.count / 2), .truncated))
        cases.append(("cut before its end", bytes.prefix(bytes.count - 1024), .truncated))
        var flipped = bytes
        // A byte inside the 300 kB photo (after the header, the store and its tar headers).
        // Its tar header is the name at a block's start (the store's rows name it too, elsewhere).
        var search = bytes.startIndex..<bytes.endIndex
        var header: Int?
        while header == nil, let found = bytes.range(of: Data("photos/2026-11-21/a0.jpg\0".utf8), in: search) {
            if found.lowerBound % Tar.block == 0 { header = found.lowerBound }
            search = found.upperBound..<bytes.endIndex
        }
        let photoStart = try #require(header) + Tar.block
        flipped[photoStart + 100_000] ^= 0x01
        cases.append(("a flipped byte", flipped, .damaged("photos/2026-11-21/a0.jpg")))
        cases.append(("a JPEG", Data(TestImages.jpeg(width: 64, height: 48)), .notABackup))
        cases.append(("an empty file", Data(), .notABackup))
        let newer = folder.path + "/newer"
        try backup(of: storeA, to: newer, format: StationStore.backupFormat + 1)
        cases.append(
            (
                "a newer format", try Data(contentsOf: URL(fileURLWithPath: newer)),
                .newer(
                    version: StationVersion.current, format: StationStore.backupFormat + 1, ours: StationVersion.current
                )
            ))
        let b = folder.path + "/b"
        let storeB = try stationB(b)
        try expectRefused(cases, by: storeB, at: b)
        #expect(try storeB.tables()["meals"]?.count == 1)
        print("refused: " + cases.map { "\($0.0): \($0.2)" }.joined(separator: "; "))
        // A good backup that the card has no room to unpack (the station's margin made a GiB larger than the
        // card's free space, which the tests running beside this one may grow a little meanwhile): refused
        // before a byte is unpacked.
        let free = try FreeSpace.available(at: b)
        do {
            _ = try storeB.stageRestore(from: good, margin: free + (1 << 30))
            Issue.record("a backup with no room to unpack was taken")
        } catch {
            guard case .noRoom(let needed, let left) = error else { throw error }
            // The card is shared with the tests running beside this one: its free space moves a little
            // between the two readings.
            let freeMB = Int(free >> 20)
            #expect(abs(left - freeMB) <= 16, "\(error) (\(freeMB) MB free a moment before)")
            #expect(needed >= left, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: b + "/restore"))
    }
}
