import Foundation
internal import GRDB
import SnapCore

/// A photo waiting for the AI service because the network was down when it was taken.
public struct AnalysisJob: Sendable, Hashable {
    public var photo: ProcessedPhoto
    /// The local day the meal counts for: the day it was eaten, not the day the network came back.
    public var day: LocalDay
    public var attempts: Int
}

extension StationStore {
    /// Keeps `photo` for analysis later; a photo is queued at most once.
    public func queueAnalysis(_ photo: ProcessedPhoto, day: LocalDay, now: Date) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO analysis_jobs
                        (photo_id, photo_path, thumbnail_path, taken_at, day, state, attempts, next_attempt)
                        VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)
                        """,
                    arguments: [
                        photo.id.rawValue, photo.photoPath, photo.thumbnailPath, photo.takenAt.timeIntervalSince1970,
                        day.description, now.timeIntervalSince1970,
                    ])
            }
        } catch {
            throw StoreError("queue \(photo.id) for analysis", error)
        }
    }

    /// Pending analyses due at `now`, oldest first, and when the next one after them is due.
    public func dueAnalyses(now: Date) throws(StoreError) -> (due: [AnalysisJob], next: Date?) {
        do {
            return try database.read { db in
                let due = try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM analysis_jobs WHERE state = 'pending' AND next_attempt <= ? ORDER BY taken_at",
                    arguments: [now.timeIntervalSince1970]
                ).map { row in
                    AnalysisJob(
                        photo: ProcessedPhoto(
                            id: PhotoID(row["photo_id"]), photoPath: row["photo_path"],
                            thumbnailPath: row["thumbnail_path"],
                            takenAt: Date(timeIntervalSince1970: row["taken_at"])),
                        day: LocalDay(row["day"] as String) ?? LocalDay(year: 1970, month: 1, day: 1),
                        attempts: row["attempts"])
                }
                let next = try Double.fetchOne(
                    db, sql: "SELECT MIN(next_attempt) FROM analysis_jobs WHERE state = 'pending' AND next_attempt > ?",
                    arguments: [now.timeIntervalSince1970])
                return (due, next.map(Date.init(timeIntervalSince1970:)))
            }
        } catch {
            throw StoreError("read the analysis queue", error)
        }
    }

    /// The meal, its counted AI use and the finished job, in one transaction: a crash cannot log the meal
    /// twice or count the use without the meal.
    public func completeAnalysis(_ job: AnalysisJob, meal: Meal) throws(StoreError) {
        do {
            try database.write { db in
                try insertMeal(meal, db)
                try db.execute(
                    sql:
                        "INSERT INTO ai_uses (day, count) VALUES (?, 1) ON CONFLICT(day) DO UPDATE SET count = count + 1",
                    arguments: [meal.day.description])
                try db.execute(
                    sql: "UPDATE analysis_jobs SET state = 'done', attempts = attempts + 1 WHERE photo_id = ?",
                    arguments: [job.photo.id.rawValue])
            }
        } catch {
            throw StoreError("log the analysed meal \(meal.photo.id)", error)
        }
    }

    /// Records a failed attempt: retried at `nextAttempt`, or given up when `nextAttempt` is nil.
    public func failAnalysis(_ job: AnalysisJob, error: String, nextAttempt: Date?) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        UPDATE analysis_jobs SET attempts = attempts + 1, last_error = ?,
                        state = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END, next_attempt = COALESCE(?, next_attempt)
                        WHERE photo_id = ?
                        """,
                    arguments: [
                        error, nextAttempt?.timeIntervalSince1970, nextAttempt?.timeIntervalSince1970,
                        job.photo.id.rawValue,
                    ])
            }
        } catch {
            throw StoreError("update the analysis of \(job.photo.id)", error)
        }
    }
}
