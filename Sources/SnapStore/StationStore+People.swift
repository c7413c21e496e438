import Foundation
internal import GRDB
import SnapCore

/// Why a change to the household was not made.
public enum HouseholdChangeFailure: Error, Sendable, Hashable {
    /// There is no such person (removed, perhaps from another tab).
    case missing
    /// The owner (`PersonID.first`) stays: every meal nobody picked a person for is theirs.
    case owner
    /// The household holds `StationStore.mostPeople` already.
    case full
}

extension StationStore {
    /// The most people one station keeps apart: the mode button's round at the station stays short.
    public static let mostPeople = 8

    /// The household, the owner first, then the others in the order they were added.
    public func household() throws(StoreError) -> Household {
        do {
            return try readOne { db in try Self.household(db) }
        } catch {
            throw StoreError("read the household", error)
        }
    }

    static func household(_ db: Database) throws -> Household {
        Household(
            try Row.fetchAll(db, sql: "SELECT * FROM people ORDER BY id").map { row in
                let goals = (row["goals_json"] as String?).flatMap {
                    try? JSONDecoder().decode(Macros.self, from: Data($0.utf8))
                }
                // A colour an older or newer binary wrote that this one does not know shows as the first.
                return Person(
                    id: PersonID(rawValue: row["id"]), name: row["name"],
                    colour: PersonColour(rawValue: row["colour"]) ?? .orange, goals: goals, aiShare: row["ai_share"])
            })
    }

    /// Adds a person (their id is the store's); fails when the household is full.
    public func addPerson(name: String, colour: PersonColour, goals: Macros?, aiShare: Int?) throws(StoreError)
        -> Result<PersonID, HouseholdChangeFailure>
    {
        do {
            return try database.write { db in
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM people") ?? 0
                guard count < Self.mostPeople else { return .failure(.full) }
                try db.execute(
                    sql: "INSERT INTO people (name, colour, goals_json, ai_share) VALUES (?, ?, ?, ?)",
                    arguments: [name, colour.rawValue, try Self.json(goals), aiShare])
                return .success(PersonID(rawValue: Int(db.lastInsertedRowID)))
            }
        } catch {
            throw StoreError("add a person", error)
        }
    }

    /// Changes a person's name, colour, goals and share. The owner's goals are the station's settings:
    /// theirs in `person` are not kept. Nil when it was made.
    public func updatePerson(_ person: Person) throws(StoreError) -> HouseholdChangeFailure? {
        do {
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE people SET name = ?, colour = ?, goals_json = ?, ai_share = ? WHERE id = ?",
                    arguments: [
                        person.name, person.colour.rawValue, try Self.json(person.id == .first ? nil : person.goals),
                        person.aiShare, person.id.rawValue,
                    ])
                return db.changesCount > 0 ? nil : .missing
            }
        } catch {
            throw StoreError("change \(person.id)", error)
        }
    }

    /// Removes a person; their meals (and analyses still waiting) become the owner's, so nothing logged is
    /// lost. Returns how many meals moved.
    public func removePerson(_ id: PersonID) throws(StoreError) -> Result<Int, HouseholdChangeFailure> {
        guard id != .first else { return .failure(.owner) }
        do {
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE meals SET person = ?, version = version + 1 WHERE person = ?",
                    arguments: [PersonID.first.rawValue, id.rawValue])
                let moved = db.changesCount
                try db.execute(
                    sql: "UPDATE analysis_jobs SET person = ? WHERE person = ?",
                    arguments: [PersonID.first.rawValue, id.rawValue])
                try db.execute(sql: "DELETE FROM people WHERE id = ?", arguments: [id.rawValue])
                return db.changesCount > 0 ? .success(moved) : .failure(.missing)
            }
        } catch {
            throw StoreError("remove \(id)", error)
        }
    }

    /// Gives the meal `id` to `person` if it is still at `version`; returns the new version.
    public func moveMeal(_ id: PhotoID, to person: PersonID, version: Int) throws(StoreError) -> Result<
        Int, MealEditFailure
    > {
        do {
            return try database.write { db in
                guard
                    let current = try Int.fetchOne(
                        db, sql: "SELECT version FROM meals WHERE id = ?", arguments: [id.rawValue]),
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM people WHERE id = ?)", arguments: [person.rawValue])
                        == true
                else { return .failure(.missing) }
                guard current == version else { return .failure(.changed) }
                try db.execute(
                    sql: "UPDATE meals SET person = ?, version = version + 1 WHERE id = ?",
                    arguments: [person.rawValue, id.rawValue])
                return .success(version + 1)
            }
        } catch {
            throw StoreError("move meal \(id) to \(person)", error)
        }
    }

    /// Each day from `from` to `to` (both included) on which `person` has meals: how many, and their totals.
    public func dayTotals(of person: PersonID, from: LocalDay, to: LocalDay) throws(StoreError) -> [LocalDay: (
        meals: Int, totals: Macros
    )] {
        do {
            return try readOne { db in
                var days: [LocalDay: (meals: Int, totals: Macros)] = [:]
                let rows = try Row.fetchCursor(
                    db.cachedStatement(
                        sql: """
                            SELECT day, meals, calories, protein, carbs, fats FROM person_day_totals
                            WHERE person = ? AND day BETWEEN ? AND ?
                            """),
                    arguments: [person.rawValue, from.description, to.description])
                while let row = try rows.next() {
                    guard let day = LocalDay(row[0] as String) else { continue }
                    days[day] = (row[1], Macros(calories: row[2], protein: row[3], carbs: row[4], fats: row[5]))
                }
                return days
            }
        } catch {
            throw StoreError("read \(person)'s days", error)
        }
    }

    private static func json(_ goals: Macros?) throws -> String? {
        try goals.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }
}
