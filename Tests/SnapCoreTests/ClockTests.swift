import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the clock")
struct ClockTests {
    @Test("should show 21:30:00 on the lock screen at 01:30 on the spring-forward day")
    func lockOnSpringForward() {
        let day = LocalDay(year: 2026, month: 3, day: 29)
        let snapshot = StationSnapshot(latestDay: day, groupSends: ["Family": [day]])
        let script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-03-29 01:30:00")
        #expect(script.screen?.lock?.remaining == .seconds(21 * 3600 + 30 * 60))
    }

    @Test("should show 23:30:00 on the lock screen at the first 01:30 of the fall-back day")
    func lockOnFallBack() {
        let day = LocalDay(year: 2026, month: 10, day: 25)
        let snapshot = StationSnapshot(latestDay: day, groupSends: ["Family": [day]])
        let script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-10-25 01:30:00")
        #expect(script.screen?.lock?.remaining == .seconds(23 * 3600 + 30 * 60))
    }

    @Test("should not hand out a second photo when the wall clock jumps back to yesterday")
    func clockJumpsBack() {
        var script = StationScript(settings: Fixture.settings(), startingAt: "2026-03-10 09:00:00")
        let photo = Fixture.capture(&script)
        script.advance(seconds: 3)
        script.send(.uploaded(photo.id))
        script.advance(seconds: 3)
        #expect(script.screen?.lock != nil)

        script.setWall(local: "2026-03-09 22:00:00")
        script.advance(seconds: 1)
        #expect(script.screen?.lock?.reason == .group("Family"))
        #expect(script.screen?.lock?.remaining == nil, "no countdown from a clock that is behind the day")
        #expect(!script.press().contains(.capture))
        script.advance(seconds: 3 * 3600)
        #expect(script.screen?.lock != nil, "still 2026-03-10 for the station: 01:00 on the wall")
    }

    @Test("should stay locked after a restart whose clock starts in the past")
    func restartWithOldClock() {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: Fixture.settings(), snapshot: snapshot, startingAt: "2026-03-09 18:00:00")
        #expect(script.screen?.lock?.reason == .group("Family"))
        script.press(.hold)
        script.press(.hold)
        #expect(script.screen?.lock != nil)
        script.setWall(local: "2026-03-11 08:00:00")
        script.advance(seconds: 1)
        #expect(script.screen?.ready?.groupPhotoAvailable == true)
    }

    @Test("should count AI uses on the station's day, not the wall clock's, after a jump back")
    func aiUsesAfterJumpBack() {
        let snapshot = StationSnapshot(latestDay: Fixture.day, aiUses: [Fixture.day: 10])
        let script = StationScript(
            settings: Fixture.settings(mode: .meal), snapshot: snapshot, startingAt: "2026-03-09 23:00:00")
        #expect(script.screen?.lock?.reason == .aiLimit)
    }
}
