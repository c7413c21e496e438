import Foundation
internal import GRDB
import SnapCore

/// A stored meal with what the owner's page needs to edit it safely.
public struct StoredMeal: Sendable, Hashable {
    public var meal: Meal
    /// Bumped by every edit: an edit made against an older version is refused, so two phones editing
    /// at once cannot overwrite each other unseen.
    public var version: Int
    /// The owner typed the totals; otherwise they are the sum of the items.
    public var totalsSetByOwner: Bool
    /// The sticker file, when the meal has one.
    public var stickerPath: String?
}

/// Why an edit of a meal was not made.
public enum MealEditFailure: Error, Sendable, Hashable {
    /// There is no such meal (deleted, perhaps from another tab).
    case missing
    /// Someone changed it since the form was loaded.
    case changed
}

extension StationStore {
    /// The meal `id`, with its version, or nil.
    public func storedMeal(_ id: PhotoID) throws(StoreError) -> StoredMeal? {
        do {
            return try database.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM meals WHERE id = ?", arguments: [id.rawValue])
                else { return nil }
                let sticker = try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE id = ?", arguments: [id.rawValue])
                    .flatMap { files(of: id, $0).sticker }
                return StoredMeal(
                    meal: try meal(row), version: row["version"], totalsSetByOwner: row["totals_set_by_owner"],
                    stickerPath: sticker)
            }
        } catch {
            throw StoreError("read meal \(id)", error)
        }
    }

    /// Replaces the meal's analysis if it is still at `version`; returns the new version.
    public func editMeal(_ id: PhotoID, _ analysis: MealAnalysis, totalsSetByOwner: Bool, version: Int)
        throws(StoreError) -> Result<Int, MealEditFailure>
    {
        do {
            return try database.write { db in
                if let failure = try Self.edit(id, at: version, db) { return .failure(failure) }
                let items = String(decoding: try JSONEncoder().encode(analysis.items), as: UTF8.self)
                try db.execute(
                    sql: """
                        UPDATE meals SET title = ?, calories = ?, protein = ?, carbs = ?, fats = ?, items_json = ?,
                        totals_set_by_owner = ?, version = version + 1 WHERE id = ?
                        """,
                    arguments: [
                        analysis.title, analysis.totals.calories, analysis.totals.protein, analysis.totals.carbs,
                        analysis.totals.fats, items, totalsSetByOwner, id.rawValue,
                    ])
                return .success(version + 1)
            }
        } catch {
            throw StoreError("edit meal \(id)", error)
        }
    }

    /// Replaces a meal's estimate with the AI's answer to the owner's correction, if nobody changed the meal
    /// since `version`: the estimate it replaces goes to the meal's history with the sentence, the totals
    /// are the answer's again, and the answer counts as one of `day`'s AI uses, all in one transaction.
    public func correctMeal(
        _ id: PhotoID, from first: MealAnalysis, to corrected: MealAnalysis, sentence: String, version: Int,
        usedOn day: LocalDay, at now: Date
    ) throws(StoreError) -> Result<Int, MealEditFailure> {
        do {
            return try database.write { db in
                if let failure = try Self.edit(id, at: version, db) { return .failure(failure) }
                try db.execute(
                    sql:
                        "INSERT INTO meal_estimates (meal_id, replaced_at, sentence, analysis_json) VALUES (?, ?, ?, ?)",
                    arguments: [
                        id.rawValue, now.timeIntervalSince1970, sentence,
                        String(decoding: try JSONEncoder().encode(first), as: UTF8.self),
                    ])
                let items = String(decoding: try JSONEncoder().encode(corrected.items), as: UTF8.self)
                try db.execute(
                    sql: """
                        UPDATE meals SET title = ?, calories = ?, protein = ?, carbs = ?, fats = ?, items_json = ?,
                        fun_fact = ?, totals_set_by_owner = 0, version = version + 1 WHERE id = ?
                        """,
                    arguments: [
                        corrected.title, corrected.totals.calories, corrected.totals.protein, corrected.totals.carbs,
                        corrected.totals.fats, items, corrected.funFact, id.rawValue,
                    ])
                let person = try Int.fetchOne(
                    db, sql: "SELECT person FROM meals WHERE id = ?", arguments: [id.rawValue])
                try countUse(day, db, person: PersonID(rawValue: person ?? 1))
                return .success(version + 1)
            }
        } catch {
            throw StoreError("correct meal \(id)", error)
        }
    }

    /// The estimates corrections replaced, oldest first: when, what the owner said, and the estimate.
    public func replacedEstimates(_ id: PhotoID) throws(StoreError) -> [(
        replacedAt: Date, sentence: String, analysis: MealAnalysis
    )] {
        do {
            return try database.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT replaced_at, sentence, analysis_json FROM meal_estimates WHERE meal_id = ?
                        ORDER BY replaced_at, rowid
                        """, arguments: [id.rawValue]
                ).map { row in
                    (
                        Date(timeIntervalSince1970: row["replaced_at"]), row["sentence"],
                        try JSONDecoder().decode(MealAnalysis.self, from: Data((row["analysis_json"] as String).utf8))
                    )
                }
            }
        } catch {
            throw StoreError("read the meal's replaced estimates", error)
        }
    }

    /// Deletes a photo no meal, analysis or upload has (a phone's photo the page refused after it was kept):
    /// its files, then its row. True if it went.
    @discardableResult
    public func discardPhoto(_ id: PhotoID) throws(StoreError) -> Bool {
        do {
            let found = try database.read { db -> (photo: String, thumbnail: String, sticker: String?)? in
                let used = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM meals WHERE id = ?1) OR EXISTS (SELECT 1 FROM upload_jobs WHERE photo_id = ?1)
                            OR EXISTS (SELECT 1 FROM analysis_jobs WHERE photo_id = ?1)
                        """, arguments: [id.rawValue])
                guard used != true else { return nil }
                return try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE id = ?", arguments: [id.rawValue])
                    .map { files(of: id, $0) }
            }
            guard let found else { return false }
            try remove(id, found)
            return true
        } catch {
            throw StoreError("discard photo \(id)", error)
        }
    }

    /// Deletes the meal, then its photo's files and row (files first, as everywhere). True if it was there.
    @discardableResult
    public func deleteMeal(_ id: PhotoID) throws(StoreError) -> Bool {
        do {
            let (photo, sticker) = try database.read { db in
                (
                    try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE id = ?", arguments: [id.rawValue])
                        .map { files(of: id, $0) },
                    try Row.fetchOne(db, sql: "SELECT * FROM meals WHERE id = ?", arguments: [id.rawValue])
                        .flatMap { files(of: id, $0).sticker }
                )
            }
            let deleted = try database.write { db -> Bool in
                try db.execute(sql: "DELETE FROM meal_estimates WHERE meal_id = ?", arguments: [id.rawValue])
                try db.execute(sql: "DELETE FROM meals WHERE id = ?", arguments: [id.rawValue])
                return db.changesCount > 0
            }
            guard deleted else { return false }
            // The meal's sticker is the owner's: it goes with the meal.
            if let sticker { unlink(sticker) }
            // The group may still need the photo (a meal is never shared, but be safe): only unshared ones go.
            let shared = try database.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM upload_jobs WHERE photo_id = ?)", arguments: [id.rawValue])
            }
            if let photo, shared != true { try remove(id, photo) }
            return true
        } catch {
            throw StoreError("delete meal \(id)", error)
        }
    }

    /// Deletes the files of the photo `id`, then its row.
    private func remove(_ id: PhotoID, _ files: (photo: String, thumbnail: String, sticker: String?)) throws {
        let paths: [String] = [files.photo, files.thumbnail, files.sticker ?? ""]
        for path in paths where !path.isEmpty { unlink(path) }
        try database.write { db in
            try db.execute(sql: "DELETE FROM photos WHERE id = ?", arguments: [id.rawValue])
        }
    }

    /// The days that have meals, newest first, at most `limit`, each with its meal count and kcal.
    public func mealDays(limit: Int = 60) throws(StoreError) -> [(day: LocalDay, meals: Int, calories: Int)] {
        do {
            return try readOne { db in try Self.mealDays(db, limit: limit) }
        } catch {
            throw StoreError("read the days with meals", error)
        }
    }

    /// Each day from `from` to `to` (both included) that has meals: how many, and their totals.
    public func dayTotals(from: LocalDay, to: LocalDay) throws(StoreError) -> [LocalDay: (meals: Int, totals: Macros)] {
        do {
            return try readOne { db in try Self.dayTotals(db, from: from, to: to) }
        } catch {
            throw StoreError("read the days' totals", error)
        }
    }

    /// What History shows, from one read: the station's day at `time` (`stationDay(in:)`), the latest
    /// `limit` days with meals (`mealDays`), and the totals of the `span` days up to the station's day
    /// (`dayTotals`). One snapshot, one reader and one lock of the file, where three reads took three of
    /// each (a fifth of the page's time).
    public func mealHistory(limit: Int, span: Int, in timeZone: TimeZone, at time: Date) throws(StoreError) -> (
        today: LocalDay, days: [(day: LocalDay, meals: Int, calories: Int)], totals: [LocalDay: Macros]
    ) {
        do {
            return try database.read { db in
                let today = StationDay(timeZone: timeZone, recorded: try Self.latestRecordedDay(db)).today(at: time)
                let days = try Self.mealDays(db, limit: limit)
                let totals = try Self.dayTotals(db, from: today.adding(days: 1 - span), to: today).mapValues(\.totals)
                return (today, days, totals)
            }
        } catch {
            throw StoreError("read the meal log's history", error)
        }
    }

    private static func mealDays(_ db: Database, limit: Int) throws -> [(day: LocalDay, meals: Int, calories: Int)] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT day, meals, calories FROM day_totals ORDER BY day DESC LIMIT ?"),
            arguments: [limit])
        var days: [(day: LocalDay, meals: Int, calories: Int)] = []
        while let row = try rows.next() {
            if let day = LocalDay(row[0] as String) { days.append((day, row[1], row[2])) }
        }
        return days
    }

    private static func dayTotals(_ db: Database, from: LocalDay, to: LocalDay) throws -> [LocalDay: (
        meals: Int, totals: Macros
    )] {
        var days: [LocalDay: (meals: Int, totals: Macros)] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT day, meals, calories, protein, carbs, fats FROM day_totals WHERE day BETWEEN ? AND ?"),
            arguments: [from.description, to.description])
        while let row = try rows.next() {
            guard let day = LocalDay(row[0] as String) else { continue }
            days[day] = (row[1], Macros(calories: row[2], protein: row[3], carbs: row[4], fats: row[5]))
        }
        return days
    }
}

