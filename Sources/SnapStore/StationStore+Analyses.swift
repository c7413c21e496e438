import Foundation
internal import GRDB
import SnapCore

/// A photo waiting for the AI service: the network was down, or the station stopped mid-request.
public struct AnalysisJob: Sendable, Hashable {
    public var photo: ProcessedPhoto
    /// The local day the meal counts for: the day it was eaten, not the day the network came back.
    public var day: LocalDay
    public var attempts: Int
    /// Whose meal it is (`beginAnalysis(person:)`).
    public var person: PersonID
}

/// Every analysis is a durable job from the moment it is asked for:
///
///     active ──answer──► answered ──save──► done
///        │                   └────discard──► discarded
///        ├──offline──► pending ──(the queue)──► answered …
///        └──failure──► failed (the person may retry: active again)
///
/// `active` is a request in flight; one a crash cut off becomes `pending` at the next start, so the queue
/// asks again. An answer and the day's count of answered requests are written in one transaction, so a
/// request is counted exactly once whatever happens after it.
extension StationStore {
    /// Records the job before its request goes out (again `active` when retried), asked for `person`.
    public func beginAnalysis(_ photo: ProcessedPhoto, day: LocalDay, now: Date, person: PersonID = .first)
        throws(StoreError)
    {
        try upsertJob(photo, day: day, state: "active", now: now, person: person, "begin the analysis of \(photo.id)")
    }

    /// Keeps the job for the queue, to be asked again when the network returns.
    public func queueAnalysis(_ photo: ProcessedPhoto, day: LocalDay, now: Date, person: PersonID = .first)
        throws(StoreError)
    {
        try upsertJob(photo, day: day, state: "pending", now: now, person: person, "queue \(photo.id) for analysis")
    }

