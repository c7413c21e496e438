import Foundation
import SnapCore
import SnapFiles
import Testing

@testable import SnapStore

/// A backup sealed with a passphrase (`BackupSeal`): the keys in it, nothing in clear, opened only with it.
extension BackupTests {
    /// Keeps `keys` (name: key) as the page does, under `directory`'s keys folder, 0600 in a 0700 folder.
    private func keep(_ keys: [String: String], in directory: String) throws {
        let folder = directory + "/" + StationStore.keysFolder
        try AtomicFile.createFolder(folder, permissions: 0o700)
        for (name, key) in keys {
            try AtomicFile.write(Array((key + "\n").utf8), to: "\(folder)/\(name).key", permissions: 0o600)
        }
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test("should seal a backup with the keys under a passphrase: nothing in clear, restored only with it, keys 0600")
    func sealedRoundTrip() throws {
        let (a, b, file) = (folder.path + "/a", folder.path + "/b", folder.path + "/a.sealed")
        let storeA = try stationA(a)
        let keysA = ["ai": "sk-proj-SEALEDKEYa1b2c3d4", "group": "Gr0up-Pa55word-9f8e7d"]
        try keep(keysA, in: a)
        // Typed on a computer (é as one code point), typed again on a phone (e and a combining accent).
        let typed = "crème brûlée at 42"
        try backup(of: storeA, to: file, passphrase: typed)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.starts(with: Array("SnapSeal".utf8)))
        #expect(StationStore.isSealedBackup(at: file))
        for clear in keysA.values + ["SQLite format 3", "Meal 0", "snapstation-backup.json", "A's phone", typed] {
            #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is not in the file in clear")
        }
        let storeB = try stationB(b)
        try keep(["ai": "sk-B-own-key"], in: b)
        let before = try sha256(b + "/snapstation.sqlite")
        for (passphrase, problem) in [(nil, BackupProblem.locked), ("crème brûlée at 43", .wrongPassphrase)] {
            #expect(throws: problem) { try storeB.stageRestore(from: file, passphrase: passphrase) }
            #expect(try sha256(b + "/snapstation.sqlite") == before, "B's store unchanged")
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: b + "/restore")) ?? []).isEmpty,
                "nothing left to apply")
        }
        _ = try storeB.stageRestore(from: file, passphrase: typed.decomposedStringWithCanonicalMapping)
        _ = try storeB.confirmRestore()
        #expect(StationStore.applyRestore(in: b)?.problem == nil)
        let restored = try StationStore(directory: b)
        #expect(try restored.tables()["meals"]?.count == 3)
        #expect(try restored.sessions().map(\.name) == ["B's phone"])
        #expect(try files(b) == files(a), "every photo, byte for byte")
        let keysB = try files(b, also: [StationStore.keysFolder]).filter { $0.key.hasPrefix("keys/") }
        #expect(keysB == keysA.reduce(into: [:]) { $0["keys/\($1.key).key"] = Data(($1.value + "\n").utf8) })
        #expect(mode(b + "/keys") == 0o700 && mode(b + "/keys/ai.key") == 0o600, "the station's user's alone")
    }

    @Test("should hold no key in a backup without a passphrase, and leave the restoring station's own")
    func plainKeepsOwnKeys() throws {
        let (a, b, file) = (folder.path + "/a", folder.path + "/b", folder.path + "/a.tar")
        try keep(["ai": "sk-proj-NOTINTHEFILE77"], in: a)
        try backup(of: try stationA(a), to: file)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(bytes.range(of: Data("NOTINTHEFILE".utf8)) == nil && bytes.range(of: Data("keys/".utf8)) == nil)
        let storeB = try stationB(b)
        try keep(["ai": "sk-B-own-key"], in: b)
        _ = try storeB.stageRestore(from: file, passphrase: "ignored: the file is not sealed")
        _ = try storeB.confirmRestore()
        StationStore.applyRestore(in: b)
        #expect(try String(contentsOfFile: b + "/keys/ai.key", encoding: .utf8) == "sk-B-own-key\n")
        // Nothing but a sealed backup may name a key.
        #expect(!StationStore.isBackupPart("keys/ai.key") && StationStore.isBackupPart("keys/ai.key", sealed: true))
    }

    @Test("should refuse a sealed file cut short, with a byte flipped, pieces swapped, or a head asking too much")
    func sealedRefusals() throws {
        let storeA = try stationA(folder.path + "/a")
        let good = folder.path + "/good"
        let passphrase = "correct horse"
        try backup(of: storeA, to: good, passphrase: passphrase)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let (head, piece) = (BackupSeal.headSize, BackupSeal.pieceSize + BackupSeal.tagSize)
        // The 300 kB photo makes the file five pieces and more.
        #expect(bytes.count > head + 5 * piece, "\(bytes.count) bytes")
        var cases: [(String, Data, BackupProblem)] = [
            ("cut after a whole piece", bytes.prefix(head + 2 * piece), .truncated),
            ("cut inside a piece", bytes.prefix(head + 3 * piece + 999), .truncated),
            ("its head alone", bytes.prefix(head), .truncated),
            ("cut inside its head", bytes.prefix(20), .truncated),
        ]
        var flipped = bytes
        flipped[head + piece + 100] ^= 0x01
        cases.append(("a byte flipped in its second piece", flipped, .damaged("sealed piece 2")))
        var check = bytes
        check[40] ^= 0x01
        cases.append(("a byte flipped in its check", check, .wrongPassphrase))
        var swapped = bytes
        swapped.replaceSubrange(head..<(head + piece), with: bytes[(head + piece)..<(head + 2 * piece)])
        swapped.replaceSubrange((head + piece)..<(head + 2 * piece), with: bytes[head..<(head + piece)])
        cases.append(("two pieces swapped", swapped, .damaged("sealed piece 1")))
        var greedy = bytes
        greedy[9] = 26  // N = 2^26: 8 GiB for scrypt, refused before any work
        cases.append(("a head asking 8 GiB", greedy, .notABackup))
        var appended = bytes
        appended.append(bytes[head..<(head + piece)])
        // Its last piece is then read as one followed by more, and does not open as such.
        let pieces = (bytes.count - head + piece - 1) / piece
        cases.append(("a piece added after its last", appended, .damaged("sealed piece \(pieces)")))
        let b = folder.path + "/b"
        try expectRefused(cases, by: try stationB(b), at: b, passphrase: passphrase)
        print("sealed, refused: " + cases.map { "\($0.0): \($0.2)" }.joined(separator: "; "))
    }

    @Test("should seal with scrypt at 8 MiB, and still open a file sealed at the 16 MiB cost before")
    func sealCosts() throws {
        #expect(BackupSeal.Cost.standard.memory == 8 << 20, "within the 10 MB a backup may grow the station")
        let sealed = try BackupSeal(passphrase: "correct horse")
        #expect(Array(sealed.head[9...11]) == [13, 8, 10], "the cost in the head")
        let older = try BackupSeal(passphrase: "correct horse", cost: BackupSeal.Cost(log2N: 14, r: 8, p: 5))
        let reopened = try BackupSeal(head: older.head, passphrase: "correct horse")
        let plain = Array("a line of the shopping list".utf8)
        let piece = plain.withUnsafeBytes { older.seal($0, number: 0, last: true) }
        var opened = [UInt8](repeating: 0, count: plain.count)
        let fits = piece.withUnsafeBytes { sealedPiece in
            opened.withUnsafeMutableBytes { reopened.open(sealedPiece, number: 0, last: true, into: $0.baseAddress!) }
        }
        #expect(fits && opened == plain, "a file sealed before the cost changed opens")
    }

    @Test("should refuse a head that asks far past the standard work, or what scrypt refuses, before any work")
    func sealCostBounds() throws {
        let sealed = try BackupSeal(passphrase: "correct horse")
        for (log2N, r, p) in [(16, 8, 16), (19, 1, 16), (15, 8, 16), (13, 8, 41), (16, 1, 1)] as [(UInt8, UInt8, UInt8)]
        {
            var head = sealed.head
            head[9...11] = [log2N, r, p]
            #expect(throws: BackupProblem.tooMuchWork, "2^\(log2N)/r\(r)/p\(p)") {
                try BackupSeal(head: head, passphrase: "correct horse")
            }
        }
        // Within 4 times the standard work, and scrypt's bound: read (the passphrase's check then fails).
        for (log2N, r, p) in [(14, 8, 10), (13, 8, 40), (12, 16, 10)] as [(UInt8, UInt8, UInt8)] {
            var head = sealed.head
            head[9...11] = [log2N, r, p]
            #expect(throws: BackupProblem.wrongPassphrase, "2^\(log2N)/r\(r)/p\(p)") {
                try BackupSeal(head: head, passphrase: "correct horse")
            }
        }
    }
}

