import Foundation
internal import GRDB
import SnapCore
import SnapFiles

extension StationStore {
    /// Checks a backup whole without touching anything: it is a station's backup, of a layout this
    /// station reads, every file's checksum matches `SHA256SUMS`, nothing is missing or cut short, and a
    /// sealed one opens with `passphrase`.
    public static func checkBackup(
        at path: String, passphrase: String? = nil, progress: @escaping (Double) -> Void = { _ in }
    ) throws(BackupProblem) -> BackupHeader {
        try readBackup(at: path, passphrase: passphrase, progress: progress) { _, _ in nil }
    }

    /// Whether the file at `path` is a backup sealed with a passphrase (which a restore then asks for).
    public static func isSealedBackup(at path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        return BackupSeal.isSealed(Array((try? file.read(upToCount: BackupSeal.magic.count)) ?? Data()))
    }

    /// Where one file of a backup goes as it is read: each piece, then its end.
    struct BackupTarget {
        var write: (UnsafeRawBufferPointer) throws -> Void
        var end: () throws -> Void
    }

    /// Reads the backup at `path` through, checking it as `checkBackup` says; `each` is asked, for each
    /// file named in the sums, where to write it (nil: nowhere), which hears each piece and then its end.
    static func readBackup(
        at path: String, passphrase: String? = nil, progress: @escaping (Double) -> Void = { _ in },
        writing each: (String, Int) throws(BackupProblem) -> BackupTarget?
    ) throws(BackupProblem) -> BackupHeader {
        let reader = try BackupReader(path: path, passphrase: passphrase)
        // How far, against the file's size (a sealed file's tar is a little smaller than the file).
        var file = stat()
        let size = stat(path, &file) == 0 ? max(1, Int(file.st_size)) : 1
        reader.onRead = { read in progress(min(1, Double(read) / Double(size))) }
        // The first file names the backup; anything else is another file.
        let first: (name: String, size: Int)?
        do throws(BackupProblem) {
            first = try reader.next()
        } catch {
            // A sealed one is a backup whatever follows its head.
            throw !reader.sealed && (error == .truncated || error == .damaged("a file's header")) ? .notABackup : error
        }
        guard let first, first.name == backupHeaderName, first.size <= 64 * 1024 else { throw .notABackup }
        var bytes: [UInt8] = []
        let hash = SHA256Stream()
        try reader.content(first.size) { piece throws(BackupProblem) in
            bytes += piece
            hash.update(piece)
        }
        guard let header = try? JSONDecoder().decode(BackupHeader.self, from: Data(bytes)) else { throw .notABackup }
        guard header.format <= backupFormat else {
            throw .newer(version: header.version, format: header.format, ours: StationVersion.current)
        }
        var seen = [(name: backupHeaderName, sum: hash.finish())]
        while true {
            guard let entry = try reader.next() else { throw .damaged(backupSumsName) }
            guard entry.name != backupSumsName else {
                guard entry.size <= 16 << 20 else { throw .damaged(backupSumsName) }
                var text: [UInt8] = []
                try reader.content(entry.size) { piece throws(BackupProblem) in text += piece }
                let listed = String(decoding: text, as: UTF8.self).split(separator: "\n").map { line in
                    let parts = line.split(separator: " ", maxSplits: 1)
                    return (name: String(parts.last ?? "").trimmingCharacters(in: .whitespaces), sum: String(parts[0]))
                }
                for (index, file) in seen.enumerated() {
                    guard index < listed.count, listed[index].name == file.name else { throw .damaged(backupSumsName) }
                    guard listed[index].sum == file.sum else { throw .damaged(file.name) }
                }
                guard listed.count == seen.count else { throw .damaged(backupSumsName) }
                // The end: two zero blocks (a missing one is a file cut short), then a sealed file's end.
                guard try reader.next() == nil, try reader.ended() else { throw .damaged(backupSumsName) }
                return header
            }
            guard isBackupPart(entry.name, sealed: reader.sealed) else { throw .damaged(entry.name) }
            let target = try each(entry.name, entry.size)
            try reader.content(entry.size) { piece throws(BackupProblem) in
                hash.update(piece)
                do {
                    try target?.write(piece)
                } catch {
                    throw .failed("unpack \(entry.name): \(error)")
                }
            }
            do {
                try target?.end()
            } catch {
                throw .failed("unpack \(entry.name): \(error)")
            }
            seen.append((entry.name, hash.finish()))
        }
    }

    /// Whether `name` is a part a backup may hold: the store; a file of a day's folder of `photos` or of a
    /// group's folder of `inbox` (`photos/2026-11-30/NAME`, `inbox/GROUP/NAME`); or in a sealed one a file of
    /// `keysFolder`. Each name a `FileName` (no "." or "..", no slash, nothing hidden). Nothing else in a
    /// backup becomes a path, and a restored row names its files again itself (`StationStore+Files.swift`).
    static func isBackupPart(_ name: String, sealed: Bool = false) -> Bool {
        if name == storeName { return true }
        let steps = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard steps.allSatisfy({ FileName($0) != nil }) else { return false }
        switch steps.first {
        case "photos": return steps.count == 3 && LocalDay(steps[1])?.description == steps[1]
        case "inbox": return steps.count == 3
        case keysFolder: return sealed && steps.count == 2
        default: return false
        }
    }
}
