import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the owner's page")
struct OwnersPageFlowTests {
    private func script(mode: StationMode = .meal, page: Bool = true) -> StationScript {
        var settings = Fixture.settings(mode: mode)
        settings.ownersPage = page
        return StationScript(settings: settings, startingAt: "2026-03-10 12:00:00")
    }

    private var pairing: Pairing {
        Pairing(
            url: "http://192.168.1.20:8080/pair", code: "123456",
            expiresAt: ManualClock.date("2026-03-10 12:05:00", in: Samples.berlin))
    }

    @Test("should open the pairing screen on the 5 s hold, take back the mode switch the hold made, show the code")
    func pairHoldOpens() throws {
        var script = script(mode: .meal)
        script.press(.hold)  // the first 0.8 s of the same press: the mode switches
        #expect(script.machine.mode == .group)
        let opened = script.press(.pairHold)
        #expect(opened.contains(.openPairing))
        #expect(script.machine.mode == .meal, "the hold on its way to pairing is not a mode switch")
        #expect(script.screen == .pairing(PairingScreen(pairing: nil, remaining: nil)))
        script.send(.pairingOpened(pairing))
        #expect(script.screen == .pairing(PairingScreen(pairing: pairing, remaining: .seconds(300))))
        script.advance(seconds: 60)
        #expect(script.screen == .pairing(PairingScreen(pairing: pairing, remaining: .seconds(240))))
    }