extension BackupTests {
    @Test(
        "should tell a backup's progress as it is made and a restore's as it is checked and unpacked, up to the whole")
    func progress() throws {
        let (a, b, file) = (folder.path + "/a", folder.path + "/b", folder.path + "/a.tar")
        let storeA = try stationA(a)
        let pieces = try storeA.backupPieces()
        var made: [Double] = [pieces.fraction]
        var bytes = 0
        while let piece = try pieces.next() {
            bytes += piece.count
            made.append(pieces.fraction)
        }
        #expect(made.first == 0 && made.last == 1, "\(made.prefix(3)) … \(made.suffix(3))")
        #expect(made == made.sorted(), "never backwards")
        // The reckoning at the start is the tar's size, give or take the sums' lines.
        #expect(made[made.count - 2] > 0.95, "the last piece but one at \(made[made.count - 2]) of \(bytes) bytes")
        try backup(of: storeA, to: file)
        var told: [Double] = []
        _ = try stationB(b).stageRestore(from: file, progress: { told.append($0) })
        #expect(told == told.sorted() && told.count > 10, "\(told.count) reports, never backwards")
        #expect(told.contains { $0 >= 0.49 && $0 <= 0.5 }, "the check is the first half")
        #expect((told.last ?? 0) > 0.99, "the unpacking the second, to the end: \(told.last ?? 0)")
    }
}
