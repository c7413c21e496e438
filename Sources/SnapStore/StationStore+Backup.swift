import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// What a backup says of itself: its first file, `snapstation-backup.json`.
public struct BackupHeader: Codable, Sendable, Equatable {
    /// The backup's layout; a station reads its own and older ones.
    public var format: Int
    /// The station's version that made it.
    public var version: String
    /// When it was made (ISO 8601).
    public var created: String
    /// The state folder it was made in: the rows' file paths start with it.
    public var directory: String
}

/// Why a backup was not made, or not taken.
public enum BackupProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a station's backup at all (another file chosen).
    case notABackup
    /// It ends before its last file: a download cut short.
    case truncated
    /// A part does not match its checksum or its header is broken: `part` names it.
    case damaged(String)
    /// Made by a newer station (`version`), in a layout (`format`) this one (`ours`) cannot read.
    case newer(version: String, format: Int, ours: String)
    /// A file whose name ustar cannot hold.
    case nameTooLong(String)
    /// Unpacking it needs `needed` MB where the card has `free` MB (with room left for the station).
    case noRoom(needed: Int, free: Int)
    /// The file system or the database failed: what, and why.
    case failed(String)

    public var description: String {
        switch self {
        case .notABackup: "not a SnapStation backup"
        case .truncated: "the backup ends too early (cut short)"
        case .damaged(let part): "the backup is damaged: \(part) does not match its checksum"
        case .newer(let version, let format, let ours):
            "the backup was made by SnapStation \(version) in backup format \(format); this SnapStation \(ours) reads "
                + "format \(StationStore.backupFormat) and older"
        case .nameTooLong(let name): "a file name too long for the backup: \(name)"
        case .noRoom(let needed, let free): "unpacking the backup needs \(needed) MB, the card has \(free) MB free"
        case .failed(let why): why
        }
    }
}

/// A station's backup, one file: a POSIX tar, so that any `tar` opens it, holding in this order
///
///     snapstation-backup.json   the header (`BackupHeader`)
///     snapstation.sqlite        the store, copied with SQLite's online backup while the station runs,
///                               without the paired browsers' sessions
///     photos/…, inbox/…         every photo, thumbnail and sticker, and the group's photos received
///     SHA256SUMS                each file's SHA-256 as `sha256sum` writes it (`sha256sum -c` checks it)
///
/// It is written and checked as a stream, 64 KiB at a time, so a year of photos costs no more memory than
/// a day's. A restore checks the whole file first (every checksum, the header's format) and only then
/// unpacks it beside the store (`stageRestore`); the next start puts it in place (`applyRestore`).
extension StationStore {
    /// The layout this station writes and the newest it reads.
    public static let backupFormat = 1
    static let backupHeaderName = "snapstation-backup.json"
    static let backupSumsName = "SHA256SUMS"
    static let storeName = "snapstation.sqlite"
    /// The folders of files a backup holds, under the state folder.
    static let backupFolders = ["photos", "inbox"]

    /// Writes a backup to `sink`, a piece at a time; `progress` hears the bytes written so far.
    public func writeBackup(
        now: Date = Date(), version: String = StationVersion.current, format: Int = StationStore.backupFormat,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void, progress: @escaping (Int) -> Void = { _ in }
    ) throws(BackupProblem) {
        let folder = directory + "/backup"
        let copy = "\(folder)/\(AtomicFile.temporaryPrefix)store.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(copy) }
        do {
            try AtomicFile.createFolder(folder)
            let target = try DatabaseQueue(path: copy)
            try database.backup(to: target)
            // The paired browsers stay this station's: a restored station keeps its own.
            try target.writeWithoutTransaction { db in
                try db.execute(sql: "DELETE FROM web_sessions")
                try db.execute(sql: "VACUUM")
            }
            try target.close()
        } catch let problem as BackupProblem {
            throw problem
        } catch {
            throw .failed("copy the store: \(error)")
        }
        let header = BackupHeader(
            format: format, version: version, created: ISO8601DateFormatter().string(from: now), directory: directory)
        var writer = BackupWriter(sink: sink, progress: progress)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try writer.add(Self.backupHeaderName, bytes: Array(try encoder.encode(header)), modified: now)
            try writer.add(Self.storeName, file: copy, modified: now)
            for folder in Self.backupFolders {
                for relative in Self.files(under: "\(directory)/\(folder)") {
                    try writer.add("\(folder)/\(relative)", file: "\(directory)/\(folder)/\(relative)", modified: now)
                }
            }
            try writer.finish(sums: Self.backupSumsName, modified: now)
        } catch let problem as BackupProblem {
            throw problem
        } catch {
            throw .failed("write the backup: \(error)")
        }
    }

    /// The files under `folder`, relative to it, sorted; no temporary file a crash left.
    static func files(under folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            let name = URL(fileURLWithPath: relative).lastPathComponent
            var status = stat()
            guard !name.hasPrefix(AtomicFile.temporaryPrefix), stat(folder + "/" + relative, &status) == 0,
                status.st_mode & S_IFMT == S_IFREG
            else { continue }
            found.append(relative)
        }
        return found.sorted()
    }
}

