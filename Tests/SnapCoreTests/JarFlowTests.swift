import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("The jar: meal mode's ready screen")
struct JarFlowTests {
    func script(days: Int = 1, snapshot: StationSnapshot = StationSnapshot()) -> StationScript {
        var settings = Fixture.settings(mode: .meal)
        settings.jarDays = days
        return StationScript(settings: settings, snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
    }

    func meal(_ id: String, day: LocalDay = Fixture.day, title: String = "Pasta", fact: String? = nil) -> Meal {
        var analysis = Fixture.analysis
        analysis.title = title
        analysis.funFact = fact
        return Meal(photo: Samples.photo(id), day: day, analysis: analysis)
    }

    @Test("should show the jar instead of the live preview in meal mode, and a saved meal in it")
    func savedMealDropsIn() {
        var script = script()
        guard let jar = script.screen?.jar else {
            Issue.record("no jar on \(String(describing: script.screen))")
            return
        }
        #expect(jar.stickers.isEmpty && script.screen?.showsLivePreview == false)
        let photo = Fixture.capture(&script)
        script.send(.analysed(photo.id, Fixture.analysis))
        script.press()  // save
        #expect(script.screen?.jar?.stickers.map(\.id) == [photo.id])
        #expect(script.screen?.jar?.stickers.first?.title == "Pasta with cheese")
        // A press starts the countdown over the live preview, as before.
        script.press()
        #expect(script.screen?.countdownSeconds == 3 && script.screen?.showsLivePreview == true)
        // Group mode keeps the live preview.
        script.advance(seconds: 0.1)
        script.press(.hold)
        script.press(.hold)
        #expect(script.machine.mode == .group)
        #expect(script.screen?.jar == nil && script.screen?.showsLivePreview == true)
    }

    @Test("should cycle the details with the mode button, then on to the next mode; a press steps on and closes")
    func details() {
        let meals = [
            meal("a", title: "Soup", fact: "Soup is old."), meal("b", title: "Salad"), meal("c", title: "Cake"),
        ]
        var script = script(snapshot: StationSnapshot(latestDay: Fixture.day, meals: meals))
        #expect(script.screen?.jar?.highlighted == nil)
        script.press(.mode)
        #expect(script.screen?.jar?.highlighted == 0)
        #expect(script.screen?.jar?.stickers[0].funFact == "Soup is old.")
        #expect(script.screen?.jar?.stickers[1].funFact == nil, "a meal from before fun facts has none")
        script.press(.mode)
        #expect(script.screen?.jar?.highlighted == 1)
        script.press()  // a press while details show: the next one, not the countdown
        #expect(script.screen?.jar?.highlighted == 2 && script.screen?.countdownSeconds == nil)
        script.press()  // after the last one: closed
        #expect(script.screen?.jar?.highlighted == nil && script.screen?.ready != nil)
        script.press(.mode)
        script.press(.mode)
        script.press(.mode)
        #expect(script.screen?.jar?.highlighted == 2)
        script.press(.mode)  // after the last sticker: the next mode
        #expect(script.machine.mode == .group)
    }

    @Test("should close the details by themselves after a while")
    func detailsClose() {
        var script = script(snapshot: StationSnapshot(latestDay: Fixture.day, meals: [meal("a")]))
        script.press(.mode)
        #expect(script.screen?.jar?.highlighted == 0)
        script.advance(seconds: 10)
        #expect(script.screen?.jar?.highlighted == 0)
        script.advance(seconds: 6)
        #expect(script.screen?.jar?.highlighted == nil)
    }

    @Test("should hold the week's meals in a week's jar, and today's in today's")
    func week() {
        let earlier = LocalDay(year: 2026, month: 3, day: 5)
        let tooOld = LocalDay(year: 2026, month: 3, day: 3)
        let meals = [meal("old", day: tooOld), meal("w", day: earlier), meal("t")]
        var week = script(days: 7, snapshot: StationSnapshot(latestDay: Fixture.day, meals: meals))
        #expect(week.screen?.jar?.stickers.map(\.id.rawValue) == ["w", "t"])
        #expect(week.screen?.ready?.totals.calories == 650, "the totals stay today's")
        week.send(.mealsChanged(day: earlier, []))
        #expect(week.screen?.jar?.stickers.map(\.id.rawValue) == ["t"], "a meal deleted on the page leaves")
        let today = script(days: 1, snapshot: StationSnapshot(latestDay: Fixture.day, meals: meals))
        #expect(today.screen?.jar?.stickers.map(\.id.rawValue) == ["t"])
    }
}
