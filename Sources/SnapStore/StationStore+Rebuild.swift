import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// What a restore took from a backup's store.
public struct RestoreReport: Sendable, Hashable, Codable {
    /// The rows copied, by table.
    public var copied: [String: Int] = [:]
    /// The rows not copied, by table: a value outside what the station writes there (`BackupRow`).
    public var refused: [String: Int] = [:]

    public init() {}

    /// How many rows were not copied, in all.
    public var refusedRows: Int { refused.values.reduce(0, +) }

    /// "meals 12, photos 14, …", for the log.
    public var summary: String {
        let copied = self.copied.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        guard !refused.isEmpty else { return copied }
        let refused = self.refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return copied + "; not taken: " + refused
    }
}

/// How a restore treats the owner's settings a backup holds: what it keeps in force, and what waits for the
/// owner to confirm it on the page (an address that a key or a password goes to). The page's own checks
/// (`StationConfig.restorable`), which the store does not know.
public typealias RestoredSettings = @Sendable (RuntimeSettings) -> (kept: RuntimeSettings, waiting: RuntimeSettings)

/// A backup's store is input, not trust: a restore never keeps the file, its schema, its triggers, its
/// views or its migration marks. It makes a new store with this binary's migrator and copies the tables
/// it knows into it row by row (`BackupRow`: every value checked as the station's own writers would have
/// it), every file path made again from the row's id (`StationStore+Files.swift`), the day totals counted
/// again by the new store's own triggers as the meals go in, and the paired browsers' sessions left out
/// (the station's own go in as the restore is put in place, `applyRestore`).
extension StationStore {
    /// Copies the backup's store at `source` (made in the state folder `old`) into a new store at `target`,
    /// for a state folder `directory`; the file at `source` is only read.
    static func rebuild(
        from source: String, into target: String, madeIn old: String, for directory: String,
        settings: RestoredSettings
    ) throws(BackupProblem) -> RestoreReport {
        let backup: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                // Nothing of the file runs: no write (so no trigger), no function a view or a trigger names.
                try db.execute(sql: "PRAGMA query_only = ON; PRAGMA trusted_schema = OFF; PRAGMA cell_size_check = ON")
            }
            backup = try DatabaseQueue(path: source, configuration: configuration)
        } catch {
            throw .failed("open the backup's store: \(error)")
        }
        defer { try? backup.close() }
        do {
            let check = try backup.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else { throw BackupProblem.damaged(storeName) }
        } catch let problem as BackupProblem {
            throw problem
        } catch {
            throw .damaged(storeName)
        }
        try? FileManager.default.removeItem(atPath: target)
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA recursive_triggers = ON")
            }
            let fresh = try DatabaseQueue(path: target, configuration: configuration)
            defer { try? fresh.close() }
            try migrator.migrate(fresh)
            var copy = RowCopy(report: RestoreReport(), old: old, new: directory)
            try backup.read { from in
                try fresh.write { to in try copy.all(from, to, settings: settings) }
            }
            return copy.report
        } catch let problem as BackupProblem {
            throw problem
        } catch {
            throw .failed("rebuild the restored store: \(error)")
        }
    }
}

extension StationStore {
    /// A backup's store holding `rows` (each a table of this binary's schema and its values in the order of
    /// its columns; a value that reads as a whole number is one, as a number a real, nil NULL, any other
    /// text; a row the table's constraints refuse is left out) restored as a restore restores it
    /// (`rebuild`) into the state folder `directory`, and opened as the station opens it: what a restored
    /// station reads. For the fuzzer (`snapfuzz restore`), which holds it to the restore's rules.
    public static func restored(rows: [(table: String, values: [String?])], madeIn old: String, in directory: String)
        throws -> (store: StationStore, report: RestoreReport)
    {
        try AtomicFile.createFolder(directory)
        let source = directory + "/backup-rows.sqlite"
        try? FileManager.default.removeItem(atPath: source)
        do {
            let backup = try DatabaseQueue(path: source)
            try migrator.migrate(backup)
            try backup.write { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                for (table, values) in rows where tables.contains(table) {
                    let count = try db.columns(in: table).count
                    let given = values.prefix(count).map { value -> DatabaseValue in
                        guard let value else { return .null }
                        if let number = Int64(value) { return number.databaseValue }
                        if let number = Double(value), number.isFinite { return number.databaseValue }
                        return value.databaseValue
                    }
                    let padded = given + Array(repeating: DatabaseValue.null, count: count - given.count)
                    let marks = Array(repeating: "?", count: count).joined(separator: ", ")
                    try? db.execute(
                        sql: "INSERT OR IGNORE INTO \"\(table)\" VALUES (\(marks))",
                        arguments: StatementArguments(padded))
                }
            }
            try backup.close()
        }
        let report = try rebuild(
            from: source, into: directory + "/" + storeName, madeIn: old, for: directory,
            settings: { ($0.clearing([.aiService, .mqtt, .notices]), $0) })
        try? FileManager.default.removeItem(atPath: source)
        return (try StationStore(directory: directory), report)
    }
}
