import Foundation
internal import GRDB
import SnapCore

extension StationStore {
    /// Pending jobs whose next attempt is due at `now`, oldest first.
    public func dueJobs(now: Date, limit: Int = 8) throws(StoreError) -> [UploadJob] {
        try jobs(where: "state = 'pending' AND next_attempt <= ?", [now.timeIntervalSince1970], limit: limit)
    }

    /// Every job that is still pending, due or not.
    public func pendingJobs() throws(StoreError) -> [UploadJob] {
        try jobs(where: "state = 'pending'", [], limit: 1000)
    }

    /// The earliest next attempt among pending jobs.
    public func nextAttempt() throws(StoreError) -> Date? {
        do {
            return try database.read { db in
                try Double.fetchOne(db, sql: "SELECT MIN(next_attempt) FROM upload_jobs WHERE state = 'pending'")
                    .map(Date.init(timeIntervalSince1970:))
            }
        } catch {
            throw StoreError("read the upload queue", error)
        }
    }

    /// The sticker file of a photo, if it has one.
    public func stickerPath(for photo: PhotoID) throws(StoreError) -> String? {
        do {
            return try database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE id = ?", arguments: [photo.rawValue])
                    .flatMap { files(of: photo, $0).sticker }
            }
        } catch {
            throw StoreError("read the photo \(photo)", error)
        }
    }

    public func markDelivered(_ job: UploadJob) throws(StoreError) {
        try update(job, "state = 'delivered', attempts = attempts + 1, last_error = NULL", [])
    }

    /// Records a failed attempt and when to try again.
    public func markRetry(_ job: UploadJob, error: String, nextAttempt: Date) throws(StoreError) {
        try update(
            job, "attempts = attempts + 1, last_error = ?, next_attempt = ?",
            [error, nextAttempt.timeIntervalSince1970])
    }

    /// Records a failure that retrying will not heal.
    public func markFailed(_ job: UploadJob, error: String) throws(StoreError) {
        try update(job, "state = 'failed', attempts = attempts + 1, last_error = ?", [error])
    }

    public func job(for photo: PhotoID) throws(StoreError) -> UploadJob? {
        try jobs(where: "photo_id = ?", [photo.rawValue], limit: 1).first
    }

    func jobs(where condition: String, _ values: [any DatabaseValueConvertible & Sendable], limit: Int)
        throws(StoreError) -> [UploadJob]
    {
        do {
            return try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM upload_jobs WHERE \(condition) ORDER BY next_attempt, id LIMIT \(limit)",
                    arguments: StatementArguments(values)
                ).map { row in
                    let id = PhotoID(row["photo_id"] as String)
                    return UploadJob(
                        id: row["id"], photoID: id, group: row["group_name"],
                        day: LocalDay(row["day"] as String) ?? LocalDay(year: 1970, month: 1, day: 1),
                        photoPath: files(of: id, row, sticker: nil).photo,
                        takenAt: Date(timeIntervalSince1970: row["taken_at"]),
                        state: UploadJob.State(rawValue: row["state"]) ?? .failed, attempts: row["attempts"],
                        nextAttempt: Date(timeIntervalSince1970: row["next_attempt"]), lastError: row["last_error"])
                }
            }
        } catch {
            throw StoreError("read the upload queue", error)
        }
    }

    private func update(_ job: UploadJob, _ assignments: String, _ values: [any DatabaseValueConvertible & Sendable])
        throws(StoreError)
    {
        do {
            try database.write { db in
                try db.execute(
                    sql: "UPDATE upload_jobs SET \(assignments) WHERE id = ?",
                    arguments: StatementArguments(values + [job.id]))
            }
        } catch {
            throw StoreError("update upload job \(job.photoID)", error)
        }
    }
}
