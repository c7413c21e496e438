import Foundation
import SnapCore
import SnapTestSupport
import Testing

@testable import SnapStore

@Suite("StationStore: the household, each meal one person's")
struct HouseholdStoreTests {
    let folder = TemporaryDirectory("household-store")
    let monday = LocalDay(year: 2026, month: 3, day: 9)
    let tuesday = LocalDay(year: 2026, month: 3, day: 10)
    let noon = Date(timeIntervalSince1970: 1_773_140_400)

    private func meal(_ store: StationStore, _ id: String, on day: LocalDay, kcal: Int, person: PersonID = .first)
        throws -> Meal
    {
        let paths = store.paths(for: PhotoID(id), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID(id), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: noon)
        try store.storePhoto(photo, jpeg: Array("photo \(id)".utf8), thumbnail: Array("thumb \(id)".utf8))
        let analysis = MealAnalysis(
            title: id, totals: Macros(calories: kcal, protein: 10, carbs: 20, fats: 5), items: [])
        let meal = Meal(photo: photo, day: day, analysis: analysis, person: person)
        try store.saveMeal(meal)
        return meal
    }

    @Test("should give every meal of a store from before people to the owner, with their totals and goals kept")
    func migratesToTheOwner() throws {
        let goals = Macros(calories: 2_100, protein: 120, carbs: 250, fats: 70)
        do {
            let older = try StationStore(
                directory: folder.path,
                migrator: StationStore.migrator(upTo: "v12: what happened once, such as the first visit's walk-through")
            )
            try older.saveRuntimeSettings(RuntimeSettings(goals: goals))
            for (id, day, kcal) in [("a", monday, 500), ("b", tuesday, 300), ("c", tuesday, 450)] {
                let paths = older.paths(for: PhotoID(id), day: day)
                try older.execute(
                    sql: """
                        INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json,
                        photo_path, thumbnail_path) VALUES ('\(id)', '\(day)', \(noon.timeIntervalSince1970), '\(id)',
                        \(kcal), 10, 20, 5, '[]', '\(paths.photo)', '\(paths.thumbnail)')
                        """)
            }
        }
        let store = try StationStore(directory: folder.path)
        #expect(try store.household() == .alone, "the owner alone, unnamed")
        #expect(try store.meals(on: tuesday).map(\.person) == [.first, .first])
        let owner = try store.dayTotals(of: .first, from: monday, to: tuesday)
        #expect(owner[monday]?.totals.calories == 500 && owner[tuesday]?.totals.calories == 750)
        #expect(owner[tuesday]?.meals == 2)
        #expect(try store.runtimeSettings().goals == goals, "the owner's goals stay the station's")
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("should add people up to eight, change them, and keep the owner's goals out of the table")
    func addAndChange() throws {
        let store = try StationStore(directory: folder.path)
        let ben = try store.addPerson(
            name: "Ben", colour: .blue, goals: Macros(calories: 2_500, protein: 140, carbs: 300, fats: 80), aiShare: 3
        ).get()
        #expect(ben != .first)
        for index in 0..<6 {
            _ = try store.addPerson(name: "P\(index)", colour: .green, goals: nil, aiShare: nil).get()
        }
        #expect(try store.addPerson(name: "Ninth", colour: .red, goals: nil, aiShare: nil) == .failure(.full))
        var household = try store.household()
        #expect(household.people.count == StationStore.mostPeople)
        #expect(household.person(ben)?.goals?.calories == 2_500 && household.person(ben)?.aiShare == 3)
        var owner = try #require(household.person(.first))
        owner.name = "Anna"
        owner.goals = Macros(calories: 1, protein: 1, carbs: 1, fats: 1)
        #expect(try store.updatePerson(owner) == nil)
        household = try store.household()
        #expect(household.person(.first)?.name == "Anna")
        #expect(household.person(.first)?.goals == nil, "the owner's goals are the station's settings")
        #expect(try store.updatePerson(Person(id: PersonID(rawValue: 99), name: "X", colour: .red)) == .missing)
    }

    @Test("should move a meal to another person at its version, with both people's days following")
    func moveMeal() throws {
        let store = try StationStore(directory: folder.path)
        let ben = try store.addPerson(name: "Ben", colour: .blue, goals: nil, aiShare: nil).get()
        let soup = try meal(store, "soup", on: tuesday, kcal: 300)
        _ = try meal(store, "bread", on: tuesday, kcal: 200, person: ben)
        let version = try #require(try store.storedMeal(soup.photo.id)).version
        #expect(try store.moveMeal(soup.photo.id, to: ben, version: version + 1) == .failure(.changed))
        #expect(try store.moveMeal(soup.photo.id, to: PersonID(rawValue: 42), version: version) == .failure(.missing))
        #expect(try store.moveMeal(soup.photo.id, to: ben, version: version) == .success(version + 1))
        #expect(try store.dayTotals(of: ben, from: tuesday, to: tuesday)[tuesday]?.totals.calories == 500)
        #expect(try store.dayTotals(of: .first, from: tuesday, to: tuesday)[tuesday] == nil)
        #expect(try store.dayTotals(from: tuesday, to: tuesday)[tuesday]?.totals.calories == 500, "the household's")
    }

    @Test("should give a removed person's meals to the owner, and never remove the owner")
    func remove() throws {
        let store = try StationStore(directory: folder.path)
        let ben = try store.addPerson(name: "Ben", colour: .blue, goals: nil, aiShare: nil).get()
        _ = try meal(store, "bread", on: monday, kcal: 200, person: ben)
        _ = try meal(store, "soup", on: tuesday, kcal: 300, person: ben)
        #expect(try store.removePerson(.first) == .failure(.owner))
        #expect(try store.removePerson(ben) == .success(2))
        #expect(try store.removePerson(ben) == .failure(.missing))
        #expect(try store.household() == .alone)
        #expect(try store.meals(on: tuesday).map(\.person) == [.first])
        #expect(
            try store.dayTotals(of: .first, from: monday, to: tuesday).mapValues(\.totals.calories) == [
                monday: 200, tuesday: 300,
            ])
        #expect(try store.dayTotals(of: ben, from: monday, to: tuesday).isEmpty)
    }

