import Foundation
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@testable import SnapStore

@Suite("StationStore: each day's totals, kept as meals are written")
struct DayTotalsTests {
    let folder = TemporaryDirectory("store-day-totals")

    private func meal(_ id: String, _ day: LocalDay, kcal: Int) -> Meal {
        Meal(
            photo: ProcessedPhoto(id: PhotoID(id), photoPath: "", thumbnailPath: "", takenAt: Date()), day: day,
            analysis: MealAnalysis(
                title: id, totals: Macros(calories: kcal, protein: kcal / 20, carbs: kcal / 10, fats: kcal / 30),
                items: []))
    }

    /// The totals as the meals of each day add up, read back meal by meal.
    private func summed(_ store: StationStore, _ days: [LocalDay]) throws -> [LocalDay: (meals: Int, totals: Macros)] {
        var totals: [LocalDay: (meals: Int, totals: Macros)] = [:]
        for day in days {
            let meals = try store.meals(on: day)
            if !meals.isEmpty { totals[day] = (meals.count, meals.reduce(.zero) { $0 + $1.analysis.totals }) }
        }
        return totals
    }

    @Test("should keep each day's totals through meals saved, saved again, edited, discarded and deleted")
    func keptThroughEveryWrite() throws {
        let store = try StationStore(directory: folder.path)
        let monday = LocalDay(year: 2026, month: 11, day: 23)
        let tuesday = monday.adding(days: 1)
        let days = [monday, tuesday]
        func check(_ step: String) throws {
            let kept = try store.dayTotals(from: monday, to: tuesday)
            let expected = try summed(store, days)
            #expect(kept.count == expected.count, "\(step): \(kept) against \(expected)")
            for (day, value) in expected {
                #expect(
                    kept[day]?.meals == value.meals && kept[day]?.totals == value.totals,
                    "\(step): \(day) \(String(describing: kept[day])) against \(value)")
            }
            #expect(try store.mealDays().map(\.day) == days.reversed().filter { expected[$0] != nil }, "\(step)")
        }
        try store.saveMeal(meal("a", monday, kcal: 600))
        try store.saveMeal(meal("b", monday, kcal: 400))
        try store.saveMeal(meal("c", tuesday, kcal: 900))
        try check("three saved")
        try store.saveMeal(meal("b", monday, kcal: 450))  // the station saves a result again: replaced
        try check("one saved again")
        let stored = try #require(try store.storedMeal(PhotoID("a")))
        var edited = stored.meal.analysis
        edited.totals.calories = 123
        #expect(
            try store.editMeal(PhotoID("a"), edited, totalsSetByOwner: true, version: stored.version) == .success(2))
        try check("one edited")
        #expect(try store.deleteMeal(PhotoID("c")))
        try check("tuesday's only meal deleted")
        #expect(try store.dayTotals(from: tuesday, to: tuesday).isEmpty && store.mealDays().map(\.day) == [monday])
    }

    @Test("should read History's day, days and totals at once as the three reads of their own say them")
    func historyInOneRead() throws {
        let store = try StationStore(directory: folder.path)
        let utc = try #require(TimeZone(identifier: "UTC"))
        let monday = LocalDay(year: 2026, month: 11, day: 23)
        for (index, day) in (0..<10).map({ monday.adding(days: $0 * 4) }).enumerated() {
            try store.saveMeal(meal("m\(index)", day, kcal: 300 + index * 10))
        }
        // The clock set back before the last meal's day: the station's day is that day, not the clock's.
        let clock = Date(timeIntervalSince1970: 1_764_000_000)  // 2025-11-24
        let history = try store.mealHistory(limit: 5, span: 30, in: utc, at: clock)
        let today = try store.stationDay(in: utc).today(at: clock)
        #expect(today == monday.adding(days: 36) && history.today == today)
        #expect(history.days.map(\.day) == (try store.mealDays(limit: 5)).map(\.day))
        #expect(history.days.map(\.calories) == [390, 380, 370, 360, 350])
        let totals = try store.dayTotals(from: today.adding(days: -29), to: today)
        #expect(history.totals == totals.mapValues(\.totals) && totals.count == 8)
    }
}
