import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: a factory reset asked on the page and confirmed at the station")
struct ResetFlowTests {
    private func resets(_ actions: [Action]) -> [[String]] {
        actions.compactMap { if case .factoryReset(let groups) = $0 { groups } else { nil } }
    }

    private func asking(_ script: StationScript) -> Int? {
        if case .reset(let reset)? = script.screen { return reset.secondsLeft }
        return nil
    }

    @Test("should ask at the station, erase only on the long hold, and ignore every button while erasing")
    func longHoldErases() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(.resetAsked)
        #expect(asking(script) == StationMachine.resetSeconds)
        #expect(script.screen?.name == "reset-confirm")
        #expect(resets(script.press(.hold)).isEmpty, "the hold on the way to the long hold erases nothing")
        #expect(asking(script) == StationMachine.resetSeconds)
        script.advance(seconds: 4)
        #expect(asking(script) == StationMachine.resetSeconds - 4, "the question counts down")
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
        #expect(resets(script.advance(seconds: Double(StationMachine.resetSeconds) + 1)).isEmpty)
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
}
