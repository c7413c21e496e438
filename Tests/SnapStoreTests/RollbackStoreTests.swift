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
        // The slot before the newest migration: it knows every migration but the last.
        let older = try StationStore(
            directory: folder.path,
            migrator: StationStore.migrator(upTo: "v8: a meal's estimates the owner's corrections replaced"))
        #expect(try older.meals(on: day).map(\.analysis.title) == ["Soup"], "the meal made before the rollback")
        #expect(try older.pendingJobs().map(\.photoID) == [PhotoID("g1")], "the queued upload too")
        try older.saveMeal(Meal(photo: try photo(older, "m2"), day: day, analysis: analysis))
        #expect(try older.integrityCheck() == "ok")
        // Updated again: the newer schema finds its planned meal and the older slot's meal.
        let again = try StationStore(directory: folder.path)
        #expect(try again.meals(on: day).count == 2 && again.plannedMeals().map(\.title) == ["Chili"])
    }
}
