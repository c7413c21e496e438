import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the day's goals")
struct GoalsFlowTests {
    let config = Macros(calories: 2000, protein: 120, carbs: 0, fats: 70)

    private func script(locked: Set<RuntimeSettings.Key> = [], limit: Int = 10) -> StationScript {
        var settings = Fixture.settings(mode: .meal, limit: limit)
        settings.owner.defaults.goals = config
        settings.owner.locked = locked
        return StationScript(settings: settings, startingAt: "2026-03-10 20:00:00")
    }

    @Test("should show today's totals against the config's goals, and the owner's once the page changes them")
    func readyCarriesGoals() throws {
        var script = script()
        #expect(try #require(script.screen?.ready).goals == config)
        let photo = Fixture.capture(&script)
        script.send(.analysed(photo.id, Fixture.analysis))
        script.press()
        let ready = try #require(script.screen?.ready)
        #expect(ready.totals == Fixture.analysis.totals && ready.goals == config)
        #expect(Screen.ready(ready).caption.contains("goals 2000 kcal P 120 C 0 F 70"))
        let owner = Macros(calories: 1600, protein: 100, carbs: 180, fats: 50)
        let told = script.send(.settingsChanged(.form(RuntimeSettings(goals: owner), mode: nil)))
        #expect(try #require(script.screen?.ready).goals == owner)
        #expect(told.contains { if case .applySettings(let inForce) = $0 { inForce.goals == owner } else { false } })
    }

    @Test("should keep the config's goals when the config locks them")
    func lockedGoals() throws {
        var script = script(locked: [.goals])
        script.send(
            .settingsChanged(
                .form(RuntimeSettings(goals: Macros(calories: 1, protein: 1, carbs: 1, fats: 1)), mode: nil)))
        #expect(try #require(script.screen?.ready).goals == config)
    }

    @Test("should show the day's result on meal mode's lock: today's totals against the goals")
    func lockShowsTheDay() throws {
        var script = script(limit: 2)
        for id in ["a", "b"] {
            let photo = Fixture.capture(&script, id: id)
            script.send(.analysed(photo.id, Fixture.analysis))
            script.press()
        }
        let lock = try #require(script.screen?.lock)
        #expect(lock.reason == .aiLimit)
        #expect(lock.day == DayResult(totals: Fixture.analysis.totals + Fixture.analysis.totals, goals: config))
        #expect(Macros.progress(lock.day!.totals.calories, of: config.calories) != nil)
        #expect(Macros.progress(10, of: 0) == nil, "no goal, no progress")
    }

    @Test("should show the last seven days against the goal on the mode button's round, kept across a restart")
    func week() throws {
        var settings = Fixture.settings(mode: .meal)
        settings.owner.defaults.goals = config
        settings.groups = []
        settings.owner.cameras = ["Simulated"]
        settings.owner.locked = [.flash]
        // Meals of three days ago and of today, as the store hands them at a start.
        let earlier = Meal(photo: Samples.photo("old"), day: Fixture.day.adding(days: -3), analysis: Fixture.analysis)
        let today = Meal(photo: Samples.photo("new"), day: Fixture.day, analysis: Fixture.analysis)
        var script = StationScript(
            settings: settings, snapshot: StationSnapshot(latestDay: Fixture.day, meals: [earlier, today]),
            startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.ready?.totals == Fixture.analysis.totals, "today's totals are today's only")
        script.press(.mode)
        guard case .week(let week)? = script.screen else {
            Issue.record("expected the week, got \(String(describing: script.screen))")
            return
        }
        #expect(week.days.map(\.day) == (0..<7).map { Fixture.day.adding(days: $0 - 6) })
        #expect(
            week.days.map { $0.totals?.calories }
                == [nil, nil, nil, 650, nil, nil, 650].map { $0.map { _ in Fixture.analysis.totals.calories } })
        #expect(week.goals == config && week.average == Fixture.analysis.totals.calories)
        #expect(Screen.week(week).caption.hasSuffix("kcal · goal 2000"))
        // Nothing else to choose: the mode button goes on to meal; untouched, it closes after 20 s.
        script.press(.mode)
        #expect(script.screen?.ready != nil)
        script.press(.mode)
        #expect(script.screen?.name == "week")
        script.advance(seconds: 21)
        #expect(script.screen?.ready != nil)
    }
}
