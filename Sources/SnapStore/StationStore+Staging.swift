import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// A backup checked, unpacked and rebuilt beside the store (`restore/staged`), waiting for the station's
/// hold and then its restart.
public struct StagedRestore: Sendable, Hashable, Codable {
    /// The version of SnapStation that made the backup, and when (its header's).
    public var version: String
    public var created: String
    public var report: RestoreReport
    /// The backup of what the restore replaces, made as the hold confirmed it (`backup/before-restore-…`).
    public var keptBackup: String?
}

/// How the last restore ended, as the start that put it in place (or could not) wrote it: the page says so
/// until the owner has read it, across the restart that separates the hold from the outcome.
public struct RestoreOutcome: Sendable, Hashable, Codable {
    public var restore: StagedRestore
    /// When the start put it in place.
    public var at: Date
    /// Why it was not put in place (the station started with what it had); nil: restored.
    public var problem: String?
}

/// A restore, in three steps, each of which leaves the station as it was until the last:
///
///     upload ──stageRestore──► restore/staged (checked, unpacked, rebuilt: `StagedRestore`)
///        ──the hold at the station──► confirmRestore: a backup of what it replaces, then `confirmed`
///        ──the restart──► applyRestore, before the store opens: swapped in, `restore/outcome.json`
///
/// Each upload unpacks into a folder of its own (`restore/incoming-…`), so a second one refused leaves the
/// first as it was; one that succeeds takes the first's place. Each file is committed as its last byte is
/// read, so a restore holds one file open at a time, whatever it holds.
extension StationStore {
    static func restoreFolder(_ directory: String) -> String { directory + "/restore" }
    static func stagedFolder(_ directory: String) -> String { restoreFolder(directory) + "/staged" }
    /// The backup's own store, unpacked beside the new store the restore makes of it, and deleted after.
    static let unpackedStoreName = "backup-store.sqlite"

