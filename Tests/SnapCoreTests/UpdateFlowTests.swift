import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: an update's note and its restart at an idle moment")
struct UpdateFlowTests {
    private func restarts(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .restartForUpdate(let version) = $0 { version } else { nil } }
    }

    @Test("should show the install's progress on the ready screen and restart at once when idle")
    func restartsWhenIdle() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(.update(.installing(version: "2.0.0", percent: 40)))
        #expect(script.screen?.ready?.update == .installing(version: "2.0.0", percent: 40))
        #expect(script.screen?.caption.contains("update: installing 2.0.0 40%") == true)
        let installed = script.send(.update(.restarting(version: "2.0.0")))
        #expect(restarts(installed) == ["2.0.0"], "the ready screen is idle: restart now")
        #expect(script.screen?.ready?.update == .restarting(version: "2.0.0"))
        // Asked once: the service saying it again changes nothing.
        #expect(restarts(script.send(.update(.restarting(version: "2.0.0")))).isEmpty)
    }

    @Test("should not restart during a countdown, a review or an upload, and restart with the next calm screen")
    func waitsForCalm() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.press()
        #expect(script.screen?.countdownSeconds == 3)
        #expect(restarts(script.send(.update(.restarting(version: "2.0.0")))).isEmpty, "not in a countdown")
        var asked: [String] = []
        asked += restarts(script.advance(seconds: 3))
        asked += restarts(script.send(.captured(PhotoID("p1"))))
        asked += restarts(script.send(.processed(Samples.photo("p1"))))
        asked += restarts(script.advance(seconds: 3))
        asked += restarts(script.send(.uploadProgress(PhotoID("p1"), 0.5)))
        #expect(asked.isEmpty, "not while the photo is taken, reviewed and sent")
        asked += restarts(script.send(.uploaded(PhotoID("p1"))))
        #expect(asked.isEmpty, "not on the 'Sent' screen a person is looking at")
        let lock = script.advance(seconds: 3)
        #expect(script.screen?.lock != nil)
        #expect(restarts(lock) == ["2.0.0"], "the lock screen is calm")
    }

    @Test("should show a backup's progress on the ready screen, keep taking photos meanwhile, and drop it at its end")
    func backupProgress() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.send(.backup(.making(percent: 35)))
        #expect(script.screen?.ready?.backup == .making(percent: 35))
        #expect(script.screen?.caption.contains("backup: making 35%") == true)
        #expect(script.send(.backup(.making(percent: 35))).isEmpty, "the same note again draws nothing")
        script.press()
        #expect(script.screen?.countdownSeconds == 3, "a photo is taken during a backup")
        #expect(script.send(.backup(.checking(percent: 60))).isEmpty, "the countdown is not redrawn for it")
        #expect(script.machine.backup == .checking(percent: 60))
        // The camera fails: the problem is shown; a press puts it away, and the ready screen has the note as
        // it is now.
        script.advance(seconds: 3)
        script.send(.captureFailed("the camera stopped"))
        #expect(script.screen?.ready == nil)
        script.press()
        #expect(
            script.screen?.ready?.backup == .checking(percent: 60),
            "back at rest, the note as it is now: \(script.screen?.caption ?? "")")
        script.send(.backup(nil))
        #expect(script.screen?.ready?.backup == nil)
        #expect(script.screen?.caption.contains("backup:") == false)
    }

    @Test("should restart to use keys entered on the page at the next calm screen, once")
    func keysWaitForCalm() {
        func restartsForKeys(_ actions: [Action]) -> Int { actions.filter { $0 == .restartForChanges }.count }
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        script.press()
        #expect(restartsForKeys(script.send(.startChanged)) == 0, "not in a countdown")
        var asked = restartsForKeys(script.advance(seconds: 3))
        asked += restartsForKeys(script.send(.captured(PhotoID("p1"))))
        asked += restartsForKeys(script.send(.processed(Samples.photo("p1"))))
        #expect(asked == 0, "not while the photo is taken and reviewed")
        asked += restartsForKeys(script.advance(seconds: 3))
        asked += restartsForKeys(script.send(.uploaded(PhotoID("p1"))))
        #expect(asked == 0, "nor while it is sent")
        #expect(restartsForKeys(script.advance(seconds: 3)) == 1, "the lock screen is calm")
        #expect(restartsForKeys(script.advance(seconds: 60)) == 0, "asked once")

        var calm = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        #expect(restartsForKeys(calm.send(.startChanged)) == 1, "at once on the ready screen")
    }

    @Test("should restart for a time zone or an AI service from the settings form, for a walk-through's at its end")
    func startSettings() {
        func restarts(_ actions: [Action]) -> Int { actions.filter { $0 == .restartForChanges }.count }
        func form(_ owner: RuntimeSettings) -> Event { .settingsChanged(.form(owner, mode: nil)) }
        func step(_ owner: RuntimeSettings) -> Event { .settingsChanged(.part(owner, keys: [.timeZone])) }
        let tokyo = RuntimeSettings(timeZone: "Asia/Tokyo")
        var settings = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        #expect(restarts(settings.send(form(RuntimeSettings(countdownSeconds: 5)))) == 0, "taken at once")
        #expect(restarts(settings.send(form(tokyo))) == 1, "at once on the ready screen")
        #expect(settings.machine.inForce.timeZone == "Asia/Tokyo" && settings.machine.started.timeZone.isEmpty)

        var walk = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        #expect(restarts(walk.send(step(tokyo))) == 0, "the walk-through goes on to its next step")
        #expect(walk.machine.inForce.timeZone == "Asia/Tokyo")
        #expect(restarts(walk.send(.startChanged)) == 1, "its end")
        var left = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        _ = left.send(step(tokyo))
        // A walk-through left halfway: the settings form saved later restarts into the zone it set.
        #expect(restarts(left.send(form(tokyo))) == 1, "other than the zone it started with")
        var back = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        _ = back.send(step(tokyo))
        #expect(restarts(back.send(form(RuntimeSettings()))) == 0, "back to the zone it started with")
    }

    @Test("should say on the ready screen that an update did not start")
    func rolledBack() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let told = script.send(.update(.rolledBack(tried: "2.0.0", running: "1.0.0")))
        #expect(restarts(told).isEmpty)
        #expect(script.screen?.caption.contains("update: 2.0.0 did not start, running 1.0.0") == true)
    }
}
