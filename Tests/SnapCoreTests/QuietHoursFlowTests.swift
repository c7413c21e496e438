import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the owner's quiet hours (no flash, a dimmed display) and the settings' one writer")
struct QuietHoursFlowTests {
    func script(quiet: String = "", at local: String) -> StationScript {
        var settings = Fixture.settings(mode: .meal)
        settings.owner.defaults.quietHours = QuietHours(quiet)!
        return StationScript(settings: settings, startingAt: local)
    }

    @Test("should dim the display and keep the flash off in the quiet hours, and say so on the ready screen")
    func quiet() throws {
        var script = script(quiet: "22:00-07:00", at: "2026-03-10 23:30:00")
        #expect(script.actions.contains(.dimDisplay(true)), "dimmed from the first screen")
        #expect(try #require(script.screen?.ready).flashOff)
        script.press()
        #expect(script.screen?.countdownSeconds == 3)
        script.advance(seconds: 3)
        #expect(!script.actions.contains(.setFlash(on: true)) && !script.flashOn, "no flash at night")
        #expect(script.actions.filter { if case .dimDisplay = $0 { true } else { false } } == [.dimDisplay(true)])
    }

    @Test("should light the display when the quiet hours end and dim it when they start, by the local clock")
    func edges() throws {
        var morning = script(quiet: "22:00-07:00", at: "2026-03-10 06:58:00")
        #expect(morning.actions.contains(.dimDisplay(true)))
        #expect(!morning.advance(seconds: 60).contains(.dimDisplay(false)), "still 06:59")
        #expect(morning.advance(seconds: 61).contains(.dimDisplay(false)), "07:00")
        #expect(try #require(morning.screen?.ready).flashOff == false)
        morning.press()
        morning.advance(seconds: 3)
        #expect(morning.actions.contains(.setFlash(on: true)), "the flash again by day")

        var evening = script(quiet: "22:00-07:00", at: "2026-03-10 21:59:30")
        #expect(!evening.actions.contains(.dimDisplay(true)))
        #expect(evening.advance(seconds: 31).contains(.dimDisplay(true)), "22:00")
    }

    @Test("should take quiet hours the owner sets at once, and give them back with the config's")
    func fromThePage() {
        var script = script(at: "2026-03-10 23:30:00")
        #expect(!script.actions.contains(.dimDisplay(true)), "none in the config")
        let set = script.send(
            .settingsChanged(.form(RuntimeSettings(quietHours: QuietHours("23:00-06:00")), mode: nil)))
        #expect(set.contains(.dimDisplay(true)))
        #expect(set.contains(.storeSettings(RuntimeSettings(quietHours: QuietHours("23:00-06:00")))))
        let back = script.send(.settingsChanged(.form(RuntimeSettings(), mode: nil)))
        #expect(back.contains(.dimDisplay(false)))
    }

    @Test("should keep a flash change made at the menu when the page joins a group next: one writer, both kept")
    func menuThenPage() throws {
        var script = script(at: "2026-03-10 12:00:00")
        for _ in 0..<4 {
            if case .menu = script.screen { break }
            script.press(.mode)
        }
        guard case .menu(let menu)? = script.screen else {
            Issue.record("no menu: \(String(describing: script.screen))")
            return
        }
        #expect(menu.entries == [.flash(on: true)])
        #expect(script.press().contains(.storeSettings(RuntimeSettings(flash: false))))
        script.press(.hold)
        let joined = script.send(.settingsChanged(.joined("Climbers")))
        #expect(joined.contains(.storeSettings(RuntimeSettings(flash: false, groups: ["Family", "Climbers"]))))
        #expect(!script.machine.inForce.flash && script.machine.inForce.groups == ["Family", "Climbers"])
        // Joined twice (two pages at once), and one more than a station holds: neither a twin nor a ninth.
        script.send(.settingsChanged(.joined("Climbers")))
        for index in 0..<10 { script.send(.settingsChanged(.joined("Group \(index)"))) }
        #expect(script.machine.inForce.groups.count == SettingsInForce.maxGroups)
        #expect(Set(script.machine.inForce.groups).count == SettingsInForce.maxGroups)
    }

    @Test("should start with the owner's stored settings: the camera chosen before a restart, the mode")
    func storedAtStart() {
        var settings = Fixture.settings(mode: .meal)
        settings.owner.cameras = ["CSI", "USB"]
        var machine = StationMachine(
            settings: settings, owner: RuntimeSettings(mode: .group, camera: 1, quietHours: QuietHours("")))
        let started = machine.start(now: Instant(uptime: .zero, wall: Date()))
        #expect(started.contains(.useCamera(1)) && machine.mode == .group)
        #expect(machine.owner.quietHours == QuietHours.never, "none set over the config's (which has none too)")
    }

    @Test("should store the quiet hours as the config writes them, and refuse a stored span it cannot read")
    func stored() throws {
        let owner = RuntimeSettings(flash: false, quietHours: QuietHours("22:00-07:00"))
        let json = try JSONEncoder().encode(owner)
        #expect(String(decoding: json, as: UTF8.self).contains("\"quietHours\":\"22:00-07:00\""))
        #expect(try JSONDecoder().decode(RuntimeSettings.self, from: json) == owner)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RuntimeSettings.self, from: Data("{\"quietHours\":\"22:00-22:00\"}".utf8))
        }
        #expect(owner.summary == "flash off, quiet hours 22:00-07:00")
        #expect(RuntimeSettings(quietHours: .never).summary == "quiet hours none")
    }
}
