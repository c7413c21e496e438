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

    /// Reads the backup at `path` through, checking it as `checkBackup` says; `each` is asked, for each
    /// file named in the sums, where to write it (nil: nowhere) and hears each piece.
    static func readBackup(
        at path: String, passphrase: String? = nil, progress: @escaping (Double) -> Void = { _ in },
        writing each: (String, Int) throws(BackupProblem) -> ((UnsafeRawBufferPointer) throws -> Void)?
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
                    try target?(piece)
                } catch {
                    throw .failed("unpack \(entry.name): \(error)")
                }
            }
            seen.append((entry.name, hash.finish()))
        }
    }

    /// Whether `name` is a part a backup may hold: the store, or a file under one of `backupFolders` (or,
    /// in a sealed one, `keysFolder`), with no "." or ".." step and no empty one. Nothing else in a backup
    /// becomes a path.
    static func isBackupPart(_ name: String, sealed: Bool = false) -> Bool {
        if name == storeName { return true }
        let steps = name.split(separator: "/", omittingEmptySubsequences: false)
        let folders = backupFolders + (sealed ? [keysFolder] : [])
        guard steps.count >= 2, folders.contains(String(steps[0])) else { return false }
        return steps.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
    }
}

extension StationStore {
    /// Where a checked backup waits, unpacked, for the next start; `ready` in it says it is whole.
    static func restoreFolder(_ directory: String) -> String { directory + "/restore" }

    /// Checks the backup at `path` whole, then unpacks it beside the store (`restore/`), its store
    /// migrated to this station's schema, its file paths moved to this state folder, and this station's
    /// paired browsers kept; the next start puts it in place (`applyRestore`). Nothing the station uses
    /// is touched: a backup refused here leaves everything as it was. The keys of a sealed backup
    /// (`passphrase` opens it) are unpacked readable by the station's user alone.
    /// `progress` hears how far it is (0…1): the check the first half, the unpacking the second.
    public func stageRestore(
        from path: String, passphrase: String? = nil, margin: UInt64 = 64 << 20,
        progress: @escaping (Double) -> Void = { _ in }
    ) throws(BackupProblem) -> BackupHeader {
        _ = try Self.checkBackup(at: path, passphrase: passphrase) { progress($0 / 2) }
        // Unpacked, it takes about its own size (the file sent is deleted only after), and the station
        // keeps `margin` to go on taking photos.
        var file = stat()
        let free = (try? FreeSpace.available(at: directory)) ?? 0
        if stat(path, &file) == 0, UInt64(file.st_size) + margin > free {
            throw .noRoom(needed: Int((UInt64(file.st_size) + margin) >> 20), free: Int(free >> 20))
        }
        let staging = Self.restoreFolder(directory)
        try? FileManager.default.removeItem(atPath: staging)
        var writers: [AtomicFile.Writer] = []
        let header: BackupHeader
        do {
            try AtomicFile.createFolder(staging)
            let unpacked: (Double) -> Void = { progress(0.5 + $0 / 2) }
            header = try Self.readBackup(at: path, passphrase: passphrase, progress: unpacked) {
                name, _ throws(BackupProblem) in
                let target = staging + "/" + name
                let key = name.hasPrefix(Self.keysFolder + "/")
                do {
                    try AtomicFile.createFolder(
                        URL(fileURLWithPath: target).deletingLastPathComponent().path, permissions: key ? 0o700 : 0o755)
                    let writer = try AtomicFile.Writer(path: target, permissions: key ? 0o600 : 0o644)
                    writers.append(writer)
                    return { piece in try writer.append(piece) }
                } catch {
                    throw .failed("unpack \(name): \(error)")
                }
            }
            for writer in writers { try writer.commit() }
            // A folder the backup holds nothing of is empty after the restore, not left as it was.
            for folder in Self.backupFolders { try AtomicFile.createFolder(staging + "/" + folder) }
        } catch let problem as BackupProblem {
            for writer in writers { writer.discard() }
            try? FileManager.default.removeItem(atPath: staging)
            throw problem
        } catch {
            for writer in writers { writer.discard() }
            try? FileManager.default.removeItem(atPath: staging)
            throw .failed("unpack the backup: \(error)")
        }
        do {
            try adopt(staging + "/" + Self.storeName, from: header.directory)
            try AtomicFile.write(Array("\(header.version)\n".utf8), to: staging + "/ready")
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw .failed("prepare the restored store: \(error)")
        }
        return header
    }

    /// Makes the unpacked store at `path` this station's: migrated to this schema, every file path moved
    /// from `old` (the state folder the backup was made in) to this one, this station's paired browsers
    /// in it.
    private func adopt(_ path: String, from old: String) throws {
        let restored = try DatabaseQueue(path: path)
        try Self.migrator.migrate(restored)
        let sessions = try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM web_sessions") }
        let new = directory
        try restored.write { db in
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                for column in try db.columns(in: table).map(\.name) where column == "path" || column.hasSuffix("_path")
                {
                    try db.execute(
                        sql: """
                            UPDATE "\(table)" SET "\(column)" = ? || substr("\(column)", length(?) + 1)
                            WHERE substr("\(column)", 1, length(?) + 1) = ? || '/'
                            """,
                        arguments: [new, old, old, old])
                }
            }
            try db.execute(sql: "DELETE FROM web_sessions")
            for row in sessions {
                let columns = Array(row.columnNames)
                let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
                try db.execute(
                    sql: "INSERT INTO web_sessions (\(names)) VALUES (\(marks))",
                    arguments: StatementArguments(columns.map { row[$0] as DatabaseValue }))
            }
        }
        try restored.close()
    }

    /// Puts a restore `stageRestore` left in place, before the store opens: the store and the folders
    /// of files are swapped for the backup's, each by a rename, the old ones then deleted. A start cut
    /// short goes on where it stopped. Returns the version that made the backup applied; nil when none
    /// waited.
    @discardableResult
    public static func applyRestore(in directory: String) throws(BackupProblem) -> String? {
        let staging = restoreFolder(directory)
        guard let ready = FileBytes.readIfPresent(staging + "/ready") else {
            // A restore that never got whole is dropped.
            try? FileManager.default.removeItem(atPath: staging)
            return nil
        }
        let version = String(decoding: ready, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let replaced = directory + "/replaced"
        do {
            try AtomicFile.createFolder(replaced)
            // The keys only when the backup held them (sealed): else the station's own stay.
            for part in [storeName] + backupFolders + [keysFolder] {
                let (new, current) = (staging + "/" + part, directory + "/" + part)
                guard FileManager.default.fileExists(atPath: new) else { continue }
                if part == storeName {
                    // The old store's journal would be read into the new one.
                    for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: current + suffix) {
                        try moving(current + suffix, to: replaced + "/" + part + suffix)
                    }
                }
                if FileManager.default.fileExists(atPath: current) {
                    try moving(current, to: replaced + "/" + part)
                }
                try moving(new, to: current)
            }
            try AtomicFile.syncFolder(directory)
            try FileManager.default.removeItem(atPath: staging)
            try FileManager.default.removeItem(atPath: replaced)
        } catch {
            throw .failed("put the restored backup in place: \(error)")
        }
        return version
    }

    private static func moving(_ from: String, to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        guard rename(from, to) == 0 else {
            throw BackupProblem.failed("move \(from): \(String(cString: strerror(errno)))")
        }
    }
}