    @Test("should close on a press, on expiry, and a few seconds after a browser paired")
    func closes() throws {
        var pressed = script()
        pressed.press(.pairHold)
        pressed.send(.pairingOpened(pairing))
        let closing = pressed.press()
        #expect(pressed.screen?.ready != nil)
        #expect(!pressed.actions.contains(.capture), "the press that closes takes no photo")
        #expect(closing.contains(.closePairing), "the code no longer pairs once the screen is gone")

        var renewed = script()
        renewed.press(.pairHold)
        renewed.send(.pairingOpened(pairing))
        var next = pairing
        next.code = "87654321"
        let replaced = renewed.send(.pairingOpened(next))
        #expect(renewed.screen == .pairing(PairingScreen(pairing: next, remaining: .seconds(300))))
        #expect(!replaced.contains(.closePairing), "a new code on the same screen")

        var expired = script()
        expired.press(.pairHold)
        expired.send(.pairingOpened(pairing))
        expired.advance(seconds: 301)
        #expect(expired.screen?.ready != nil)
        #expect(expired.actions.contains(.closePairing))

        var paired = script()
        paired.press(.pairHold)
        paired.send(.pairingOpened(pairing))
        paired.send(.paired("Firefox on Android"))
        #expect(
            paired.screen
                == .pairing(
                    PairingScreen(pairing: pairing, remaining: .seconds(300), note: .paired("Firefox on Android"))))
        paired.advance(seconds: 4)
        #expect(paired.screen?.ready != nil)
    }

    @Test("should forget every paired browser on a hold at the pairing screen")
    func holdForgets() {
        var script = script()
        script.press(.pairHold)
        script.send(.pairingOpened(pairing))
        let forgot = script.press(.hold)
        #expect(forgot.contains(.forgetPairedBrowsers))
        #expect(script.machine.mode == .meal)
        if case .pairing(let screen)? = script.screen {
            #expect(screen.note == .forgotten)
        } else {
            Issue.record("expected the pairing screen, got \(String(describing: script.screen))")
        }
    }

    @Test("should not pair from the middle of a capture, nor when the page is off")
    func notEverywhere() {
        var busy = script()
        busy.press()
        #expect(busy.press(.pairHold).isEmpty)
        #expect(busy.screen?.countdownSeconds != nil)
        var off = script(page: false)
        let actions = off.press(.pairHold)
        #expect(!actions.contains(.openPairing))
        #expect(off.screen?.ready != nil)
    }

    @Test("should apply the owner's settings: countdown, flash, dietary flags, mode; the shell's through an action")
    func settings() throws {
        var script = script(mode: .meal)
        let owner = RuntimeSettings(
            dietaryPreferences: [.glutenFree], filter: .mono, intensity: 0.5, flash: false, countdownSeconds: 5,
            mode: .group)
        let actions = script.send(.settingsChanged(.form(owner, mode: .group)))
        #expect(actions.contains(.applySettings(script.machine.settings.owner.inForce(owner))))
        #expect(script.machine.inForce.filter == .mono && script.machine.inForce.intensity == 0.5)
        #expect(script.machine.mode == .group)
        #expect(script.screen?.ready?.mode == .group)
        script.send(
            .settingsChanged(
                .form(
                    RuntimeSettings(dietaryPreferences: [.glutenFree], flash: false, countdownSeconds: 5, mode: .meal),
                    mode: .meal)))
        #expect(script.machine.mode == .meal)
        script.press()
        #expect(script.screen?.countdownSeconds == 5)
        script.advance(seconds: 5)
        #expect(!script.flashOn && !script.actions.contains(.setFlash(on: true)))
        script.send(.captured(PhotoID("p1")))
        let photo = Samples.photo("p1", at: script.clock.now.wall)
        script.send(.processed(photo))
        script.send(.analysed(photo.id, Fixture.analysis))
        guard case .mealResult(let sheet)? = script.screen else {
            Issue.record("expected the result sheet")
            return
        }
        #expect(sheet.clashes == [[.glutenFree], [], []])
        // Back to the config's.
        script.send(.settingsChanged(.form(RuntimeSettings(), mode: nil)))
        #expect(script.machine.inForce == script.machine.settings.owner.defaults)
    }

    @Test("should show today's meals as the page left them, and save or discard the result from the page")
    func mealsAndReview() throws {
        var script = script(mode: .meal)
        let photo = Fixture.capture(&script)
        script.send(.analysed(photo.id, Fixture.analysis))
        var edited = Fixture.analysis
        edited.totals.calories = 500
        let saved = script.send(.reviewSubmitted(photo.id, edited))
        #expect(saved.contains(.saveMeal(Meal(photo: photo, day: Fixture.day, analysis: edited))))
        #expect(script.screen?.ready?.totals.calories == 500)
        // An edit of today's meals on the page.
        var lighter = Meal(photo: photo, day: Fixture.day, analysis: edited)
        lighter.analysis.totals.calories = 420
        let older = Meal(photo: Samples.photo("old"), day: LocalDay(year: 2026, month: 3, day: 9), analysis: edited)
        script.send(.mealsChanged(day: Fixture.day, [lighter, older]))
        #expect(script.screen?.ready?.totals.calories == 420)
        script.send(.mealsChanged(day: Fixture.day, []))
        #expect(script.screen?.ready?.totals == .zero)
        // Discarded from the page.
        let second = Fixture.capture(&script, id: "p2")
        script.send(.analysed(second.id, Fixture.analysis))
        let discarded = script.send(.reviewSubmitted(second.id, nil))
        #expect(discarded.contains(.discardMeal(second.id)))
        #expect(script.screen?.ready?.totals == .zero)
        // A decision for a result no longer shown does nothing.
        #expect(script.send(.reviewSubmitted(second.id, Fixture.analysis)).isEmpty)
    }

    @Test(
        "should follow the groups made, joined and left on the page: group mode from the first, the same group kept active, meal after the last"
    )
    func groupsOnThePage() throws {
        var settings = Fixture.settings(mode: .meal, group: nil)
        settings.ownersPage = true
        var script = StationScript(settings: settings, startingAt: "2026-03-10 12:00:00")
        script.press(.hold)
        #expect(script.machine.mode == .meal, "no group: the mode stays meal")

        script.send(.settingsChanged(.joined("Family")))
        script.press(.hold)
        #expect(script.machine.mode == .group && script.machine.activeGroup == "Family", "the first group joined")

        script.send(.settingsChanged(.joined("Climbers")))
        script.press(.hold)
        #expect(script.machine.activeGroup == "Climbers")
        script.send(.settingsChanged(.left("Family")))
        #expect(script.machine.activeGroup == "Climbers", "leaving another group keeps the one on screen")
        script.send(.settingsChanged(.joined("Family")))
        #expect(script.machine.inForce.groups == ["Climbers", "Family"], "joined after the others")
        #expect(script.machine.activeGroup == "Climbers", "joining another group keeps the one on screen")
        #expect(script.screen?.ready?.mode == .group)

        // Left while its photo waits for review: the photo is shared nowhere else.
        script.press()
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("g1")))
        script.send(.processed(Samples.photo("g1", at: script.clock.now.wall)))
        guard case .groupReview(let review)? = script.screen else {
            Issue.record("expected the group review, not \(String(describing: script.screen))")
            return
        }
        #expect(review.group == "Climbers")
        let cancelled = script.send(.settingsChanged(.left("Climbers")))
        #expect(!cancelled.contains { if case .share = $0 { true } else { false } })
        #expect(cancelled.contains(.log(.notice, "sharing of g1 cancelled: the station left Climbers")))
        #expect(script.screen?.ready != nil)
        script.advance(seconds: 5)
        #expect(!script.actions.contains { if case .share = $0 { true } else { false } }, "nothing shared")

        let left = script.send(.settingsChanged(.left("Family")))
        #expect(script.machine.mode == .meal && script.machine.activeGroup == nil, "no group left: meal mode")
        #expect(left.contains(.log(.info, "mode switched to meal: the station is in no group now")))
        #expect(script.screen?.ready?.mode == .meal)
    }

    @Test("should say on the ready screen how to pair a phone while none is paired, and again once all are forgotten")
    func pairingHint() throws {
        var fresh = script()
        #expect(fresh.screen?.ready?.pairingHint == true, "a new station says how to reach its page")
        fresh.press(.pairHold)
        fresh.send(.pairingOpened(pairing))
        fresh.send(.paired("Phone"))
        fresh.advance(seconds: 4)
        #expect(fresh.screen?.ready?.pairingHint == false, "paired: the hint is gone")
        // Forgotten on the page: the station hears how many are left, and the ready screen says it again.
        fresh.send(.browsersForgotten(left: 1))
        #expect(fresh.screen?.ready?.pairingHint == false)
        let forgotten = fresh.send(.browsersForgotten(left: 0))
        #expect(forgotten.contains { if case .show(.ready(let ready)) = $0 { ready.pairingHint } else { false } })
        // Forgotten at the station (a hold on the pairing screen).
        var settings = Fixture.settings(mode: .meal)
        settings.ownersPage = true
        var kept = StationScript(
            settings: settings, snapshot: StationSnapshot(pairedBrowsers: 2), startingAt: "2026-03-10 12:00:00")
        #expect(kept.screen?.ready?.pairingHint == false, "paired before the start")
        kept.press(.pairHold)
        kept.press(.hold)
        kept.press()
        #expect(kept.screen?.ready?.pairingHint == true)
        // Without the owner's page there is nothing to pair.
        #expect(script(page: false).screen?.ready?.pairingHint == false)
    }
}