extension StationStore {
    /// Why `id` cannot be edited from `version`: gone, or changed since; nil when it can.
    fileprivate static func edit(_ id: PhotoID, at version: Int, _ db: Database) throws -> MealEditFailure? {
        guard
            let current = try Int.fetchOne(db, sql: "SELECT version FROM meals WHERE id = ?", arguments: [id.rawValue])
        else { return .missing }
        return current == version ? nil : .changed
    }
}

/// A meal as a list shows it: no items (their JSON is not decoded).
public struct MealSummary: Sendable, Hashable {
    public var id: PhotoID
    public var title: String
    public var takenAt: Date
    public var totals: Macros
    /// The photo is still kept (retention has not deleted it, with its row in `photos`).
    public var hasPhoto: Bool
    /// Whose meal it is.
    public var person: PersonID = .first
}

extension StationStore {
    /// The day's meals in the order they were taken, as a list shows them, each saying whether its photo
    /// is still kept: the store knows which photos retention deleted (it deletes their rows with their
    /// files), so a page of 500 meals asks the file system nothing.
    public func mealSummaries(on day: LocalDay) throws(StoreError) -> [MealSummary] {
        do {
            // A cached statement and columns by position: a day of 500 meals looked each column up by name,
            // 4,000 lookups a page.
            return try readOne { db in
                let rows = try Row.fetchCursor(
                    db.cachedStatement(
                        sql: """
                            SELECT meals.id, title, meals.taken_at, calories, protein, carbs, fats,
                            photos.id IS NOT NULL, person FROM meals LEFT JOIN photos ON photos.id = meals.id
                            WHERE day = ? ORDER BY meals.taken_at
                            """),
                    arguments: [day.description])
                var meals: [MealSummary] = []
                while let row = try rows.next() {
                    meals.append(
                        MealSummary(
                            id: PhotoID(row[0]), title: row[1], takenAt: Date(timeIntervalSince1970: row[2]),
                            totals: Macros(calories: row[3], protein: row[4], carbs: row[5], fats: row[6]),
                            hasPhoto: row[7], person: PersonID(rawValue: row[8])))
                }
                return meals
            }
        } catch {
            throw StoreError("read the meals of \(day)", error)
        }
    }
}
