import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: a factory reset or a restore asked on the page and confirmed at the station")
struct ResetFlowTests {
    private func resets(_ actions: [Action]) -> [[String]] {
        actions.compactMap { if case .factoryReset(let groups) = $0 { groups } else { nil } }
    }

    private func asking(_ script: StationScript) -> Int? {
        if case .question(let screen)? = script.screen, screen.question == .reset { return screen.secondsLeft }
        return nil
    }

    @Test("should ask at the station, erase only on the long hold, and ignore every button while erasing")
    func longHoldErases() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(.resetAsked)
        #expect(asking(script) == StationMachine.questionSeconds)
        #expect(script.screen?.name == "reset-confirm")
        #expect(resets(script.press(.hold)).isEmpty, "the hold on the way to the long hold erases nothing")
        #expect(asking(script) == StationMachine.questionSeconds)
        script.advance(seconds: 4)
        #expect(asking(script) == StationMachine.questionSeconds - 4, "the question counts down")
        let erased = script.press(.pairHold)
        #expect(resets(erased) == [["Family"]], "it leaves the groups in force")
        #expect(script.screen?.name == "reset-erasing")
        #expect(!script.machine.phase.isCalm, "no restart for an update or a restore while erasing")
        for gesture in ButtonGesture.allCases {
            #expect(script.press(gesture).isEmpty, "\(gesture) while erasing")
        }
        #expect(script.advance(seconds: 600).isEmpty, "the erasing screen stays until the station restarts")
        #expect(script.screen?.name == "reset-erasing")
    }

    @Test("should keep everything on a press, the mode button, or when nobody answers")
    func keptUnlessConfirmed() {
        for gesture in [ButtonGesture.press, .mode] {
            var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
            script.send(.resetAsked)
            #expect(resets(script.press(gesture)).isEmpty)
            #expect(script.screen?.ready != nil, "\(gesture) keeps everything and goes back to rest")
        }
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(.resetAsked)
        #expect(resets(script.advance(seconds: Double(StationMachine.questionSeconds) + 1)).isEmpty)
        #expect(script.screen?.ready != nil, "the question closes by itself")
        #expect(script.timers[.resetConfirm] == nil)
    }

    @Test("should not ask over a photo on its way, and show a storage failure of the erasing")
    func busyAndFailed() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.press()
        let asked = script.send(.resetAsked)
        #expect(asking(script) == nil, "not in a countdown")
        #expect(!asked.contains { if case .show = $0 { true } else { false } })
        script.advance(seconds: 3)
        #expect(asking(script) == nil)

        var erasing = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        erasing.send(.resetAsked)
        erasing.press(.pairHold)
        erasing.send(.storageFailed(.failed("open(erase-at-start): Read-only file system")))
        #expect(erasing.screen?.name == "error-storage-failed")
        erasing.press()
        #expect(erasing.screen?.ready != nil, "the station goes on, with everything kept")
    }

    @Test("should ask for the hold before a restore, restore only on it, and go on with what it has if it fails")
    func restoreAsksForTheHold() {
        func restores(_ actions: [Action]) -> [String] {
            actions.compactMap { if case .restore(let version) = $0 { version } else { nil } }
        }
        let asked = Event.restoreAsked(version: "1.4.0", created: LocalDay(year: 2026, month: 11, day: 30))
        var busy = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        busy.press()
        #expect(restores(busy.send(asked)).isEmpty && busy.screen?.name == "countdown", "not asked in a countdown")

        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(asked)
        #expect(script.screen?.name == "restore-confirm")
        #expect(restores(script.press(.hold)).isEmpty, "the hold on the way to the long hold restores nothing")
        #expect(restores(script.press()).isEmpty && script.screen?.ready != nil, "a press keeps everything")
        script.send(asked)
        #expect(restores(script.advance(seconds: Double(StationMachine.questionSeconds) + 1)).isEmpty)
        #expect(script.screen?.ready != nil, "nobody answered: kept")
        script.send(asked)
        #expect(restores(script.press(.pairHold)) == ["1.4.0"], "the long hold restores")
        #expect(script.screen?.name == "restoring" && !script.machine.phase.isCalm, "no update's restart meanwhile")
        #expect(script.press(.pairHold).isEmpty, "asked once")
        script.send(.restoreNotConfirmed)
        #expect(script.screen?.ready != nil, "the backup before it failed: the station goes on")
    }
}