    @Test("should count each answer for the person it was asked for, beside the station's count")
    func countsEachPerson() throws {
        let store = try StationStore(directory: folder.path)
        let lena = try store.addPerson(name: "Lena", colour: .teal, goals: nil, aiShare: 2).get()
        let photo = try meal(store, "m1", on: tuesday, kcal: 300).photo
        try store.queueAnalysis(photo, day: tuesday, now: noon, person: lena)
        #expect(try store.dueAnalyses(now: noon).due.map(\.person) == [lena], "the queue knows whose it is")
        try store.recordAnswer(
            photo.id, MealAnalysis(title: "Soup", totals: .zero, items: []), usedOn: tuesday)
        #expect(try store.pendingReviews().map(\.person) == [lena], "and so does its answer, waiting for review")
        let refused = try meal(store, "m2", on: tuesday, kcal: 200).photo
        try store.queueAnalysis(refused, day: tuesday, now: noon, person: lena)
        try store.failAnalysis(refused.id, error: "refused", nextAttempt: nil, answeredOn: tuesday)
        try store.recordAIUse(on: tuesday, person: .first)
        try store.recordAIUse(on: monday, person: lena)
        #expect(try store.aiUses(on: tuesday) == 3, "the station's count is everyone's")
        #expect(try store.personAIUses(on: tuesday) == [lena: 2, .first: 1])
        #expect(try store.personAIUses(on: monday) == [lena: 1])
        let snapshot = try store.snapshot(groups: [], day: tuesday)
        #expect(snapshot.personAIUses[tuesday] == [lena: 2, .first: 1], "the machine starts with them")
    }
}