/// Writes a backup's tar, hashing each file as it goes.
struct BackupWriter {
    let sink: (UnsafeRawBufferPointer) throws -> Void
    let progress: (Int) -> Void
    private(set) var written = 0
    private var sums: [(name: String, sum: String)] = []
    private let hash = SHA256Stream()

    init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void, progress: @escaping (Int) -> Void) {
        self.sink = sink
        self.progress = progress
    }

    private mutating func emit(_ bytes: UnsafeRawBufferPointer) throws {
        try sink(bytes)
        written += bytes.count
        progress(written)
    }

    private mutating func emit(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try emit($0) } }

    mutating func add(_ name: String, bytes: [UInt8], modified: Date) throws {
        try emit(try Tar.header(name: name, size: bytes.count, modified: Int(modified.timeIntervalSince1970)))
        try emit(bytes)
        hash.update(bytes)
        sums.append((name, hash.finish()))
        try emit([UInt8](repeating: 0, count: Tar.padding(after: bytes.count)))
    }

    /// Streams the file at `path`: its size is read once, and a file that changes meanwhile is an error
    /// (the station writes photos atomically, so one only appears or goes, never grows).
    mutating func add(_ name: String, file path: String, modified: Date) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupProblem.failed("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw BackupProblem.failed("read \(path)") }
        let size = Int(status.st_size)
        try emit(try Tar.header(name: name, size: size, modified: Int(modified.timeIntervalSince1970)))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var left = size
        while left > 0 {
            let count = try buffer.withUnsafeMutableBytes { raw -> Int in
                let count = read(descriptor, raw.baseAddress, min(left, raw.count))
                guard count > 0 else {
                    throw BackupProblem.failed("read \(path): it changed while the backup was made")
                }
                let piece = UnsafeRawBufferPointer(rebasing: raw[..<count])
                hash.update(piece)
                return count
            }
            try buffer.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            left -= count
        }
        sums.append((name, hash.finish()))
        try emit([UInt8](repeating: 0, count: Tar.padding(after: size)))
    }

    /// The checksums' file, and the archive's end (two zero blocks).
    mutating func finish(sums name: String, modified: Date) throws {
        let text = sums.map { "\($0.sum)  \($0.name)\n" }.joined()
        try add(name, bytes: Array(text.utf8), modified: modified)
        try emit([UInt8](repeating: 0, count: 2 * Tar.block))
    }
}

/// Reads a backup's tar from a file, a block at a time, through one buffer of 64 KiB.
final class BackupReader {
    private let descriptor: Int32
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    let path: String

    init(path: String) throws(BackupProblem) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            buffer.deallocate()
            throw BackupProblem.failed("open \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
    }

    deinit {
        Glibc.close(descriptor)
        buffer.deallocate()
    }

    /// Exactly `count` bytes into the buffer's start, or `.truncated` at the file's end.
    private func fill(_ count: Int) throws(BackupProblem) -> UnsafeRawBufferPointer {
        var done = 0
        while done < count {
            let read = Glibc.read(descriptor, buffer.baseAddress! + done, count - done)
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                if read == 0 { throw .truncated }
                throw .failed("read \(path): \(String(cString: strerror(errno)))")
            }
            done += read
        }
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    /// The next file's name and size; nil at the archive's end.
    func next() throws(BackupProblem) -> (name: String, size: Int)? {
        try Tar.read(header: Array(try fill(Tar.block)))
    }

    /// The file's `size` bytes, handed to `body` in pieces of at most 64 KiB, then its padding skipped.
    func content(_ size: Int, _ body: (UnsafeRawBufferPointer) throws(BackupProblem) -> Void) throws(BackupProblem) {
        var left = size + Tar.padding(after: size)
        var data = size
        while left > 0 {
            let count = min(left, buffer.count)
            let piece = try fill(count)
            if data > 0 { try body(UnsafeRawBufferPointer(rebasing: piece[..<min(count, data)])) }
            data -= min(count, data)
            left -= count
        }
    }
}

