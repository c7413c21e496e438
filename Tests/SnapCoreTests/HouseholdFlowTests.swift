import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: whose meal it is, picked with the mode button")
struct HouseholdFlowTests {
    static let anna = Person(id: .first, name: "Anna", colour: .orange)
    static let ben = Person(id: PersonID(rawValue: 2), name: "Ben", colour: .blue)
    static let cleo = Person(id: PersonID(rawValue: 5), name: "Cleo", colour: .green)

    private func script(_ people: [Person], holds: Duration = .seconds(600)) -> StationScript {
        var settings = Fixture.settings(mode: .meal)
        settings.choiceHolds = holds
        settings.jarDays = 1
        var snapshot = StationSnapshot()
        snapshot.household = Household(people)
        return StationScript(settings: settings, snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
    }

    private func result(_ script: inout StationScript, id: String) -> ProcessedPhoto {
        let photo = Fixture.capture(&script, id: id)
        script.send(.analysed(photo.id, Fixture.analysis))
        return photo
    }

    /// The countdown runs out, the shot is taken, processed and analysed: the result sheet.
    private func shot(_ script: inout StationScript, id: String) {
        script.advance(seconds: 3)
        script.send(.captured(PhotoID(id)))
        let photo = Samples.photo(id, at: script.clock.now.wall)
        script.send(.processed(photo))
        script.send(.analysed(photo.id, Fixture.analysis))
    }

    private func saved(_ actions: [Action]) -> Meal? {
        actions.lazy.compactMap { if case .saveMeal(let meal) = $0 { meal } else { nil } }.first
    }

    @Test("should name nobody and save for the owner when one person shares the station; the mode button is the menu's")
    func alone() throws {
        var script = script([])
        _ = result(&script, id: "p1")
        #expect(script.screen?.isMealResult == true)
        #expect(script.screen?.mealResultPerson == nil)
        #expect(script.press(.mode).isEmpty, "the result sheet has no round to go on")
        #expect(saved(script.press())?.person == .first)
    }

    @Test("should go round the people on the result sheet, save for the one shown, and keep the pick for the next meal")
    func picksOnTheResult() throws {
        var script = script([Self.anna, Self.ben, Self.cleo])
        _ = result(&script, id: "p1")
        #expect(script.screen?.mealResultPerson == Self.anna, "the owner first")
        let picked = script.press(.mode)
        #expect(picked.contains(.show(script.machine.screen(now: script.clock.now))))
        #expect(!picked.contains { if case .startTimer = $0 { true } else { false } }, "the sheet's count runs on")
        #expect(script.screen?.mealResultPerson == Self.ben)
        script.press(.mode)
        #expect(script.screen?.mealResultPerson == Self.cleo)
        script.press(.mode)
        #expect(script.screen?.mealResultPerson == Self.anna, "after the last, the first again")
        script.press(.mode)
        #expect(saved(script.press())?.person == Self.ben.id)

        // Five minutes later the next meal is still Ben's, and its countdown says so.
        script.advance(seconds: 300)
        script.press()
        #expect(script.screen?.countdownPerson == Self.ben)
        shot(&script, id: "p2")
        #expect(saved(script.press())?.person == Self.ben.id)
    }

    @Test("should pick during the countdown, and fall back to the owner once the pick has held its while")
    func pickExpires() throws {
        var script = script([Self.anna, Self.ben], holds: .seconds(600))
        script.press()
        script.press(.mode)
        #expect(script.screen?.countdownPerson == Self.ben)
        shot(&script, id: "p1")
        #expect(saved(script.press())?.person == Self.ben.id)
        // The pick holds ten minutes from the meal saved, not from the press.
        script.advance(seconds: 601)
        _ = result(&script, id: "p2")
        #expect(script.screen?.mealResultPerson == Self.anna)
        #expect(saved(script.press())?.person == .first)
    }

    @Test("should go back to the owner after every meal when the pick holds no while (choice_minutes = 0)")
    func noHold() throws {
        var script = script([Self.anna, Self.ben], holds: .zero)
        _ = result(&script, id: "p1")
        script.press(.mode)
        script.advance(seconds: 5)
        #expect(script.screen?.mealResultPerson == Self.ben, "the pick holds until its meal is saved")
        #expect(saved(script.press())?.person == Self.ben.id)
        _ = result(&script, id: "p2")
        #expect(script.screen?.mealResultPerson == Self.anna)
    }

    @Test(
        "should show the picked person's day on the ready screen against their goals, and the owner's once the pick runs out"
    )
    func readyScreenFollowsThePick() throws {
        var ben = Self.ben
        ben.goals = Macros(calories: 2_500, protein: 140, carbs: 300, fats: 80)
        var script = script([Self.anna, ben], holds: .seconds(600))
        _ = result(&script, id: "p1")
        script.press(.mode)
        script.press()
        let ready = try #require(script.screen?.ready)
        #expect(ready.person == ben && ready.goals == ben.goals && ready.totals == Fixture.analysis.totals)
        #expect(ready.jar?.stickers.map(\.person) == [ben], "the sticker marked as Ben's")
        // Ten minutes after the meal was saved, the station's timer brings the owner's day back by itself.
        script.advance(seconds: 600)
        let owners = try #require(script.screen?.ready)
        #expect(owners.person == Self.anna && owners.totals == .zero)
        #expect(owners.goals == script.machine.inForce.goals, "the owner's goals are the station's")
    }

    @Test("should follow the household the page changed: a removed person's pick goes to the owner, a new name shows")
    func householdChanges() throws {
        var script = script([Self.anna, Self.ben])
        _ = result(&script, id: "p1")
        script.press(.mode)
        var renamed = Self.ben
        renamed.name = "Benjamin"
        let shown = script.send(.householdChanged(Household([Self.anna, renamed])))
        #expect(shown.contains { if case .show = $0 { true } else { false } })
        #expect(script.screen?.mealResultPerson == renamed)
        script.send(.householdChanged(Household([Self.anna])))
        #expect(script.screen?.isMealResult == true)
        #expect(script.screen?.mealResultPerson == nil, "one person again: nobody named")
        #expect(saved(script.press())?.person == .first)
    }

    @Test("should keep the owner first and go round in the store's order; names are printable and short")
    func household() {
        let household = Household([Self.cleo, Self.ben, Self.anna])
        #expect(household.people.map(\.id) == [.first, Self.cleo.id, Self.ben.id])
        #expect(household.next(after: Self.ben.id) == .first)
        #expect(household.next(after: PersonID(rawValue: 9)) == .first, "someone removed: the owner")
        #expect(Household([]).people.map(\.id) == [.first])
        #expect(household.unusedColour == .purple)
        #expect(PersonName.parse("  Lea\u{202E}  ") == "Lea")
        #expect(PersonName.parse("\n\t") == nil)
        #expect(PersonName.parse(String(repeating: "a", count: 25)) == nil)
        #expect(PersonName.parse(String(repeating: "a", count: 24))?.count == 24)
        #expect(PersonColour.yellow.css == "#f59f00")
    }

    @Test("should keep a photo whose person has used their share, and analyse it for the next person the mode gives it")
    func shareUsed() throws {
        var ben = Self.ben
        ben.aiShare = 1
        var settings = Fixture.settings(mode: .meal)
        settings.choiceHolds = .seconds(600)
        var snapshot = StationSnapshot()
        snapshot.household = Household([Self.anna, ben])
        snapshot.personAIUses = [LocalDay(year: 2026, month: 3, day: 10): [ben.id: 1]]
        var script = StationScript(settings: settings, snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        script.press()
        script.press(.mode)
        #expect(script.screen?.countdownPerson == ben)
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("p1")))
        let photo = Samples.photo("p1", at: script.clock.now.wall)
        let used = script.send(.processed(photo))
        #expect(!used.contains { if case .analyse = $0 { true } else { false } }, "Ben's share asks nothing")
        guard case .problem(let problem)? = script.screen, case .shareUsed(let who) = problem.kind else {
            Issue.record("not the share's screen: \(String(describing: script.screen))")
            return
        }
        #expect(who == ben && problem.photo == photo, "the photo kept, the screen names Ben")
        #expect(
            script.press().isEmpty == false && script.screen?.isShareUsed == true, "a press asks again: still Ben's")
        let given = script.press(.mode)
        let today = LocalDay(year: 2026, month: 3, day: 10)
        #expect(given.contains(.analyse(photo, day: today, person: .first)), "the mode gives it to Anna: \(given)")
        script.send(.analysed(photo.id, Fixture.analysis))
        #expect(script.screen?.mealResultPerson == Self.anna)
        #expect(script.machine.personUses[today] == [ben.id: 1, .first: 1], "counted for Anna, whose it was")
        // The page's answers count for the person they were for.
        script.send(.answeredForThePage(day: today, person: ben.id))
        #expect(script.machine.personUses[today]?[ben.id] == 2)
    }

    @Test("should show a queued answer as the meal of whom it was asked for, count it for them, and pass it on")
    func queuedAnswer() throws {
        var script = script([Self.anna, Self.ben, Self.cleo])
        let today = LocalDay(year: 2026, month: 3, day: 10)
        let review = MealReview(
            photo: Samples.photo("late"), day: today, analysis: Fixture.analysis, person: Self.ben.id)
        script.send(.analysisAnswered(review))
        #expect(
            script.screen?.mealResultPerson == Self.ben,
            "Ben's, though nobody is picked: \(String(describing: script.screen))")
        #expect(script.machine.personUses[today] == [Self.ben.id: 1], "counted for Ben, as the store counts it")
        // The mode button gives this meal to the next person; the pick for the next meals is not touched.
        script.press(.mode)
        #expect(script.screen?.mealResultPerson == Self.cleo)
        #expect(script.machine.pickedPerson(now: script.clock.now) == .first)
        let meal = try #require(saved(script.press()))
        #expect(meal.person == Self.cleo.id && meal.photo.id == PhotoID("late"))
        #expect(script.machine.pickedPerson(now: script.clock.now) == .first, "the next meal is still Anna's")
    }

    @Test("should let a used share's photo go with a hold")
    func shareUsedHold() throws {
        var ben = Self.ben
        ben.aiShare = 0
        var script = script([Self.anna, ben])
        script.press()
        script.press(.mode)
        _ = Fixture.capturedAfterCountdown(&script, id: "p1")
        #expect(script.screen?.isShareUsed == true, "a share of 0: Ben has none")
        script.press(.hold)
        #expect(script.screen?.name == "ready")
    }
}

extension Screen {
    var isMealResult: Bool {
        if case .mealResult = self { return true }
        return false
    }
    var mealResultPerson: Person? {
        if case .mealResult(let sheet) = self { return sheet.person }
        return nil
    }
    var countdownPerson: Person? {
        if case .countdown(let screen) = self { return screen.person }
        return nil
    }
}

extension Screen {
    var isShareUsed: Bool {
        if case .problem(let problem) = self, case .shareUsed = problem.kind { true } else { false }
    }
}
