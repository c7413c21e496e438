import Foundation
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@testable import SnapStore

@Suite("StationStore: what the owner's page keeps")
struct OwnersPageStoreTests {
    let folder = TemporaryDirectory("store-web")
    let day = LocalDay(year: 2026, month: 11, day: 23)
    let noon = Date(timeIntervalSince1970: 1_795_435_200)

    private func mealStored(_ store: StationStore, _ id: String) throws -> Meal {
        let paths = store.paths(for: PhotoID(id), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID(id), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: noon,
            stickerPath: paths.sticker)
        try store.storePhoto(photo, jpeg: [1, 2], thumbnail: [3], sticker: [4])
        let meal = Meal(
            photo: photo, day: day,
            analysis: MealAnalysis(
                title: "Soup", totals: Macros(calories: 300, protein: 10, carbs: 30, fats: 12),
                items: [
                    MealItem(name: "Soup", grams: 400, macros: Macros(calories: 300, protein: 10, carbs: 30, fats: 12))
                ],
                funFact: "Soup is old."))
        try store.saveMeal(meal)
        return meal
    }

    @Test("should edit a meal only at the version it was read at, and bump it")
    func versions() throws {
        let store = try StationStore(directory: folder.path)
        let meal = try mealStored(store, "m1")
        let stored = try #require(try store.storedMeal(meal.photo.id))
        #expect(stored.version == 1 && !stored.totalsSetByOwner && stored.meal.analysis.funFact == "Soup is old.")
        #expect(stored.stickerPath == meal.photo.stickerPath)
        var edited = meal.analysis
        edited.title = "Lentil soup"
        #expect(try store.editMeal(meal.photo.id, edited, totalsSetByOwner: true, version: 1) == .success(2))
        #expect(try store.editMeal(meal.photo.id, edited, totalsSetByOwner: true, version: 1) == .failure(.changed))
        #expect(try store.editMeal(PhotoID("none"), edited, totalsSetByOwner: true, version: 1) == .failure(.missing))
        let now = try #require(try store.storedMeal(meal.photo.id))
        #expect(now.version == 2 && now.totalsSetByOwner && now.meal.analysis.title == "Lentil soup")
        #expect(try store.meals(on: day).map(\.analysis.title) == ["Lentil soup"])
        #expect(try store.mealDays().map(\.day) == [day])
        #expect(try store.mealDays().first.map { ($0.meals, $0.calories) } ?? (0, 0) == (1, 300))
    }

    @Test("should delete a meal with its photo, thumbnail and sticker, once")
    func deletes() throws {
        let store = try StationStore(directory: folder.path)
        let meal = try mealStored(store, "m1")
        #expect(try store.deleteMeal(meal.photo.id))
        #expect(try !store.deleteMeal(meal.photo.id))
        #expect(try store.storedMeal(meal.photo.id) == nil)
        #expect(try store.photoFiles(meal.photo.id) == nil)
        for path in [meal.photo.photoPath, meal.photo.thumbnailPath, meal.photo.stickerPath!] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
        }
        let audit = try store.audit()
        #expect(audit.missingFiles.isEmpty && audit.integrity == "ok")
    }

    @Test("should merge shopping lines by name, whatever its case, and unit; a ticked line is not merged into")
    func shopping() throws {
        let store = try StationStore(directory: folder.path)
        try store.addToShopping([
            Ingredient(name: "Tomatoes", amount: 300, unit: "g"), Ingredient(name: "olive oil", amount: 15, unit: "ml"),
        ])
        try store.addToShopping([
            Ingredient(name: "tomatoes", amount: 200, unit: "g"),
            Ingredient(name: "Tomatoes", amount: 2, unit: "piece"),
            Ingredient(name: "  ", amount: 1, unit: "g"), Ingredient(name: "Salt", amount: -1, unit: "g"),
            // A German station's answer: SQLite's NOCASE would not see these as one name.
            Ingredient(name: "Olivenöl", amount: 10, unit: "ml"), Ingredient(name: "OLIVENÖL", amount: 5, unit: "ml"),
        ])
        var list = try store.shoppingList()
        #expect(
            list.map { "\($0.name) \($0.amount) \($0.unit)" } == [
                "olive oil 15.0 ml", "Olivenöl 15.0 ml", "Tomatoes 500.0 g", "Tomatoes 2.0 piece",
            ])
        let grams = try #require(list.first { $0.unit == "g" })
        #expect(try store.updateShoppingItem(grams.id, name: "Tomatoes", amount: 500, unit: "g", ticked: true))
        try store.addToShopping([Ingredient(name: "Tomatoes", amount: 100, unit: "g")])
        list = try store.shoppingList()
        #expect(list.filter { $0.unit == "g" }.map { "\($0.amount) \($0.ticked)" } == ["100.0 false", "500.0 true"])
        #expect(try store.clearTicked() == 1)
        #expect(try store.shoppingList().count == 4)
        #expect(try !store.updateShoppingItem(9999, name: "x", amount: 1, unit: "g", ticked: false))
    }

    @Test("should keep sessions by hash, note a visit at most once a minute, and forget them")
    func sessions() throws {
        let store = try StationStore(directory: folder.path)
        let session = WebSession(tokenHash: "h1", csrf: "c1", name: "Phone", created: noon, lastSeen: noon)
        try store.createSession(session)
        try store.createSession(WebSession(tokenHash: "h2", csrf: "c2", name: "Tablet", created: noon, lastSeen: noon))
        try store.touchSession(hash: "h1", now: noon.addingTimeInterval(30))
        #expect(try store.session(hash: "h1")?.lastSeen == noon)
        try store.touchSession(hash: "h1", now: noon.addingTimeInterval(90))
        #expect(try store.session(hash: "h1")?.lastSeen == noon.addingTimeInterval(90))
        #expect(try store.sessions().map(\.name) == ["Phone", "Tablet"])
        #expect(try store.forgetSessions(hash: "h2") == 1)
        #expect(try store.forgetSessions() == 1)
        #expect(try store.session(hash: "h1") == nil)
    }

    @Test("should keep the owner's settings, and read a damaged row as none")
    func settings() throws {
        let store = try StationStore(directory: folder.path)
        #expect(try store.runtimeSettings() == RuntimeSettings())
        let settings = RuntimeSettings(dietaryPreferences: [.vegan], filter: .vivid, intensity: 0.3, flash: false)
        try store.saveRuntimeSettings(settings)
        #expect(try StationStore(directory: folder.path).runtimeSettings() == settings)
        #expect(settings.clearing([.filter, .flash]) == RuntimeSettings(dietaryPreferences: [.vegan], intensity: 0.3))
    }

    @Test("should run a write on the store's thread for a caller that waits, and hand back its error")
    func writingAndWaiting() throws {
        let store = try StationStore(directory: folder.path)
        let name = try store.writingAndWaiting { _ throws(StoreError) in SerialThread.currentThreadName }
        #expect(name == "store")
        let error = #expect(throws: StoreError.self) {
            try store.writingAndWaiting { _ throws(StoreError) -> Int in
                throw StoreError("test the waiting write", FileError(call: "open", path: "/x", errno: ENOSPC))
            }
        }
        #expect(error?.isDiskFull == true)
    }
}
