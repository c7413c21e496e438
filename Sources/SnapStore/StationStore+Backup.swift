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
    /// Sealed with a passphrase (`BackupSeal`), and none was given.
    case locked
    /// Sealed with another passphrase than the one given.
    case wrongPassphrase
    /// Sealed at a cost far past a station's own (`BackupSeal.Cost.bearable`): refused before any work.
    case tooMuchWork
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
        case .locked: "the backup is sealed with a passphrase"
        case .wrongPassphrase: "the backup is sealed with another passphrase"
        case .tooMuchWork: "the backup is sealed at a cost far past a station's own"
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
///     keys/…                    the keys entered on the page (`EnteredKeys`), only in a sealed backup
///     SHA256SUMS                each file's SHA-256 as `sha256sum` writes it (`sha256sum -c` checks it)
///
/// The keys go only into a backup the owner seals with a passphrase (`BackupSeal`: the whole file is then
/// encrypted, and `format` is 2); one without holds none (`format` 1, read by every station that reads
/// backups), and restoring it leaves the station's own keys as they are.
///
/// It is written and checked as a stream, 64 KiB at a time, so a year of photos costs no more memory than
/// a day's. A restore checks the whole file first (every checksum, the header's format) and only then
/// unpacks it beside the store (`stageRestore`); the next start puts it in place (`applyRestore`).
extension StationStore {
    /// The newest layout this station reads: 1, the store and its files; 2, the keys too (sealed only).
    public static let backupFormat = 2
    static let backupHeaderName = "snapstation-backup.json"
    static let backupSumsName = "SHA256SUMS"
    static let storeName = "snapstation.sqlite"
    /// The folders of files a backup holds, under the state folder.
    static let backupFolders = ["photos", "inbox"]
    /// Where the keys entered on the page are kept, under the state folder (`StationConfig.enteredKeys`;
    /// a test holds the two together): in a sealed backup only.
    public static let keysFolder = "keys"

    /// Makes a backup as its reader asks for it, a piece at a time (`BackupPieces`): the store's copy now,
    /// the rest as it is read. With a `passphrase` it holds the keys too and is sealed with it.
    public func backupPieces(
        now: Date = Date(), version: String = StationVersion.current, format: Int? = nil, passphrase: String? = nil
    ) throws(BackupProblem) -> BackupPieces {
        let seal = try passphrase.map { passphrase throws(BackupProblem) in try BackupSeal(passphrase: passphrase) }
        let folder = directory + "/backup"
        let copy = "\(folder)/\(AtomicFile.temporaryPrefix)store.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let header: [UInt8]
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
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            header = Array(
                try encoder.encode(
                    BackupHeader(
                        format: format ?? (seal == nil ? 1 : 2), version: version,
                        created: ISO8601DateFormatter().string(from: now),
                        directory: directory)))
        } catch {
            unlink(copy)
            throw .failed("copy the store: \(error)")
        }
        var parts: [BackupPieces.Part] = [.bytes(Self.backupHeaderName, header), .file(Self.storeName, copy)]
        for folder in Self.backupFolders + (seal == nil ? [] : [Self.keysFolder]) {
            for relative in Self.files(under: "\(directory)/\(folder)") {
                parts.append(.file("\(folder)/\(relative)", "\(directory)/\(folder)/\(relative)"))
            }
        }
        return BackupPieces(parts, sums: Self.backupSumsName, modified: now, deleting: copy, sealed: seal)
    }

    /// Writes a backup to `sink`, a piece at a time.
    public func writeBackup(
        now: Date = Date(), version: String = StationVersion.current, format: Int? = nil, passphrase: String? = nil,
        to sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws(BackupProblem) {
        let pieces = try backupPieces(now: now, version: version, format: format, passphrase: passphrase)
        while let piece = try pieces.next() {
            do {
                try piece.withUnsafeBytes { try sink($0) }
            } catch {
                throw .failed("write the backup: \(error)")
            }
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

extension StationStore {
    /// The names of the store's tables, indexes, triggers and views, sorted: what a restored store's schema
    /// is made of (the hostile restores' tests).
    func schemaObjects() throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT type || ' ' || name FROM sqlite_master ORDER BY type, name")
        }
    }

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
                        row.databaseValues.map { value in
                            // JSON as its value (a restore writes it again through its type, in another order).
                            if case .string(let text) = value.storage, text.first == "{" || text.first == "[",
                                let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
                                let sorted = try? JSONSerialization.data(withJSONObject: json, options: .sortedKeys)
                            {
                                return "json " + String(decoding: sorted, as: UTF8.self)
                            }
                            return value.isNull ? "NULL" : "\(value)"
                        }
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
    /// Why the station kept a backup by itself: before an update installs, or before a restore replaces
    /// what it has. The name of each begins with its reason's (`before-update-TIME.tar`).
    public enum KeptBackupReason: String, Sendable, CaseIterable {
        case update = "before-update-"
        case restore = "before-restore-"
    }

    /// The backups kept by themselves (`keepBackup`), of `reason` or of any, newest first.
    public func keptBackups(_ reason: KeptBackupReason? = nil) -> [String] {
        let folder = directory + "/backup"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let reasons = reason.map { [$0] } ?? KeptBackupReason.allCases
        let kept = names.compactMap { name -> (stamp: String, name: String)? in
            guard name.hasSuffix(".tar"), let reason = reasons.first(where: { name.hasPrefix($0.rawValue) }) else {
                return nil
            }
            return (String(name.dropFirst(reason.rawValue.count)), name)
        }
        return kept.sorted { $0.stamp > $1.stamp }.map { folder + "/" + $0.name }
    }

    /// Makes a backup in the state folder (`backup/before-update-TIME.tar`, on the data partition, written
    /// whole or not at all) and keeps the newest `keep` of its `reason`: the one the station makes by itself
    /// before every update install, and before a restore is put in place. Its path.
    public func keepBackup(now: Date = Date(), keep: Int = 3, reason: KeptBackupReason = .update)
        throws(BackupProblem) -> String
    {
        let folder = directory + "/backup"
        let stamp = ISO8601DateFormatter.string(
            from: now, timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withYear, .withMonth, .withDay, .withTime, .withTimeZone])
        let path = "\(folder)/\(reason.rawValue)\(stamp).tar"
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
        for old in keptBackups(reason).dropFirst(keep) { unlink(old) }
        return path
    }
}
