import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: modes, devices and errors")
struct ModeAndProblemTests {
    @Test("should switch between meal and group with a hold in ready and with the mode button")
    func switchModes() {
        var script = StationScript(settings: Fixture.settings(mode: .meal), startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.ready?.mode == .meal)
        script.press(.hold)
        #expect(script.screen?.ready?.mode == .group)
        script.advance(seconds: 0.1)
        script.press(.hold)
        #expect(script.screen?.ready?.mode == .meal)
        script.press(.mode)
        #expect(script.screen?.ready?.mode == .group)
        script.press(.mode)  // after the last group: the week, the settings menu (MenuFlowTests), then meal
        #expect(script.screen?.name == "week")
        script.press(.mode)
        #expect(script.screen?.name == "menu")
        script.press(.mode)
        #expect(script.screen?.ready?.mode == .meal)
    }

    @Test("should stay in meal mode when no group is configured")
    func noGroup() {
        var script = StationScript(
            settings: Fixture.settings(mode: .group, group: nil), startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.ready?.mode == .meal)
        script.press(.hold)
        #expect(script.screen?.ready?.mode == .meal)
    }

    @Test("should leave the group lock for meal mode with a hold")
    func leaveLockForMeals() {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.lock != nil)
        script.press(.hold)
        #expect(script.screen?.ready?.mode == .meal)
    }

    @Test("should cancel the countdown on a hold and put the flash out")
    func holdCancelsCountdown() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 2)
        #expect(script.flashOn)
        script.press(.hold)
        #expect(!script.flashOn)
        #expect(script.screen?.ready != nil)
        script.advance(seconds: 5)
        #expect(!script.actions.contains(.capture))
    }

    @Test("should ignore a timer that fires after it was cancelled")
    func staleTimer() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.press(.hold)
        script.advance(seconds: 1)
        #expect(script.machine.handle(.timerFired(.countdown), now: script.clock.now).isEmpty)
        #expect(script.screen?.ready != nil)
    }

    @Test("should show the camera error, ignore presses, and recover when the camera returns")
    func cameraMissing() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.send(.device(.camera, .missing("no camera found")))
        #expect(script.screen?.problem == .cameraMissing("no camera found"))
        #expect(!script.press().contains(.capture))
        script.send(.device(.camera, .available))
        #expect(script.screen?.ready != nil)
    }

    @Test("should stop a capture when the camera goes away during it")
    func cameraUnpluggedDuringCapture() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.device(.camera, .missing("USB camera unplugged")))
        #expect(script.screen?.problem == .cameraMissing("USB camera unplugged"))
        #expect(!script.flashOn)
    }

    @Test("should run on without buttons or flash and show them as missing on the ready screen")
    func otherDevicesMissing() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.send(.device(.buttons, .missing("gpiochip0 not found")))
        script.send(.device(.flash, .missing("line 27 busy")))
        #expect(script.screen?.ready?.missingDevices == [.buttons, .flash])
        script.send(.device(.buttons, .available))
        #expect(script.screen?.ready?.missingDevices == [.flash])
    }

    @Test("should show a failed capture and go back to ready on a press")
    func captureFailed() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.captureFailed("request timed out"))
        #expect(script.screen?.problem == .captureFailed("request timed out"))
        #expect(!script.flashOn)
        script.press()
        #expect(script.screen?.ready != nil)
    }

    @Test("should show a corrupt capture as a processing error")
    func processingFailed() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("p1")))
        script.send(.processingFailed(PhotoID("p1"), "JPEG data is truncated"))
        #expect(script.screen?.problem == .processingFailed("JPEG data is truncated"))
    }

    @Test("should show 'storage full' and recover on a press")
    func storageFull() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("p1")))
        script.send(.storageFailed(.full))
        #expect(script.screen?.problem == .storageFull)
        script.press()
        #expect(script.screen?.ready != nil)
    }

    @Test("should capture straight away when the countdown is zero seconds")
    func noCountdown() {
        var settings = Fixture.settings()
        settings.owner.defaults.countdownSeconds = 0
        var script = StationScript(settings: settings, startingAt: "2026-03-10 12:00:00")
        let actions = script.press()
        #expect(actions.contains(.capture))
        #expect(actions.contains(.setFlash(on: true)))
    }
}

@Suite("StationMachine: the quality gate")
struct QualityGateFlowTests {
    private func dark(_ id: String = "p1") -> ProcessedPhoto {
        var photo = Samples.photo(id)
        photo.quality = .tooDark
        return photo
    }

    private func capturedDark(mode: StationMode) -> StationScript {
        var script = StationScript(settings: Fixture.settings(mode: mode), startingAt: "2026-03-10 12:00:00")
        script.press()
        script.advance(seconds: 3)
        script.send(.captured(PhotoID("p1")))
        script.send(.processed(dark()))
        return script
    }

    @Test("should ask 'retake?' before analysing a photo that is too dark, and retake on a press")
    func retakeOnPress() {
        var script = capturedDark(mode: .meal)
        #expect(script.screen == .retake(RetakeScreen(photo: dark(), mode: .meal)))
        #expect(!script.actions.contains { if case .analyse = $0 { true } else { false } }, "no AI call yet")
        script.press()
        #expect(script.screen?.countdownSeconds == 3)
    }

    @Test("should use the photo anyway on a hold: analysed in meal mode, reviewed in group mode")
    func useAnyway() {
        var meal = capturedDark(mode: .meal)
        #expect(meal.press(.hold).contains(.analyse(dark(), day: Fixture.day)))
        var group = capturedDark(mode: .group)
        group.press(.hold)
        #expect(group.screen == .groupReview(GroupReviewScreen(photo: dark(), group: "Family", secondsLeft: 3)))
    }
}