extension StationStore {
    /// Checks a backup whole without touching anything: it is a station's backup, of a layout this
    /// station reads, every file's checksum matches `SHA256SUMS`, and nothing is missing or cut short.
    public static func checkBackup(at path: String) throws(BackupProblem) -> BackupHeader {
        try readBackup(at: path) { _, _ in nil }
    }

    /// Reads the backup at `path` through, checking it as `checkBackup` says; `each` is asked, for each
    /// file named in the sums, where to write it (nil: nowhere) and hears each piece.
    static func readBackup(
        at path: String, writing each: (String, Int) throws(BackupProblem) -> ((UnsafeRawBufferPointer) throws -> Void)?
    ) throws(BackupProblem) -> BackupHeader {
        let reader = try BackupReader(path: path)
        // The first file names the backup; anything else is another file.
        let first: (name: String, size: Int)?
        do throws(BackupProblem) {
            first = try reader.next()
        } catch {
            throw error == .truncated || error == .damaged("a file's header") ? .notABackup : error
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
                // The end: two zero blocks (a missing one is a file cut short).
                guard try reader.next() == nil else { throw .damaged(backupSumsName) }
                return header
            }
            guard isBackupPart(entry.name) else { throw .damaged(entry.name) }
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

    /// Whether `name` is a part a backup may hold: the store, or a file under one of `backupFolders`,
    /// with no "." or ".." step and no empty one. Nothing else in a backup becomes a path.
    static func isBackupPart(_ name: String) -> Bool {
        if name == storeName { return true }
        let steps = name.split(separator: "/", omittingEmptySubsequences: false)
        guard steps.count >= 2, backupFolders.contains(String(steps[0])) else { return false }
        return steps.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
    }
}

extension StationStore {
    /// Where a checked backup waits, unpacked, for the next start; `ready` in it says it is whole.
    static func restoreFolder(_ directory: String) -> String { directory + "/restore" }

    /// Checks the backup at `path` whole, then unpacks it beside the store (`restore/`), its store
    /// migrated to this station's schema, its file paths moved to this state folder, and this station's
    /// paired browsers kept; the next start puts it in place (`applyRestore`). Nothing the station uses
    /// is touched: a backup refused here leaves everything as it was.
    public func stageRestore(from path: String, margin: UInt64 = 64 << 20) throws(BackupProblem) -> BackupHeader {
        _ = try Self.checkBackup(at: path)
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
            header = try Self.readBackup(at: path) { name, _ throws(BackupProblem) in
                let target = staging + "/" + name
                do {
                    try AtomicFile.createFolder(URL(fileURLWithPath: target).deletingLastPathComponent().path)
                    let writer = try AtomicFile.Writer(path: target)
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
            for part in [storeName] + backupFolders {
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

extension StationStore {
    /// Every table's rows as text, sorted, each value as SQLite gives it ("NULL" for none): what two
    /// stores hold, compared table by table (the backup's tests).
    func tables() throws(StoreError) -> [String: [[String]]] {
        do {
            return try database.read { db in
                var tables: [String: [[String]]] = [:]
                let names = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                for name in names {
                    tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\"").map { row in
                        row.databaseValues.map { $0.isNull ? "NULL" : "\($0)" }
                    }.sorted { $0.lexicographicallyPrecedes($1) }
                }
                return tables
            }
        } catch {
            throw StoreError("read every table", error)
        }
    }
}

extension StationStore {
    /// The backups kept by themselves before each update (`keepBackup`), newest first.
    public func keptBackups() -> [String] {
        let folder = directory + "/backup"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("before-update-") && $0.hasSuffix(".tar") }.sorted(by: >).map {
            folder + "/" + $0
        }
    }

    /// Makes a backup in the state folder (`backup/before-update-TIME.tar`, on the data partition, written
    /// whole or not at all) and keeps the newest `keep`: the one the station makes by itself before every
    /// update install. Its path.
    public func keepBackup(now: Date = Date(), keep: Int = 3) throws(BackupProblem) -> String {
        let folder = directory + "/backup"
        let stamp = ISO8601DateFormatter.string(
            from: now, timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withYear, .withMonth, .withDay, .withTime, .withTimeZone])
        let path = "\(folder)/before-update-\(stamp).tar"
        let file: AtomicFile.Writer
        do {
            try AtomicFile.createFolder(folder)
            file = try AtomicFile.Writer(path: path)
        } catch {
            throw .failed("\(error)")
        }
        do {
            try writeBackup(now: now) { piece in try file.append(piece) }
            try file.commit()
        } catch let problem as BackupProblem {
            file.discard()
            throw problem
        } catch {
            file.discard()
            throw .failed("\(error)")
        }
        for old in keptBackups().dropFirst(keep) { unlink(old) }
        return path
    }
}
