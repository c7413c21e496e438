import Foundation
internal import GRDB
import SnapCore

/// One line of the shopping list.
public struct ShoppingItem: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var amount: Double
    public var unit: String
    public var ticked: Bool
}

extension StationStore {
    public func shoppingList() throws(StoreError) -> [ShoppingItem] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM shopping_items ORDER BY ticked, name COLLATE NOCASE").map {
                    ShoppingItem(
                        id: $0["id"], name: $0["name"], amount: $0["amount"], unit: $0["unit"], ticked: $0["ticked"])
                }
            }
        } catch {
            throw StoreError("read the shopping list", error)
        }
    }

    /// Adds ingredients, merged by name (whatever its case, in any language: "Äpfel" and "äpfel") and unit
    /// with what the list holds, unticked. The names are compared in Swift, as SQLite's NOCASE folds only
    /// ASCII letters.
    public func addToShopping(_ ingredients: [Ingredient]) throws(StoreError) {
        do {
            try database.write { db in
                for ingredient in ingredients { _ = try Self.merge(ingredient, db) }
            }
        } catch {
            throw StoreError("add to the shopping list", error)
        }
    }

    /// Adds one ingredient to the list, merged with an unticked line of the same name and unit; the line's
    /// id, or nil for an ingredient with no name or a negative amount.
    static func merge(_ ingredient: Ingredient, _ db: Database) throws -> Int64? {
        let name = ingredient.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, ingredient.amount >= 0 else { return nil }
        let folded = name.lowercased()
        let lines = try Row.fetchAll(
            db, sql: "SELECT id, name FROM shopping_items WHERE unit = ? AND ticked = 0 ORDER BY id",
            arguments: [ingredient.unit])
        if let line = lines.first(where: { ($0["name"] as String).lowercased() == folded }) {
            let id: Int64 = line["id"]
            try db.execute(
                sql: "UPDATE shopping_items SET amount = amount + ? WHERE id = ?", arguments: [ingredient.amount, id])
            return id
        }
        try db.execute(
            sql: "INSERT INTO shopping_items (name, amount, unit) VALUES (?, ?, ?)",
            arguments: [name, ingredient.amount, ingredient.unit])
        return db.lastInsertedRowID
    }

    /// Changes one line; false when it is gone.
    @discardableResult
    public func updateShoppingItem(_ id: Int64, name: String, amount: Double, unit: String, ticked: Bool)
        throws(StoreError) -> Bool
    {
        do {
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE shopping_items SET name = ?, amount = ?, unit = ?, ticked = ? WHERE id = ?",
                    arguments: [name, amount, unit, ticked, id])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError("change the shopping list", error)
        }
    }

    /// Deletes the ticked lines; returns how many.
    @discardableResult
    public func clearTicked() throws(StoreError) -> Int {
        do {
            return try database.write { db in
                try db.execute(sql: "DELETE FROM shopping_items WHERE ticked = 1")
                return db.changesCount
            }
        } catch {
            throw StoreError("clear the shopping list", error)
        }
    }
}
