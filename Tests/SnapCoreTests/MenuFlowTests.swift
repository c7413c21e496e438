import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the settings menu at the end of the mode button's round")
struct MenuFlowTests {
    func script(
        cameras: [String] = ["Simulated", "USB video0"], groups: [String] = ["Family"], hasFlash: Bool = true,
        locked: Set<RuntimeSettings.Key> = []
    ) -> StationScript {
        var settings = Fixture.settings(mode: .meal)
        settings.groups = groups
        settings.owner.cameras = cameras
        settings.owner.flashWired = hasFlash
        settings.owner.locked = locked
        return StationScript(settings: settings, startingAt: "2026-03-10 12:00:00")
    }

    func menu(_ script: StationScript) -> MenuScreen? {
        if case .menu(let menu)? = script.screen { return menu }
        return nil
    }

    @Test("should switch the camera and the flash from the menu, store each change, and go on to meal mode")
    func round() throws {
        var script = script()
        script.press(.mode)
        #expect(script.machine.mode == .group)
        script.press(.mode)
        #expect(script.screen?.name == "week", "the week after the last group")
        script.press(.mode)
        let opened = try #require(menu(script), "the menu after the week: \(String(describing: script.screen))")
        #expect(opened.entries == [.camera("Simulated"), .flash(on: true)] && opened.selected == 0)
        let switched = script.press()
        #expect(switched.contains(.useCamera(1)) && switched.contains(.storeSettings(RuntimeSettings(camera: 1))))
        #expect(menu(script)?.entries[0] == .camera("USB video0"))
        script.press(.mode)
        #expect(menu(script)?.selected == 1)
        let flash = script.press()
        #expect(
            flash.contains(.storeSettings(RuntimeSettings(flash: false, camera: 1)))
                && menu(script)?.entries[1] == .flash(on: false))
        script.press(.mode)
        #expect(script.machine.mode == .meal && script.screen?.ready != nil)
        let ready = try #require(script.screen?.ready)
        #expect(ready.cameras == ["Simulated", "USB video0"] && ready.camera == 1 && ready.flashOff)
        // The flash stays off for the countdown's last second.
        script.press()
        script.advance(seconds: 2.5)
        #expect(!script.flashOn)
    }

    @Test("should close the menu on a hold or after 20 s untouched, and offer only the flash with one camera")
    func closeAndSingleCamera() throws {
        var script = script(cameras: ["Simulated"], groups: [])
        script.press(.mode)
        #expect(script.screen?.name == "week", "a meal-only station goes to the week at once")
        script.press(.mode)
        let opened = try #require(menu(script), "then to the menu")
        #expect(opened.entries.map(\.caption) == ["flash: on"])
        script.press(.hold)
        #expect(script.screen?.ready != nil && script.machine.mode == .meal)
        script.press(.mode)
        script.press(.mode)
        #expect(menu(script) != nil)
        script.advance(seconds: 21)
        #expect(script.screen?.ready != nil)
        // A hold on the ready screen switches modes without the menu.
        var groups = self.script()
        groups.press(.hold)
        groups.advance(seconds: 0.1)
        groups.press(.hold)
        #expect(menu(groups) == nil && groups.machine.mode == .meal)
    }

    @Test("should leave out what the config locks and a flash with no LED, and skip a menu with nothing in it")
    func lockedAndMissing() throws {
        var cameraLocked = script(locked: [.camera])
        cameraLocked.press(.mode)
        cameraLocked.press(.mode)
        cameraLocked.press(.mode)
        #expect(try #require(menu(cameraLocked)).entries.map(\.caption) == ["flash: on"])
        var noLED = script(hasFlash: false)
        noLED.press(.mode)
        noLED.press(.mode)
        noLED.press(.mode)
        let cameraOnly = try #require(menu(noLED)).entries
        #expect(cameraOnly.count == 1 && cameraOnly.first?.caption.hasPrefix("camera: ") == true)
        // One camera and the flash locked: the round goes from the last group's week straight to meal.
        var nothing = script(cameras: ["Simulated"], locked: [.flash])
        nothing.press(.mode)
        nothing.press(.mode)
        #expect(nothing.screen?.name == "week")
        nothing.press(.mode)
        #expect(menu(nothing) == nil && nothing.machine.mode == .meal && nothing.screen?.ready != nil)
    }

    @Test("should take the camera from the owner's page and from the settings stored before a restart")
    func cameraFromThePage() {
        var script = script()
        let told = script.send(.settingsChanged(.form(RuntimeSettings(camera: 1), mode: nil)))
        #expect(told.contains(.useCamera(1)) && script.screen?.ready?.camera == 1)
        let again = script.send(.settingsChanged(.form(RuntimeSettings(camera: 1), mode: nil)))
        #expect(!again.contains { if case .useCamera = $0 { true } else { false } }, "no switch to the same one")
        let back = script.send(.settingsChanged(.form(RuntimeSettings(), mode: nil)))
        #expect(back.contains(.useCamera(0)))
        let unknown = script.send(.settingsChanged(.form(RuntimeSettings(camera: 5), mode: nil)))
        #expect(unknown.contains(.useCamera(1)), "a camera the config no longer names: the last one it does")
    }
}