    /// Checks the backup at `path` whole, then unpacks it beside the store and rebuilds its store
    /// (`rebuild`: a new store of this binary's, the backup's rows copied into it as input, the owner's
    /// settings through `settings`); it waits in `restore/staged` for the station's hold. Nothing the station
    /// uses is touched: a backup refused here leaves everything as it was. The keys of a sealed backup
    /// (`passphrase` opens it) are unpacked readable by the station's user alone.
    /// `progress` hears how far it is (0…1): the check the first half, the unpacking the second.
    public func stageRestore(
        from path: String, passphrase: String? = nil, margin: UInt64 = 64 << 20,
        settings: RestoredSettings = { ($0, RuntimeSettings()) }, progress: @escaping (Double) -> Void = { _ in }
    ) throws(BackupProblem) -> StagedRestore {
        _ = try Self.checkBackup(at: path, passphrase: passphrase) { progress($0 / 2) }
        // Unpacked, it takes about its own size (the file sent is deleted only after), and the station
        // keeps `margin` to go on taking photos.
        var file = stat()
        let free = (try? FreeSpace.available(at: directory)) ?? 0
        if stat(path, &file) == 0, UInt64(file.st_size) + margin > free {
            throw .noRoom(needed: Int((UInt64(file.st_size) + margin) >> 20), free: Int(free >> 20))
        }
        let root = Self.restoreFolder(directory)
        let incoming = root + "/incoming-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let staged = try unpack(
                path, into: incoming, passphrase: passphrase, settings: settings, progress: progress)
            try Self.replace(Self.stagedFolder(directory), with: incoming)
            return staged
        } catch {
            try? FileManager.default.removeItem(atPath: incoming)
            throw error
        }
    }

    private func unpack(
        _ path: String, into staging: String, passphrase: String?, settings: RestoredSettings,
        progress: @escaping (Double) -> Void
    ) throws(BackupProblem) -> StagedRestore {
        let header: BackupHeader
        do {
            try AtomicFile.createFolder(Self.restoreFolder(directory))
            try AtomicFile.createFolder(staging)
        } catch {
            throw .failed("unpack the backup: \(error)")
        }
        let unpacked: (Double) -> Void = { progress(0.5 + $0 / 2) }
        header = try Self.readBackup(at: path, passphrase: passphrase, progress: unpacked) {
            name, _ throws(BackupProblem) in
            let target = staging + "/" + (name == Self.storeName ? Self.unpackedStoreName : name)
            let key = name.hasPrefix(Self.keysFolder + "/")
            do {
                try AtomicFile.createFolder(
                    URL(fileURLWithPath: target).deletingLastPathComponent().path, permissions: key ? 0o700 : 0o755)
                let writer = try AtomicFile.Writer(path: target, permissions: key ? 0o600 : 0o644)
                return BackupTarget(write: { piece in try writer.append(piece) }, end: { try writer.commit() })
            } catch {
                throw .failed("unpack \(name): \(error)")
            }
        }
        let report = try Self.rebuild(
            from: staging + "/" + Self.unpackedStoreName, into: staging + "/" + Self.storeName,
            madeIn: header.directory,
            for: directory, settings: settings)
        let staged = StagedRestore(version: header.version, created: header.created, report: report)
        do {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: staging + "/" + Self.unpackedStoreName + suffix)
            }
            // A folder the backup holds nothing of is empty after the restore, not left as it was.
            for folder in Self.backupFolders { try AtomicFile.createFolder(staging + "/" + folder) }
            try AtomicFile.write(try JSONEncoder().encode(staged), to: staging + "/ready")
        } catch {
            throw .failed("prepare the restored store: \(error)")
        }
        return staged
    }

    /// The restore waiting in `restore/staged` (checked, not yet put in place), if any.
    public func stagedRestore() -> StagedRestore? { Self.staged(in: directory) }

    static func staged(in directory: String) -> StagedRestore? {
        FileBytes.readIfPresent(stagedFolder(directory) + "/ready").flatMap {
            try? JSONDecoder().decode(StagedRestore.self, from: Data($0))
        }
    }

    /// Forgets the restore waiting: the station goes on with what it has.
    public func forgetStagedRestore() {
        try? FileManager.default.removeItem(atPath: Self.stagedFolder(directory))
    }

    /// The hold at the station confirmed the restore waiting: a backup of what it replaces is kept first
    /// (`backup/before-restore-…`), then the restore is marked for the next start. Nil when none waits.
    public func confirmRestore(now: Date = Date()) throws(BackupProblem) -> StagedRestore? {
        guard var staged = stagedRestore() else { return nil }
        let kept = try keepBackup(now: now, reason: .restore)
        staged.keptBackup = (kept as NSString).lastPathComponent
        do {
            let folder = Self.stagedFolder(directory)
            try AtomicFile.write(try JSONEncoder().encode(staged), to: folder + "/ready")
            try AtomicFile.write(Array("\(staged.version)\n".utf8), to: folder + "/confirmed")
        } catch {
            throw .failed("mark the restore confirmed: \(error)")
        }
        return staged
    }

    /// How the last restore ended, until `dismissRestoreOutcome`.
    public func restoreOutcome() -> RestoreOutcome? {
        FileBytes.readIfPresent(Self.restoreFolder(directory) + "/outcome.json").flatMap {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try? decoder.decode(RestoreOutcome.self, from: Data($0))
        }
    }

    public func dismissRestoreOutcome() { unlink(Self.restoreFolder(directory) + "/outcome.json") }

    /// The restore the hold confirmed could not be prepared: the outcome says why (the restore waits on,
    /// for the owner to ask again or forget).
    public func noteRestoreProblem(_ problem: String, now: Date = Date()) {
        guard let staged = stagedRestore() else { return }
        Self.keep(RestoreOutcome(restore: staged, at: now, problem: problem), in: directory)
    }

    private static func keep(_ outcome: RestoreOutcome, in directory: String) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        try? AtomicFile.write(try encoder.encode(outcome), to: restoreFolder(directory) + "/outcome.json")
    }

    /// Puts a restore the hold confirmed in place, before the store opens: this station's paired browsers
    /// go into the restored store, then the store and the folders of files are swapped for the backup's,
    /// each by a rename, the old ones then deleted; a start cut short goes on where it stopped. A restore
    /// not confirmed waits on; an unpacking a stop cut short is dropped. How it ended is kept
    /// (`restoreOutcome`); one that could not be put in place leaves the station as it was, and the station
    /// starts with it. Returns the outcome, nil when nothing was confirmed.
    @discardableResult
    public static func applyRestore(in directory: String, now: Date = Date()) -> RestoreOutcome? {
        let root = restoreFolder(directory)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasPrefix("incoming-")
        {
            try? FileManager.default.removeItem(atPath: root + "/" + name)
        }
        let staging = stagedFolder(directory)
        guard FileManager.default.fileExists(atPath: staging + "/confirmed") else { return nil }
        guard let staged = staged(in: directory) else {
            try? FileManager.default.removeItem(atPath: staging)
            return nil
        }
        var outcome = RestoreOutcome(restore: staged, at: now)
        do throws(BackupProblem) {
            try swapIn(staging, directory)
        } catch {
            // Tried again at the next start (a start cut short goes on where it stopped the same way).
            outcome.problem = error.description
        }
        keep(outcome, in: directory)
        return outcome
    }

    private static func swapIn(_ staging: String, _ directory: String) throws(BackupProblem) {
        let replaced = directory + "/replaced"
        do {
            try keepSessions(of: directory + "/" + storeName, in: staging + "/" + storeName)
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
        } catch let problem as BackupProblem {
            throw problem
        } catch {
            throw .failed("put the restored backup in place: \(error)")
        }
    }

    /// Copies the paired browsers' sessions of the store at `current` (this station's, as they are at the
    /// restart) into the restored store at `restored`, which the rebuild made without any. Done again after
    /// a start cut short: the sessions are replaced, not added twice.
    private static func keepSessions(of current: String, in restored: String) throws {
        guard FileManager.default.fileExists(atPath: restored) else { return }
        let target = try DatabaseQueue(path: restored)
        defer { try? target.close() }
        var sessions: [Row] = []
        if FileManager.default.fileExists(atPath: current) {
            let source = try DatabaseQueue(path: current)
            defer { try? source.close() }
            sessions = try source.read { db in try Row.fetchAll(db, sql: "SELECT * FROM web_sessions") }
        }
        try target.write { db in
            let known = Set(try db.columns(in: "web_sessions").map(\.name))
            try db.execute(sql: "DELETE FROM web_sessions")
            for row in sessions {
                let columns = row.columnNames.filter(known.contains)
                let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
                try db.execute(
                    sql: "INSERT INTO web_sessions (\(names)) VALUES (\(marks))",
                    arguments: StatementArguments(columns.map { row[$0] as DatabaseValue }))
            }
        }
    }

    /// Puts the folder `new` at `path`, where another may be: the old one goes after.
    private static func replace(_ path: String, with new: String) throws(BackupProblem) {
        let old = path + ".old-\(UInt32.random(in: 0...UInt32.max))"
        if FileManager.default.fileExists(atPath: path) { try moving(path, to: old) }
        try moving(new, to: path)
        try? FileManager.default.removeItem(atPath: old)
    }

    private static func moving(_ from: String, to: String) throws(BackupProblem) {
        try? FileManager.default.removeItem(atPath: to)
        guard rename(from, to) == 0 else {
            throw BackupProblem.failed("move \(from): \(String(cString: strerror(errno)))")
        }
    }
}
