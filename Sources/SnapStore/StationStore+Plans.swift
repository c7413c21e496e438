import Foundation
internal import GRDB
import SnapCore

/// A meal planned into the shopping list: what the owner asked, the AI's title and categories, and the
/// lines to buy for a week (as the list writes them). A draft waits for the owner's review; once confirmed
/// its lines are on the list.
public struct PlannedMeal: Sendable, Hashable {
    public var id: Int64
    public var title: String
    public var request: PlanRequest
    public var contains: Set<FoodTag>
    public var lines: [Ingredient]
    public var confirmed: Bool
    public var created: Date
}

extension StationStore {
    /// Keeps the AI's answer about a planned meal as a draft for the owner to review, and counts the
    /// analysis it used on `day`, in one transaction; the draft's id.
    public func addPlanDraft(
        _ request: PlanRequest, title: String, contains: Set<FoodTag>, lines: [Ingredient], usedOn day: LocalDay,
        at now: Date
    ) throws(StoreError) -> Int64 {
        do {
            return try database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO planned_meals (title, asked_name, portions, units, times_a_week, contains_json, created)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        title, request.name, request.portions, request.units.rawValue, request.timesAWeek,
                        String(decoding: try JSONEncoder().encode(contains.map(\.rawValue).sorted()), as: UTF8.self),
                        now.timeIntervalSince1970,
                    ])
                let id = db.lastInsertedRowID
                try Self.replaceLines(of: id, with: lines, db)
                // The household's plan: counted as the owner's request.
                try countUse(day, db, person: .first)
                return id
            }
        } catch {
            throw StoreError("keep a planned meal", error)
        }
    }

    /// Every planned meal, drafts first, then the confirmed ones in the order they were planned.
    public func plannedMeals() throws(StoreError) -> [PlannedMeal] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM planned_meals ORDER BY confirmed, id").map {
                    try Self.plan($0, db)
                }
            }
        } catch {
            throw StoreError("read the planned meals", error)
        }
    }

    public func plannedMeal(_ id: Int64) throws(StoreError) -> PlannedMeal? {
        do {
            return try database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM planned_meals WHERE id = ?", arguments: [id]).map {
                    try Self.plan($0, db)
                }
            }
        } catch {
            throw StoreError("read planned meal \(id)", error)
        }
    }

    /// Puts a draft's lines, as the owner reviewed them, on the list (merged with lines of the same name and
    /// unit) and keeps what each added, in one transaction. False when the draft is gone or was confirmed
    /// already (a second phone, a second tap): nothing is added twice.
    public func confirmPlan(_ id: Int64, lines: [Ingredient]) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE planned_meals SET confirmed = 1 WHERE id = ? AND confirmed = 0", arguments: [id])
                guard db.changesCount == 1 else { return false }
                try Self.replaceLines(of: id, with: lines, db)
                for line in lines {
                    guard let item = try Self.merge(line, db) else { continue }
                    try db.execute(
                        sql: "INSERT INTO shopping_shares (item_id, plan_id, amount) VALUES (?, ?, ?)",
                        arguments: [item, id, line.amount])
                }
                return true
            }
        } catch {
            throw StoreError("put planned meal \(id) on the list", error)
        }
    }

    /// Deletes a planned meal, and takes back from the list what it added: each merged line loses the
    /// meal's amount (never more than the line holds: the owner may have lowered it since), and goes when
    /// nothing is left of it. A ticked line is left as it is: it was bought. False when it is gone already.
    @discardableResult
    public func deletePlan(_ id: Int64) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(
                    sql: """
                        UPDATE shopping_items SET amount = MAX(0, amount -
                            (SELECT SUM(amount) FROM shopping_shares WHERE item_id = shopping_items.id AND plan_id = ?))
                        WHERE id IN (SELECT item_id FROM shopping_shares WHERE plan_id = ?) AND ticked = 0
                        """,
                    arguments: [id, id])
                // A line the meal alone made, or one the owner lowered below the meal's part, goes.
                try db.execute(
                    sql: """
                        DELETE FROM shopping_items
                        WHERE id IN (SELECT item_id FROM shopping_shares WHERE plan_id = ? AND amount > 0)
                            AND ticked = 0 AND amount < 0.000001
                        """,
                    arguments: [id])
                try db.execute(sql: "DELETE FROM planned_meals WHERE id = ?", arguments: [id])
                return db.changesCount == 1
            }
        } catch {
            throw StoreError("delete planned meal \(id)", error)
        }
    }

    private static func replaceLines(of id: Int64, with lines: [Ingredient], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM planned_lines WHERE plan_id = ?", arguments: [id])
        for line in lines {
            try db.execute(
                sql: "INSERT INTO planned_lines (plan_id, name, amount, unit) VALUES (?, ?, ?, ?)",
                arguments: [id, line.name, line.amount, line.unit])
        }
    }

    private static func plan(_ row: Row, _ db: Database) throws -> PlannedMeal {
        let id: Int64 = row["id"]
        let lines = try Row.fetchAll(
            db, sql: "SELECT name, amount, unit FROM planned_lines WHERE plan_id = ? ORDER BY id", arguments: [id]
        ).map { Ingredient(name: $0["name"], amount: $0["amount"], unit: $0["unit"]) }
        let tags = (try? JSONDecoder().decode([String].self, from: Data((row["contains_json"] as String).utf8))) ?? []
        return PlannedMeal(
            id: id, title: row["title"],
            request: PlanRequest(
                name: row["asked_name"], portions: row["portions"],
                units: PlanRequest.Units(rawValue: row["units"]) ?? .metric, timesAWeek: row["times_a_week"]),
            contains: Set(tags.compactMap(FoodTag.init(rawValue:))), lines: lines, confirmed: row["confirmed"],
            created: Date(timeIntervalSince1970: row["created"]))
    }
}
