import Foundation
import SnapCore
import SnapTestSupport

/// Settings and helpers shared by the state-machine scripts.
enum Fixture {
    static let day = LocalDay(year: 2026, month: 3, day: 10)

    static func settings(
        mode: StationMode = .group, ai: Bool = true, group: String? = "Family", limit: Int = 10,
        preferences: Set<DietaryPreference> = []
    ) -> StationSettings {
        StationSettings(
            timeZone: Samples.berlin, groups: group.map { [$0] } ?? [],
            owner: SettingsRule(
                defaults: SettingsInForce(dietaryPreferences: preferences, countdownSeconds: 3, mode: mode)),
            groupReviewSeconds: 3, mealAutoSaveSeconds: 20, sentLinger: .seconds(3), problemDismiss: .seconds(8),
            aiConfigured: ai, aiDailyLimit: limit)
    }

    static let analysis = MealAnalysis(
        title: "Pasta with cheese", totals: Macros(calories: 650, protein: 24, carbs: 80, fats: 22),
        items: [
            MealItem(
                name: "Spaghetti", grams: 200, macros: Macros(calories: 320, protein: 11, carbs: 64, fats: 2),
                contains: [.gluten]),
            MealItem(
                name: "Parmesan", grams: 30, macros: Macros(calories: 120, protein: 10, carbs: 1, fats: 9),
                contains: [.dairy, .lactose]),
            MealItem(
                name: "Tomato sauce", grams: 150, macros: Macros(calories: 210, protein: 3, carbs: 15, fats: 11)),
        ])

    /// Runs press → countdown → capture → processed, leaving the machine after `.processed`.
    static func capture(_ script: inout StationScript, id: String = "p1") -> ProcessedPhoto {
        script.press()
        return capturedAfterCountdown(&script, id: id)
    }

    /// The countdown started already: it runs out, and the shot is taken and processed.
    static func capturedAfterCountdown(_ script: inout StationScript, id: String = "p1") -> ProcessedPhoto {
        script.advance(seconds: 3)
        script.send(.captured(PhotoID(id)))
        let photo = Samples.photo(id, at: script.clock.now.wall)
        script.send(.processed(photo))
        return photo
    }
}

extension Screen {
    var countdownSeconds: Int? {
        if case .countdown(let screen) = self { return screen.secondsLeft }
        return nil
    }
    var ready: ReadyScreen? {
        if case .ready(let screen) = self { return screen }
        return nil
    }
    var lock: LockScreen? {
        if case .locked(let screen) = self { return screen }
        return nil
    }
    var idle: IdleScreen? {
        if case .idle(let screen) = self { return screen }
        return nil
    }
    var problem: ProblemScreen.Kind? {
        if case .problem(let screen) = self { return screen.kind }
        return nil
    }
}
