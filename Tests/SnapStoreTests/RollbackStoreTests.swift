import Foundation
import SnapCore
import SnapTestSupport
import Testing

@testable import SnapStore

/// A rollback runs the older binary on the store the newer one migrated (the data partition is shared by
/// both slots): every migration only adds, so the older one opens it, reads and writes it, and the
/// newer one finds its own data again after the next update.
@Suite("StationStore across an update and its rollback")
struct RollbackStoreTests {
    let folder = TemporaryDirectory("rollback-store")
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let noon = Date(timeIntervalSince1970: 1_773_140_400)

    private func photo(_ store: StationStore, _ id: String) throws -> ProcessedPhoto {
        let paths = store.paths(for: PhotoID(id), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID(id), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: noon)
        try store.storePhoto(photo, jpeg: Array("photo \(id)".utf8), thumbnail: Array("thumb \(id)".utf8))
        return photo
    }

    @Test("should open a store the newer station migrated with the older one's schema, and back again")
    func olderOpensNewer() throws {
        let analysis = MealAnalysis(
            title: "Soup", totals: Macros(calories: 300, protein: 10, carbs: 30, fats: 12), items: [])
        do {
            let newer = try StationStore(directory: folder.path)
            try newer.saveMeal(Meal(photo: try photo(newer, "m1"), day: day, analysis: analysis))
            #expect(try newer.share(try photo(newer, "g1"), group: "Family", day: day, now: noon))
            _ = try newer.addPlanDraft(
                PlanRequest(name: "chili", portions: 2, units: .metric, timesAWeek: 1), title: "Chili", contains: [],
                lines: [Ingredient(name: "Beans", amount: 400, unit: "g")], usedOn: day, at: noon)
        }
        // The slot before the newest migrations: it knows none of the household's.
        let older = try StationStore(
            directory: folder.path,
            migrator: StationStore.migrator(upTo: "v12: what happened once, such as the first visit's walk-through"))
        #expect(try older.meals(on: day).map(\.analysis.title) == ["Soup"], "the meal made before the rollback")
        #expect(try older.pendingJobs().map(\.photoID) == [PhotoID("g1")], "the queued upload too")
        // The older binary saves a meal as it did, naming no person (its statement, not this one's).
        let m2 = try photo(older, "m2")
        try older.execute(
            sql: """
                INSERT OR REPLACE INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json,
                photo_path, thumbnail_path, fun_fact, sticker_path)
                VALUES ('\(m2.id.rawValue)', '\(day)', \(noon.timeIntervalSince1970), 'Bread', 200, 6, 40, 2, '[]',
                '\(m2.photoPath)', '\(m2.thumbnailPath)', NULL, NULL)
                """)
        #expect(try older.integrityCheck() == "ok")
        // Updated again: the newer schema finds its planned meal and the older slot's meal.
        let again = try StationStore(directory: folder.path)
        #expect(try again.meals(on: day).count == 2 && again.plannedMeals().map(\.title) == ["Chili"])
        #expect(try again.meals(on: day).map(\.person) == [.first, .first], "the older slot's meal is the owner's")
        let owner = try again.dayTotals(of: .first, from: day, to: day)[day]
        #expect(owner?.meals == 2 && owner?.totals.calories == 500, "the owner's day counts the older slot's meal")
    }
}

@Suite("StationStore: a planned meal's lines on the shopping list")
struct PlannedLinesStoreTests {
    let folder = TemporaryDirectory("plans-store")

    @Test("should take back only what a deleted plan added, never below zero, and leave a ticked line bought")
    func deleteTakesBackItsPart() throws {
        let store = try StationStore(directory: folder.path)
        let day = LocalDay(year: 2026, month: 3, day: 10)
        try store.addToShopping([Ingredient(name: "Onion", amount: 2, unit: "piece")])
        let plan = try store.addPlanDraft(
            PlanRequest(name: "soup", portions: 2, units: .metric, timesAWeek: 1), title: "Soup", contains: [],
            lines: [
                Ingredient(name: "onion", amount: 3, unit: "piece"), Ingredient(name: "Leek", amount: 1, unit: "piece"),
                Ingredient(name: "Stock", amount: 500, unit: "ml"),
            ], usedOn: day, at: Date())
        #expect(try store.confirmPlan(plan, lines: try store.plannedMeal(plan)!.lines))
        var lines = try store.shoppingList()
        #expect(lines.first { $0.name == "Onion" }?.amount == 5)
        // The owner ticks the leek (bought) and lowers the stock below what the plan put there.
        let leek = try #require(lines.first { $0.name == "Leek" })
        try store.updateShoppingItem(leek.id, name: "Leek", amount: 1, unit: "piece", ticked: true)
        let stock = try #require(lines.first { $0.name == "Stock" })
        try store.updateShoppingItem(stock.id, name: "Stock", amount: 200, unit: "ml", ticked: false)
        #expect(try store.deletePlan(plan))
        lines = try store.shoppingList()
        #expect(lines.first { $0.name == "Onion" }?.amount == 2, "the typed part stays")
        #expect(lines.first { $0.name == "Leek" }?.ticked == true, "a bought line stays as it is")
        #expect(!lines.contains { $0.name == "Stock" }, "lowered below the plan's part: nothing of it is left")
        #expect(lines.allSatisfy { $0.amount >= 0 })
    }
}
