import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// The station's durable state: SQLite in WAL mode plus image files in the state folder.
///
/// `synchronous = FULL` makes every committed transaction survive a power cut; image files are written
/// with `AtomicFile` before the rows that name them, so a row never points at a half-written file.
public final class StationStore: Sendable {
    /// The state folder.
    public let directory: String
    let database: DatabasePool
    /// The thread every write of the running station goes through (see `writing`).
    let thread = SerialThread(name: "store")

    /// Opens (creating if needed) the store in `directory`, migrating it to the current schema. `sweep`:
    /// delete the temporary files a crash left, which only the station may do; a tool that opens the store
    /// beside the running station (`snapstation update install`'s backup) must not.
    public convenience init(directory: String, sweep: Bool = true) throws(StoreError) {
        try self.init(directory: directory, migrator: Self.migrator, sweep: sweep)
    }

    /// Opens the store with `migrator`'s schema: an older binary's, in the test of a rollback.
    init(directory: String, migrator: DatabaseMigrator, sweep: Bool = true) throws(StoreError) {
        self.directory = directory
        do {
            try AtomicFile.createFolder(directory + "/photos")
            if sweep {
                AtomicFile.removeLeftovers(in: directory + "/photos")
                // A backup's copy of the store, left by a backup cut short.
                AtomicFile.removeLeftovers(in: directory + "/backup")
            }
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // 512 KiB of page cache per connection instead of SQLite's 2 MiB: the station's queries touch
                // a few pages, and a cache that grows with the database is resident memory that only grows.
                try db.execute(sql: "PRAGMA cache_size = -512")
                // A meal saved again (INSERT OR REPLACE) deletes the row it replaces: the triggers that
                // keep `day_totals` hear of that deletion only with recursive triggers on.
                try db.execute(sql: "PRAGMA recursive_triggers = ON")
            }
            // The writer and two readers at most (the station, its queues and the page read at once).
            configuration.maximumReaderCount = 2
            configuration.busyMode = .timeout(5)
            database = try DatabasePool(path: directory + "/snapstation.sqlite", configuration: configuration)
            try migrator.migrate(database)
            try database.write { db in
                // An older migrator's schema (the rollback's test) has no day folders to fill.
                if try db.columns(in: "photos").contains(where: { $0.name == "files_day" }) {
                    try Self.fillFilesDays(db, in: directory)
                }
            }
        } catch {
            throw StoreError("open store in \(directory)", error)
        }
    }

    /// Runs `read`, which asks exactly one statement, on a reader without a transaction around it: SQLite
    /// reads each statement from one snapshot of its own, and the page asks such reads on every request
    /// (`page.py`, three runs each: Today 0.51–0.52 and History 0.55–0.56 of the plain page without the
    /// transaction, 0.52–0.55 and 0.55–0.60 with it). Reads of two or more statements that must agree stay
    /// in `database.read`, which is also the cheaper for them (one lock of the file for all).
    func readOne<Value>(_ read: (Database) throws -> Value) throws -> Value { try database.unsafeRead(read) }

    /// Writes a processed photo, its thumbnail and its sticker (when `photo.stickerPath` and `sticker` are
    /// both given) atomically, then records them. The photo's paths must be those `paths(for:day:)` makes.
    public func storePhoto(_ photo: ProcessedPhoto, jpeg: [UInt8], thumbnail: [UInt8], sticker: [UInt8]? = nil)
        throws(StoreError)
    {
        do {
            guard let day = filesDay(of: photo), !photo.photoPath.isEmpty, !photo.thumbnailPath.isEmpty else {
                throw StoreError.Misplaced()
            }
            let made = paths(for: photo.id, day: day)
            try AtomicFile.write(jpeg, to: made.photo)
            try AtomicFile.write(thumbnail, to: made.thumbnail)
            let kept = sticker != nil && photo.stickerPath != nil
            if let sticker, kept { try AtomicFile.write(sticker, to: made.sticker) }
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO photos (id, taken_at, photo_path, thumbnail_path, sticker_path, files_day)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        photo.id.rawValue, photo.takenAt.timeIntervalSince1970, made.photo, made.thumbnail,
                        kept ? made.sticker : nil, day.description,
                    ])
            }
        } catch {
            throw StoreError("store photo \(photo.id)", error)
        }
    }

    /// Stores the meal and closes its analysis job, in one transaction.
    public func saveMeal(_ meal: Meal) throws(StoreError) {
        do {
            try database.write { db in
                try insertMeal(meal, db)
                try db.execute(
                    sql: "UPDATE analysis_jobs SET state = 'done' WHERE photo_id = ?",
                    arguments: [meal.photo.id.rawValue])
            }
        } catch {
            throw StoreError("save meal \(meal.photo.id)", error)
        }
    }

    func insertMeal(_ meal: Meal, _ db: Database) throws {
        let items = String(decoding: try JSONEncoder().encode(meal.analysis.items), as: UTF8.self)
        // The files where they are `paths(for:day:)`'s; a meal whose photo names none keeps the photo row's
        // (a meal saved from its photo).
        let day = filesDay(of: meal.photo)
        let made = day.map { paths(for: meal.photo.id, day: $0) }
        func kept(_ given: String?, _ path: String?) -> String? { given?.isEmpty == false ? path : given }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO meals
                (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path, thumbnail_path,
                 fun_fact, sticker_path, person, files_day)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                        COALESCE(?, (SELECT sticker_path FROM photos WHERE id = ?)), ?,
                        COALESCE(?, (SELECT files_day FROM photos WHERE id = ?)))
                """,
            arguments: [
                meal.photo.id.rawValue, meal.day.description, meal.photo.takenAt.timeIntervalSince1970,
                meal.analysis.title, meal.analysis.totals.calories, meal.analysis.totals.protein,
                meal.analysis.totals.carbs, meal.analysis.totals.fats, items,
                day == nil ? "" : kept(meal.photo.photoPath, made?.photo),
                day == nil ? "" : kept(meal.photo.thumbnailPath, made?.thumbnail), meal.analysis.funFact,
                day == nil ? nil : kept(meal.photo.stickerPath, made?.sticker), meal.photo.id.rawValue,
                meal.person.rawValue, day?.description, meal.photo.id.rawValue,
            ])
    }

    /// One more request answered by the AI service on `day`, asked for `person` (the page's requests; the
    /// station counts with the answer itself, `recordAnswer`).
    public func recordAIUse(on day: LocalDay, person: PersonID = .first) throws(StoreError) {
        do {
            try database.write { db in try countUse(day, db, person: person) }
        } catch {
            throw StoreError("record AI use", error)
        }
    }

    /// Claims `day` for `group` and queues the photo, in one transaction. Returns false, queuing nothing,
    /// when the day was already claimed: the station never sends two photos for one day.
    @discardableResult
    public func share(_ photo: ProcessedPhoto, group: String, day: LocalDay, now: Date) throws(StoreError) -> Bool {
        let files = filesDay(of: photo)
        do {
            return try database.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO group_sends (group_name, day, photo_id) VALUES (?, ?, ?)",
                    arguments: [group, day.description, photo.id.rawValue])
                guard db.changesCount == 1 else { return false }
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO upload_jobs
                        (photo_id, group_name, day, photo_path, taken_at, state, attempts, next_attempt, files_day)
                        VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)
                        """,
                    arguments: [
                        photo.id.rawValue, group, day.description,
                        files.map { paths(for: photo.id, day: $0).photo } ?? "", photo.takenAt.timeIntervalSince1970,
                        now.timeIntervalSince1970, files?.description,
                    ])
                return true
            }
        } catch {
            throw StoreError("queue \(photo.id) for \(group)", error)
        }
    }

    /// Gives a day back after the server refused its photo for good.
    public func releaseGroupDay(_ day: LocalDay, group: String) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: "DELETE FROM group_sends WHERE group_name = ? AND day = ?",
                    arguments: [group, day.description])
            }
        } catch {
            throw StoreError("release \(day) for \(group)", error)
        }
    }

    /// What the state machine needs at start: the days recorded for `groups`, `day`'s meals, and the
    /// photos received that have not expired at `now`.
    /// `mealDays` is how many days of meals (ending with `day`) the jar holds.
    public func snapshot(groups: [String], day: LocalDay, mealDays: Int = 1, now: Date = Date()) throws(StoreError)
        -> StationSnapshot
    {
        do {
            return try database.read { db in
                var snapshot = StationSnapshot()
                for row in try Row.fetchAll(db, sql: "SELECT day, count FROM ai_uses") {
                    if let day = LocalDay(row["day"] as String) { snapshot.aiUses[day] = row["count"] }
                }
                for row in try Row.fetchAll(db, sql: "SELECT day, person, count FROM person_ai_uses") {
                    guard let day = LocalDay(row["day"] as String) else { continue }
                    snapshot.personAIUses[day, default: [:]][PersonID(rawValue: row["person"])] = row["count"]
                }
                for row in try Row.fetchAll(db, sql: "SELECT group_name, day FROM group_sends") {
                    let group: String = row["group_name"]
                    guard groups.contains(group), let day = LocalDay(row["day"] as String) else { continue }
                    snapshot.groupSends[group, default: []].insert(day)
                }
                snapshot.meals = try meals(db, from: day.adding(days: -(max(1, mealDays) - 1)), through: day)
                snapshot.inbox = try received(db, now: now)
                snapshot.reviews = try reviews(db)
                snapshot.latestDay = try Self.latestRecordedDay(db)
                snapshot.household = try Self.household(db)
                snapshot.pairedBrowsers = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM web_sessions") ?? 0
                return snapshot
            }
        } catch {
            throw StoreError("read the station's state", error)
        }
    }

    /// The station's day in `timeZone` (`StationDay`), never before the latest day anything was recorded
    /// for (an answer of the AI, a photo sent, a meal): the page and the analysis queue count on it as the
    /// station does.
    public func stationDay(in timeZone: TimeZone) throws(StoreError) -> StationDay {
        do {
            let latest = try readOne { db in try Self.latestRecordedDay(db) }
            return StationDay(timeZone: timeZone, recorded: latest)
        } catch {
            throw StoreError("read the station's latest day", error)
        }
    }

    static func latestRecordedDay(_ db: Database) throws -> LocalDay? {
        // Every page asks for its day: a statement kept prepared.
        let latest = try String?.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT MAX(day) FROM ai_uses UNION ALL SELECT MAX(day) FROM group_sends
                    UNION ALL SELECT MAX(day) FROM meals
                    """))
        return latest.compactMap { $0.flatMap(LocalDay.init) }.max()
    }

    /// The meals kept for `day`, oldest first.
    public func meals(on day: LocalDay) throws(StoreError) -> [Meal] {
        do {
            return try readOne { db in try meals(db, on: day) }
        } catch {
            throw StoreError("read meals", error)
        }
    }

    func meals(_ db: Database, on day: LocalDay) throws -> [Meal] {
        try meals(db, from: day, through: day)
    }

    func meals(_ db: Database, from first: LocalDay, through last: LocalDay) throws -> [Meal] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM meals WHERE day >= ? AND day <= ? ORDER BY taken_at",
            arguments: [first.description, last.description]
        ).map(meal)
    }

    func meal(_ row: Row) throws -> Meal {
        let items = try JSONDecoder().decode([MealItem].self, from: Data((row["items_json"] as String).utf8))
        let picture = self.photo(row)
        let totals = Macros(calories: row["calories"], protein: row["protein"], carbs: row["carbs"], fats: row["fats"])
        let day = LocalDay(row["day"] as String) ?? LocalDay(year: 1970, month: 1, day: 1)
        return Meal(
            photo: picture, day: day,
            analysis: MealAnalysis(title: row["title"], totals: totals, items: items, funFact: row["fun_fact"]),
            // An older binary's schema (a rollback) has no people: every meal is the owner's there.
            person: PersonID(rawValue: row["person"] ?? PersonID.first.rawValue))
    }

    /// Runs `sql` as it stands, in one transaction: for the tests that write as an older binary did.
    func execute(sql: String) throws(StoreError) {
        do {
            try database.write { db in try db.execute(sql: sql) }
        } catch {
            throw StoreError("run SQL", error)
        }
    }

    /// Runs `PRAGMA integrity_check`; returns SQLite's verdict, "ok" when the database is sound.
    public func integrityCheck() throws(StoreError) -> String {
        do {
            return try database.read { db in
                try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
            }
        } catch {
            throw StoreError("integrity check", error)
        }
    }
}