    private func upsertJob(
        _ photo: ProcessedPhoto, day: LocalDay, state: String, now: Date, person: PersonID, _ what: String
    ) throws(StoreError) {
        let files = filesDay(of: photo)
        let made = files.map { paths(for: photo.id, day: $0) }
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO analysis_jobs
                        (photo_id, photo_path, thumbnail_path, taken_at, day, state, attempts, next_attempt, person,
                         files_day)
                        VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
                        ON CONFLICT(photo_id) DO UPDATE SET state = excluded.state, next_attempt = excluded.next_attempt,
                        person = excluded.person
                        """,
                    arguments: [
                        photo.id.rawValue, made.map { photo.photoPath.isEmpty ? "" : $0.photo } ?? "",
                        made.map { photo.thumbnailPath.isEmpty ? "" : $0.thumbnail } ?? "",
                        photo.takenAt.timeIntervalSince1970, day.description, state, now.timeIntervalSince1970,
                        person.rawValue, files?.description,
                    ])
            }
        } catch {
            throw StoreError(what, error)
        }
    }

    /// Jobs whose request a crash cut off go back to the queue. The station calls this once as it starts,
    /// before it asks anything of the AI service; returns how many there were.
    @discardableResult
    public func requeueInterruptedAnalyses() throws(StoreError) -> Int {
        do {
            return try database.write { db in
                try db.execute(sql: "UPDATE analysis_jobs SET state = 'pending' WHERE state = 'active'")
                return db.changesCount
            }
        } catch {
            throw StoreError("requeue the analyses a stop cut off", error)
        }
    }

    /// The answer for `photo`, and one more answered request on `usedOn`, in one transaction.
    public func recordAnswer(_ photo: PhotoID, _ analysis: MealAnalysis, usedOn: LocalDay) throws(StoreError) {
        do {
            let answer = String(decoding: try JSONEncoder().encode(analysis), as: UTF8.self)
            try database.write { db in
                try db.execute(
                    sql: """
                        UPDATE analysis_jobs SET state = 'answered', answer_json = ?, attempts = attempts + 1,
                        last_error = NULL WHERE photo_id = ?
                        """,
                    arguments: [answer, photo.rawValue])
                try countUse(usedOn, db, person: try jobPerson(photo, db))
            }
        } catch {
            throw StoreError("record the analysis of \(photo)", error)
        }
    }

    /// Records a failed attempt: retried at `nextAttempt`, or failed for good when it is nil. An attempt
    /// the service answered (a refusal, nothing readable) is counted on `answeredOn`.
    public func failAnalysis(_ photo: PhotoID, error: String, nextAttempt: Date?, answeredOn: LocalDay? = nil)
        throws(StoreError)
    {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        UPDATE analysis_jobs SET attempts = attempts + 1, last_error = ?,
                        state = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END, next_attempt = COALESCE(?, next_attempt)
                        WHERE photo_id = ?
                        """,
                    arguments: [
                        error, nextAttempt?.timeIntervalSince1970, nextAttempt?.timeIntervalSince1970, photo.rawValue,
                    ])
                if let answeredOn { try countUse(answeredOn, db, person: try jobPerson(photo, db)) }
            }
        } catch {
            throw StoreError("update the analysis of \(photo)", error)
        }
    }

    /// Analyses that failed for good since `since`, newest first, with the reason each failed.
    public func failedAnalyses(since: Date) throws(StoreError) -> [(job: AnalysisJob, reason: String)] {
        do {
            return try database.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM analysis_jobs WHERE state = 'failed' AND taken_at >= ? ORDER BY taken_at DESC",
                    arguments: [since.timeIntervalSince1970]
                ).map { row in
                    (job(row), row["last_error"] ?? "")
                }
            }
        } catch {
            throw StoreError("read the failed analyses", error)
        }
    }

    /// Puts a job that failed for good back in the queue, due at `now` (the owner asked again); false
    /// when no failed job has that photo.
    public func retryAnalysis(_ photo: PhotoID, now: Date) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(
                    sql:
                        "UPDATE analysis_jobs SET state = 'pending', next_attempt = ? WHERE photo_id = ? AND state = 'failed'",
                    arguments: [now.timeIntervalSince1970, photo.rawValue])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError("ask again about \(photo)", error)
        }
    }

    /// Closes the job of a result the person discarded (the photo stays until its retention ends).
    public func discardAnalysis(_ photo: PhotoID) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: "UPDATE analysis_jobs SET state = 'discarded' WHERE photo_id = ?", arguments: [photo.rawValue])
            }
        } catch {
            throw StoreError("discard the analysis of \(photo)", error)
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
                ).map(job)
                let next = try Double.fetchOne(
                    db, sql: "SELECT MIN(next_attempt) FROM analysis_jobs WHERE state = 'pending' AND next_attempt > ?",
                    arguments: [now.timeIntervalSince1970])
                return (due, next.map(Date.init(timeIntervalSince1970:)))
            }
        } catch {
            throw StoreError("read the analysis queue", error)
        }
    }

    /// Analyses answered but neither saved nor discarded, oldest first.
    public func pendingReviews() throws(StoreError) -> [MealReview] {
        do {
            return try database.read { db in try reviews(db) }
        } catch {
            throw StoreError("read the answered analyses", error)
        }
    }

    func reviews(_ db: Database) throws -> [MealReview] {
        try Row.fetchAll(db, sql: "SELECT * FROM analysis_jobs WHERE state = 'answered' ORDER BY taken_at").compactMap {
            row in
            guard let json = row["answer_json"] as String?,
                let analysis = try? JSONDecoder().decode(MealAnalysis.self, from: Data(json.utf8))
            else { return nil }
            return MealReview(
                photo: jobPhoto(row), day: Self.day(row), analysis: analysis, person: Self.person(row))
        }
    }

    /// How many requests the AI service answered on `day` for each person who asked (a person who asked
    /// none is not there).
    public func personAIUses(on day: LocalDay) throws(StoreError) -> [PersonID: Int] {
        do {
            return try database.read { db in
                var uses: [PersonID: Int] = [:]
                for row in try Row.fetchAll(
                    db, sql: "SELECT person, count FROM person_ai_uses WHERE day = ?", arguments: [day.description])
                {
                    uses[Self.person(row)] = row["count"]
                }
                return uses
            }
        } catch {
            throw StoreError("read each person's AI uses", error)
        }
    }

    /// How many requests the AI service answered on `day`.
    public func aiUses(on day: LocalDay) throws(StoreError) -> Int {
        do {
            return try database.read { db in
                try Int.fetchOne(db, sql: "SELECT count FROM ai_uses WHERE day = ?", arguments: [day.description]) ?? 0
            }
        } catch {
            throw StoreError("read the AI uses", error)
        }
    }

    /// One more answered request on `day`, the station's and `person`'s.
    func countUse(_ day: LocalDay, _ db: Database, person: PersonID) throws {
        try db.execute(
            sql: "INSERT INTO ai_uses (day, count) VALUES (?, 1) ON CONFLICT(day) DO UPDATE SET count = count + 1",
            arguments: [day.description])
        try db.execute(
            sql: """
                INSERT INTO person_ai_uses (day, person, count) VALUES (?, ?, 1)
                ON CONFLICT(day, person) DO UPDATE SET count = count + 1
                """,
            arguments: [day.description, person.rawValue])
    }

    /// The person an analysis job was asked for (the owner for a job an older binary wrote).
    func jobPerson(_ photo: PhotoID, _ db: Database) throws -> PersonID {
        PersonID(
            rawValue: try Int.fetchOne(
                db, sql: "SELECT person FROM analysis_jobs WHERE photo_id = ?", arguments: [photo.rawValue]) ?? 1)
    }

    private func job(_ row: Row) -> AnalysisJob {
        AnalysisJob(
            photo: jobPhoto(row), day: Self.day(row), attempts: row["attempts"], person: Self.person(row))
    }

    /// The row's `person` column (a job's, a count's).
    private static func person(_ row: Row) -> PersonID { PersonID(rawValue: row["person"]) }

    private func jobPhoto(_ row: Row) -> ProcessedPhoto { photo(row, id: "photo_id", sticker: nil) }

    private static func day(_ row: Row) -> LocalDay {
        LocalDay(row["day"] as String) ?? LocalDay(year: 1970, month: 1, day: 1)
    }
}
