import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// What a state folder holds, as a check after a crash sees it: the power-cut suite and
/// `snapstation store-check` read it.
public struct StoreAudit: Sendable {
    /// `PRAGMA integrity_check`: "ok" when the database is sound.
    public var integrity: String
    /// Every image file a photo row names (photo, thumbnail, sticker).
    public var namedFiles: [String]
    /// Named files that are not there.
    public var missingFiles: [String]
    /// Temporary files a crash left (none may survive a start).
    public var temporaryFiles: [String]
    /// Upload jobs and analysis jobs by state.
    public var uploads: [String: Int]
    public var analyses: [String: Int]
    /// Requests the AI service answered, as counted, and the jobs that hold an answer.
    public var aiUses: Int
    public var answeredJobs: Int
    /// The photo ids delivered to each group, and the days each group has claimed.
    public var delivered: [PhotoID]
    public var claimedDays: [String: Set<LocalDay>]
}

extension StationStore {
    public func audit() throws(StoreError) -> StoreAudit {
        do {
            return try database.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
                let named = try namedFiles(db).sorted()
                var uploads: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM upload_jobs GROUP BY state") {
                    uploads[row["state"]] = row["n"]
                }
                var analyses: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM analysis_jobs GROUP BY state") {
                    analyses[row["state"]] = row["n"]
                }
                var claimed: [String: Set<LocalDay>] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT group_name, day FROM group_sends") {
                    if let day = LocalDay(row["day"] as String) { claimed[row["group_name"], default: []].insert(day) }
                }
                return StoreAudit(
                    integrity: integrity, namedFiles: named,
                    missingFiles: named.filter { !FileManager.default.fileExists(atPath: $0) },
                    temporaryFiles: temporaryFiles(),
                    uploads: uploads, analyses: analyses,
                    aiUses: try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM ai_uses") ?? 0,
                    answeredJobs: try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM analysis_jobs WHERE answer_json IS NOT NULL") ?? 0,
                    delivered: try String.fetchAll(
                        db, sql: "SELECT photo_id FROM upload_jobs WHERE state = 'delivered'"
                    ).map(PhotoID.init),
                    claimedDays: claimed)
            }
        } catch {
            throw StoreError("audit the store", error)
        }
    }

    /// Temporary files anywhere under the state folder.
    private func temporaryFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            let name = URL(fileURLWithPath: relative).lastPathComponent
            if name.hasPrefix(AtomicFile.temporaryPrefix) || name.hasSuffix(".partial") {
                found.append(directory + "/" + relative)
            }
        }
        return found
    }
}
