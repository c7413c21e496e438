import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the camera streams only while its picture shows or a shot is coming")
struct CameraDemandFlowTests {
    func script(mode: StationMode = .group, idle: Duration? = .seconds(60), jarDays: Int = 0) -> StationScript {
        var settings = Fixture.settings(mode: mode)
        settings.idleAfter = idle
        settings.jarDays = jarDays
        return StationScript(settings: settings, startingAt: "2026-03-10 12:00:00")
    }

    @Test("should stream for the ready screen's preview, stop on the idle screen, and wake on the first press")
    func idleStopsTheCamera() {
        var script = script()
        #expect(script.cameraOn && script.screen?.showsLivePreview == true)
        script.advance(seconds: 61)
        guard case .idle? = script.screen else {
            Issue.record("no idle screen: \(String(describing: script.screen))")
            return
        }
        #expect(!script.cameraOn)
        // The press that wakes the station is not lost: the countdown starts, and the camera with it.
        let woke = script.press()
        #expect(woke.first == .setCamera(on: true), "the camera is asked for before anything else")
        #expect(script.cameraOn && script.screen?.countdownSeconds == 3)
    }

    @Test("should keep the camera until the still is taken, and stop it for the screens after the shot")
    func shotAndAfter() {
        var script = script()
        script.press()
        script.advance(seconds: 3)
        #expect(script.cameraOn, "capturing: the still comes from the running camera")
        let captured = script.send(.captured(PhotoID("p1")))
        #expect(captured.contains(.setCamera(on: false)) && !script.cameraOn)
        script.send(.processed(Samples.photo("p1", at: script.clock.now.wall)))
        #expect(!script.cameraOn, "the review shows the photo, not the camera")
    }

    @Test("should not stream behind the jar, and stream as soon as a mode switch brings the preview back")
    func jarAndModeSwitch() {
        var script = script(mode: .meal, idle: nil, jarDays: 1)
        #expect(script.screen?.jar != nil && !script.cameraOn)
        script.press()
        #expect(script.cameraOn && script.screen?.countdownSeconds == 3)
        script.press(.hold)  // cancels the countdown
        script.advance(seconds: 0.1)
        script.press(.hold)
        #expect(script.machine.mode == .group && script.cameraOn && script.screen?.showsLivePreview == true)
    }

    @Test("should keep asking for a missing camera, so its return is seen, even where no preview shows")
    func missingCamera() {
        var script = script(mode: .meal, idle: nil, jarDays: 1)
        #expect(!script.cameraOn)
        script.send(.device(.camera, .missing("unplugged")))
        #expect(script.cameraOn)
        script.send(.device(.camera, .available))
        #expect(script.screen?.jar != nil && !script.cameraOn)
    }

    @Test("should ask for the camera exactly when a screen shows the live preview or a shot is coming")
    func cameraFollowsThePreview() {
        var script = script(mode: .meal, idle: .seconds(60), jarDays: 1)
        var seen = 0
        func check(_ script: StationScript, _ step: String) {
            guard let screen = script.screen else { return }
            let shooting = if case .capturing = script.machine.phase { true } else { false }
            #expect(script.cameraOn == (screen.showsLivePreview || shooting), "\(step): \(screen.name)")
            seen += 1
        }
        check(script, "start")
        let photo = Fixture.capture(&script)
        check(script, "processed")
        script.send(.analysed(photo.id, Fixture.analysis))
        check(script, "result")
        script.press()
        check(script, "saved")
        script.press(.hold)
        check(script, "group mode")
        script.advance(seconds: 61)
        check(script, "idle")
        script.press()
        check(script, "countdown")
        #expect(seen == 7)
    }
}

@Suite("StationMachine: the night hours turn the idle screen's display off")
struct NightHoursFlowTests {
    @Test("should read HH:MM-HH:MM, across midnight or not, and refuse anything else")
    func parse() throws {
        let night = try #require(NightHours("23:00-07:00"))
        #expect(night.contains(minute: 23 * 60) && night.contains(minute: 3 * 60) && !night.contains(minute: 7 * 60))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        func local(_ text: String) throws -> Date {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            formatter.timeZone = calendar.timeZone
            return try #require(formatter.date(from: text))
        }
        func hoursToEdge(_ text: String, _ hours: NightHours) throws -> Double {
            let start = try local(text)
            return try #require(hours.nextEdge(after: start, in: calendar)).timeIntervalSince(start) / 3600
        }
        #expect(try hoursToEdge("2026-03-10 22:30", night) == 0.5 && hoursToEdge("2026-03-10 23:00", night) == 8)
        // The nights the clocks change (Berlin, 29 March and 25 October 2026): 07:00 comes an hour sooner, or later.
        #expect(try hoursToEdge("2026-03-28 23:30", night) == 6.5)
        #expect(try hoursToEdge("2026-10-24 23:30", night) == 8.5)
        // An edge inside the skipped hour is the first time after it.
        let skipped = try #require(NightHours("02:30-05:00"))
        #expect(try hoursToEdge("2026-03-29 01:30", skipped) == 0.5)
        let early = try #require(NightHours("01:00-05:30"))
        #expect(early.contains(minute: 60) && !early.contains(minute: 23 * 60) && early.description == "01:00-05:30")
        for bad in ["", "23:00", "23-07", "24:00-07:00", "23:00-23:00", "7:00-08:00", "23:00-07:60"] {
            #expect(NightHours(bad) == nil, "\(bad)")
        }
    }

    @Test("should turn the display off on the idle screen at night, keep it off, and wake it with a press")
    func night() {
        var settings = Fixture.settings(mode: .group)
        settings.idleAfter = .seconds(60)
        settings.nightHours = NightHours("23:00-07:00")
        var script = StationScript(settings: settings, startingAt: "2026-03-10 22:58:00")
        script.advance(seconds: 61)
        guard case .idle(let evening)? = script.screen else {
            Issue.record("no idle screen: \(String(describing: script.screen))")
            return
        }
        #expect(!evening.displayOff, "22:59: not night yet")
        script.advance(seconds: 60)
        guard case .idle(let night)? = script.screen else {
            Issue.record("no idle screen at night: \(String(describing: script.screen))")
            return
        }
        #expect(night.displayOff && night.slide == nil, "23:00: the display sleeps")
        let shown = script.actions.count
        script.advance(seconds: 3600)
        #expect(script.actions.count - shown <= 2, "nothing to draw while it sleeps, beyond midnight's check")
        script.press()
        #expect(script.screen?.countdownSeconds == 3, "a press at night starts the countdown, and wakes the display")
    }
}
