import Foundation
internal import GRDB
import SnapCore

/// The copy of a backup's tables into a new store, one table at a time, in the order their references
/// need (people before meals, meals before their estimates, plans before their lines).
struct RowCopy {
    var report: RestoreReport
    /// The state folder the backup was made in, and the one it is restored to.
    let old: String
    let new: String

    /// The tables of the backup that are tables (not views, not virtual tables), with their columns.
    private var tables: Set<String> = []

    init(report: RestoreReport, old: String, new: String) {
        self.report = report
        self.old = old
        self.new = new
    }

    mutating func all(_ from: Database, _ to: Database, settings: RestoredSettings) throws {
        tables = Set(
            try String.fetchAll(
                from,
                sql: """
                    SELECT name FROM sqlite_master
                    WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'
                    """))
        let people = try copyPeople(from, to)
        // The closures below read these, not `self`, which `each` is changing.
        let (old, new) = (self.old, self.new)
        func files(_ row: BackupRow, _ id: PhotoID, _ columns: [String]) throws(BackupRow.Refused)
            -> (photo: String, thumbnail: String, sticker: String?, day: String?)
        {
            try Self.files(row, id, columns, old: old, new: new)
        }
        try each("photos", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.photoID("id")
            let files = try files(row, id, ["photo_path", "thumbnail_path", "sticker_path"])
            return (
                """
                INSERT OR IGNORE INTO photos (id, taken_at, photo_path, thumbnail_path, sticker_path, files_day)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [id.rawValue, try row.time("taken_at"), files.photo, files.thumbnail, files.sticker, files.day]
            )
        }
        try each("meals", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.photoID("id")
            let files = try files(row, id, ["photo_path", "thumbnail_path", "sticker_path"])
            let items = try row.json("items_json", as: [MealItem].self)
            let analysis = MealAnalysis(
                title: try row.text("title", most: MealBounds.answerTitle.upperBound),
                totals: try Self.macros(row), items: items,
                funFact: try row.optionalText("fun_fact", most: MealBounds.answerFunFact.upperBound))
            guard MealBounds.isKeepable(analysis) else { throw BackupRow.Refused(column: "items_json") }
            let person = try row.int("person", 1...Int(Int32.max), absent: 1)
            return (
                """
                INSERT OR IGNORE INTO meals
                (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path, thumbnail_path,
                 fun_fact, version, totals_set_by_owner, sticker_path, person, files_day)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id.rawValue, try row.day("day").description, try row.time("taken_at"), analysis.title,
                    analysis.totals.calories, analysis.totals.protein, analysis.totals.carbs, analysis.totals.fats,
                    String(decoding: (try? JSONEncoder().encode(items)) ?? Data("[]".utf8), as: UTF8.self),
                    files.photo, files.thumbnail, analysis.funFact,
                    try row.int("version", 1...Int(Int32.max), absent: 1),
                    try row.flag("totals_set_by_owner"), files.sticker,
                    people.contains(person) ? person : PersonID.first.rawValue, files.day,
                ]
            )
        }
        try each("meal_estimates", from, into: to) { row throws(BackupRow.Refused) in
            let meal = try row.photoID("meal_id")
            let analysis = try row.json("analysis_json", as: MealAnalysis.self)
            guard MealBounds.isKeepable(analysis) else { throw BackupRow.Refused(column: "analysis_json") }
            return (
                """
                INSERT INTO meal_estimates (meal_id, replaced_at, sentence, analysis_json)
                SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM meals WHERE id = ?)
                """,
                [
                    meal.rawValue, try row.time("replaced_at"), try row.text("sentence", most: 300),
                    String(decoding: (try? JSONEncoder().encode(analysis)) ?? Data(), as: UTF8.self), meal.rawValue,
                ]
            )
        }
        try each("ai_uses", from, into: to) { row throws(BackupRow.Refused) in
            (
                "INSERT OR IGNORE INTO ai_uses (day, count) VALUES (?, ?)",
                [try row.day("day").description, try row.int("count", 0...100_000)]
            )
        }
        try each("person_ai_uses", from, into: to) { row throws(BackupRow.Refused) in
            let person = try row.int("person", 1...Int(Int32.max))
            guard people.contains(person) else { throw BackupRow.Refused(column: "person") }
            return (
                "INSERT OR IGNORE INTO person_ai_uses (day, person, count) VALUES (?, ?, ?)",
                [try row.day("day").description, person, try row.int("count", 0...100_000)]
            )
        }
        try each("group_sends", from, into: to) { row throws(BackupRow.Refused) in
            (
                "INSERT OR IGNORE INTO group_sends (group_name, day, photo_id) VALUES (?, ?, ?)",
                [
                    try row.text("group_name", most: 100, empty: false), try row.day("day").description,
                    try row.photoID("photo_id").rawValue,
                ]
            )
        }
        try each("upload_jobs", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.photoID("photo_id")
            let files = try files(row, id, ["photo_path"])
            let state = try row.text("state", most: 20)
            guard UploadJob.State(rawValue: state) != nil else { throw BackupRow.Refused(column: "state") }
            return (
                """
                INSERT OR IGNORE INTO upload_jobs
                (photo_id, group_name, day, photo_path, taken_at, state, attempts, next_attempt, last_error,
                 remote_removed, files_day)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id.rawValue, try row.text("group_name", most: 100, empty: false), try row.day("day").description,
                    files.photo, try row.time("taken_at"), state, try row.int("attempts", 0...1_000_000),
                    try row.time("next_attempt"), try row.optionalText("last_error", most: 2_000),
                    try row.flag("remote_removed"), files.day,
                ]
            )
        }
        try each("analysis_jobs", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.photoID("photo_id")
            let files = try files(row, id, ["photo_path", "thumbnail_path"])
            let state = try row.text("state", most: 20)
            guard ["active", "pending", "answered", "done", "discarded", "failed"].contains(state) else {
                throw BackupRow.Refused(column: "state")
            }
            var answer: String?
            if !row.isNull("answer_json") {
                let analysis = try row.json("answer_json", as: MealAnalysis.self)
                guard MealBounds.isKeepable(analysis) else { throw BackupRow.Refused(column: "answer_json") }
                answer = String(decoding: (try? JSONEncoder().encode(analysis)) ?? Data(), as: UTF8.self)
            }
            let person = try row.int("person", 1...Int(Int32.max), absent: 1)
            return (
                """
                INSERT OR IGNORE INTO analysis_jobs
                (photo_id, photo_path, thumbnail_path, taken_at, day, state, attempts, next_attempt, last_error,
                 answer_json, person, files_day)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id.rawValue, files.photo, files.thumbnail, try row.time("taken_at"), try row.day("day").description,
                    state, try row.int("attempts", 0...1_000_000), try row.time("next_attempt"),
                    try row.optionalText("last_error", most: 2_000), answer,
                    people.contains(person) ? person : PersonID.first.rawValue, files.day,
                ]
            )
        }
        try each("received_photos", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.photoID("photo_id")
            let group = try row.text("group_name", most: 100, empty: false)
            return (
                """
                INSERT OR IGNORE INTO received_photos (photo_id, group_name, member, taken_at, expires_at, path, bytes)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id.rawValue, group, try row.text("member", most: 100), try row.time("taken_at"),
                    try row.time("expires_at"),
                    StationStore.inbox(in: new).path(
                        StationStore.inboxFile(for: id), in: StationStore.inboxFolder(of: group)),
                    try row.int("bytes", 0...Int(Int32.max)),
                ]
            )
        }
        try each("inbox_failures", from, into: to) { row throws(BackupRow.Refused) in
            (
                "INSERT OR IGNORE INTO inbox_failures (photo_id, attempts, next_attempt, last_error) VALUES (?, ?, ?, ?)",
                [
                    try row.photoID("photo_id").rawValue, try row.int("attempts", 0...1_000_000),
                    try row.time("next_attempt"), try row.text("last_error", most: 2_000),
                ]
            )
        }
        try each("shopping_items", from, into: to) { row throws(BackupRow.Refused) in
            (
                "INSERT OR IGNORE INTO shopping_items (id, name, amount, unit, ticked) VALUES (?, ?, ?, ?, ?)",
                [
                    try row.int("id", 1...Int(Int32.max)),
                    try row.text("name", most: MealBounds.formName, empty: false),
                    try row.real("amount", 0...100_000), try row.text("unit", most: 12), try row.flag("ticked"),
                ]
            )
        }
        try each("planned_meals", from, into: to) { row throws(BackupRow.Refused) in
            let units = try row.text("units", most: 12)
            guard PlanRequest.Units(rawValue: units) != nil else { throw BackupRow.Refused(column: "units") }
            let tags = try row.json("contains_json", as: [String].self)
            guard tags.allSatisfy({ FoodTag(rawValue: $0) != nil }) else {
                throw BackupRow.Refused(column: "contains_json")
            }
            return (
                """
                INSERT OR IGNORE INTO planned_meals
                (id, title, asked_name, portions, units, times_a_week, contains_json, created, confirmed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    try row.int("id", 1...Int(Int32.max)),
                    try row.text("title", most: MealBounds.answerTitle.upperBound, empty: false),
                    try row.text("asked_name", most: PlanRequest.nameLength.upperBound, empty: false),
                    try row.int("portions", PlanRequest.portionRange), units,
                    try row.int("times_a_week", PlanRequest.timesRange),
                    String(decoding: (try? JSONEncoder().encode(tags)) ?? Data("[]".utf8), as: UTF8.self),
                    try row.time("created"), try row.flag("confirmed"),
                ]
            )
        }
        try each("planned_lines", from, into: to) { row throws(BackupRow.Refused) in
            let plan = try row.int("plan_id", 1...Int(Int32.max))
            return (
                """
                INSERT OR IGNORE INTO planned_lines (id, plan_id, name, amount, unit)
                SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM planned_meals WHERE id = ?)
                """,
                [
                    try row.int("id", 1...Int(Int32.max)), plan,
                    try row.text("name", most: MealBounds.formName, empty: false),
                    try row.real("amount", 0...100_000), try row.text("unit", most: 12), plan,
                ]
            )
        }
        try each("shopping_shares", from, into: to) { row throws(BackupRow.Refused) in
            let (item, plan) = (try row.int("item_id", 1...Int(Int32.max)), try row.int("plan_id", 1...Int(Int32.max)))
            return (
                """
                INSERT INTO shopping_shares (item_id, plan_id, amount)
                SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM shopping_items WHERE id = ?)
                    AND EXISTS (SELECT 1 FROM planned_meals WHERE id = ?)
                """,
                [item, plan, try row.real("amount", 0...100_000), item, plan]
            )
        }
        try each("station_marks", from, into: to) { row throws(BackupRow.Refused) in
            let name = try row.text("name", most: 40)
            guard StationMark(rawValue: name) != nil else { throw BackupRow.Refused(column: "name") }
            return ("INSERT OR IGNORE INTO station_marks (name, at) VALUES (?, ?)", [name, try row.time("at")])
        }
        try copySettings(from, to, settings)
    }

    /// The household: the owner (person 1, who is always there) as the backup names them, then the others,
    /// at most `StationStore.mostPeople` in all. Their ids.
    private mutating func copyPeople(_ from: Database, _ to: Database) throws -> Set<Int> {
        var people: Set<Int> = [PersonID.first.rawValue]
        try each("people", from, into: to) { row throws(BackupRow.Refused) in
            let id = try row.int("id", 1...Int(Int32.max))
            guard id == PersonID.first.rawValue || people.count < StationStore.mostPeople else {
                throw BackupRow.Refused(column: "id")
            }
            let name = try row.text("name", most: PersonName.limit)
            guard name.isEmpty ? id == PersonID.first.rawValue : PersonName.parse(name) == name else {
                throw BackupRow.Refused(column: "name")
            }
            let colour = try row.text("colour", most: 20)
            guard PersonColour(rawValue: colour) != nil else { throw BackupRow.Refused(column: "colour") }
            var goals: String?
            if !row.isNull("goals_json") {
                let macros = try row.json("goals_json", as: Macros.self)
                let kcal = SettingsInForce.kcalGoalRange
                let grams = SettingsInForce.gramsGoalRange
                guard kcal.contains(macros.calories),
                    [macros.protein, macros.carbs, macros.fats].allSatisfy(grams.contains)
                else { throw BackupRow.Refused(column: "goals_json") }
                goals = String(decoding: (try? JSONEncoder().encode(macros)) ?? Data(), as: UTF8.self)
            }
            let share = try row.optionalInt("ai_share", 0...1_000)
            people.insert(id)
            return (
                """
                INSERT INTO people (id, name, colour, goals_json, ai_share) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, colour = excluded.colour,
                goals_json = excluded.goals_json, ai_share = excluded.ai_share
                """,
                [id, name, colour, goals, share]
            )
        }
        return people
    }

    /// The owner's settings, each as the page's checks take it (`settings`): the addresses a key or a
    /// password goes to are kept aside (`restored_settings`) until the owner confirms them on the page.
    private mutating func copySettings(_ from: Database, _ to: Database, _ settings: RestoredSettings) throws {
        var found = RuntimeSettings()
        for table in ["runtime_settings", "restored_settings"] where tables.contains(table) {
            for row in try Row.fetchAll(from, sql: "SELECT * FROM \(table) LIMIT 1").map(BackupRow.init) {
                guard let json = try? row.json("json", as: RuntimeSettings.self) else {
                    report.refused[table, default: 0] += 1
                    continue
                }
                found = found.overlaid(by: json)
                report.copied[table, default: 0] += 1
            }
        }
        let (kept, waiting) = settings(found)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (table, value) in [("runtime_settings", kept), ("restored_settings", waiting)]
        where value != RuntimeSettings() {
            try to.execute(
                sql: "INSERT INTO \(table) (id, json) VALUES (1, ?)",
                arguments: [String(decoding: try encoder.encode(value), as: UTF8.self)])
        }
    }

    /// Each row of `table` (where the backup has it) made into a statement by `make`, or refused and counted.
    private mutating func each(
        _ table: String, _ from: Database, into to: Database,
        _ make: (BackupRow) throws(BackupRow.Refused) -> (String, [(any DatabaseValueConvertible)?])
    ) throws {
        guard tables.contains(table) else { return }
        let rows = try Row.fetchCursor(from, sql: "SELECT * FROM \"\(table)\"")
        while let row = try rows.next() {
            do {
                let (sql, values) = try make(BackupRow(row: row))
                try to.execute(sql: sql, arguments: StatementArguments(values))
                if to.changesCount > 0 {
                    report.copied[table, default: 0] += 1
                } else {
                    report.refused[table, default: 0] += 1
                }
            } catch {
                report.refused[table, default: 0] += 1
            }
        }
    }

    /// The files of the photo `id` on `row` in the restored state folder: each path made from the id and
    /// the day folder, only where the row says it has it; NULL and "" where it has none.
    private static func files(_ row: BackupRow, _ id: PhotoID, _ columns: [String], old: String, new: String)
        throws(BackupRow.Refused) -> (photo: String, thumbnail: String, sticker: String?, day: String?)
    {
        guard let day = try row.filesDay(of: id, columns: columns, madeIn: old) else { return ("", "", nil, nil) }
        let made = StationStore.paths(for: id, day: day, in: new)
        return (
            row.has("photo_path") ? made.photo : "", row.has("thumbnail_path") ? made.thumbnail : "",
            columns.contains("sticker_path") && row.has("sticker_path") ? made.sticker : nil, day.description
        )
    }

    private static func macros(_ row: BackupRow) throws(BackupRow.Refused) -> Macros {
        let most = Int(Int32.max)
        return Macros(
            calories: try row.int("calories", 0...most), protein: try row.int("protein", 0...most),
            carbs: try row.int("carbs", 0...most), fats: try row.int("fats", 0...most))
    }
}
