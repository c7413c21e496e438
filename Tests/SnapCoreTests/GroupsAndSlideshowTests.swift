import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: several groups, the group's slideshow and the idle screen")
struct GroupsAndSlideshowTests {
    func settings(groups: [String] = ["Family", "Climbers"], idle: Duration? = .seconds(60)) -> StationSettings {
        var settings = Fixture.settings()
        settings.groups = groups
        settings.idleAfter = idle
        settings.slideDuration = .seconds(8)
        return settings
    }

    func shared(_ id: String, group: String = "Family", member: String = "Hall", hoursAgo: Double, at now: Date)
        -> SharedPhoto
    {
        let taken = now.addingTimeInterval(-hoursAgo * 3600)
        return SharedPhoto(
            id: PhotoID(id), group: group, member: member, takenAt: taken, expiresAt: taken + 48 * 3600,
            path: "/tmp/\(id).jpg")
    }

    @Test("should cycle the mode button through meal and each group, each with its own daily photo")
    func cycleGroups() throws {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: settings(), snapshot: snapshot, startingAt: "2026-03-10 09:00:00")
        #expect(script.screen?.lock?.reason == .group("Family"), "Family's photo is taken today")
        script.press(.mode)
        #expect(script.machine.activeGroup == "Climbers")
        #expect(script.screen?.ready?.groupName == "Climbers" && script.screen?.ready?.groupPhotoAvailable == true)
        let photo = Fixture.capture(&script)
        let share = script.advance(seconds: 3)
        #expect(share.contains(.share(photo, group: "Climbers", day: Fixture.day)))
        script.send(.uploaded(photo.id))
        script.advance(seconds: 3)
        #expect(script.screen?.lock?.reason == .group("Climbers"))
        script.press(.mode)
        #expect(script.screen?.name == "week", "after the last group, the week")
        script.press(.mode)
        #expect(script.screen?.name == "menu", "then the settings menu")
        script.press(.mode)
        #expect(script.machine.mode == .meal)
        script.press(.mode)
        #expect(script.machine.activeGroup == "Family")
    }

    @Test("should show the group's photos behind the lock, step to the next on a press, and move on by itself")
    func lockSlideshow() throws {
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var script = StationScript(settings: settings(), snapshot: snapshot, startingAt: "2026-03-10 12:00:00")
        #expect(script.screen?.lock?.slide == nil, "nothing shared yet")
        let now = script.clock.now.wall
        script.send(
            .inboxChanged([
                shared("b", member: "Porch", hoursAgo: 1, at: now), shared("a", hoursAgo: 3, at: now),
                shared("c", group: "Climbers", hoursAgo: 2, at: now),
            ]))
        let first = try #require(script.screen?.lock?.slide)
        #expect(first.photo.id == PhotoID("a") && first.count == 2, "Family's two photos, oldest first")
        #expect(first.age == .seconds(3 * 3600))
        script.press()
        #expect(script.screen?.lock?.slide?.photo.id == PhotoID("b"), "a press steps on")
        #expect(script.screen?.lock != nil, "and the lock stays")
        script.advance(seconds: 8)
        #expect(script.screen?.lock?.slide?.photo.id == PhotoID("a"), "after 8 s the next photo comes by itself")
    }

    @Test("should go to the idle screen after the idle time, and start the countdown on the first press")
    func idleAndWake() throws {
        var script = StationScript(settings: settings(), startingAt: "2026-03-10 12:00:00")
        let now = script.clock.now.wall
        script.send(.inboxChanged([shared("a", hoursAgo: 1, at: now), shared("b", hoursAgo: 2, at: now)]))
        #expect(script.screen?.ready != nil, "the ready screen stays while someone may be there")
        script.advance(seconds: 60)
        guard case .idle(let idle)? = script.screen else {
            Issue.record("no idle screen after 60 s: \(String(describing: script.screen))")
            return
        }
        #expect(idle.slide?.photo.id == PhotoID("b") && idle.group == "Family")
        script.advance(seconds: 8)
        if case .idle(let next)? = script.screen { #expect(next.slide?.photo.id == PhotoID("a")) }
        let woken = script.press()
        #expect(script.screen?.countdownSeconds == 3, "the press that wakes it is not lost: \(woken)")
    }

    @Test("should show a dimmed clock when idle without photos, and never idle when the idle time is off")
    func idleClock() throws {
        var script = StationScript(settings: settings(groups: []), startingAt: "2026-03-10 12:00:00")
        script.advance(seconds: 61)
        guard case .idle(let idle)? = script.screen else {
            Issue.record("no idle screen")
            return
        }
        #expect(idle.slide == nil && idle.clock == "12:01")
        var never = StationScript(settings: settings(idle: nil), startingAt: "2026-03-10 12:00:00")
        never.advance(seconds: 3600)
        #expect(never.screen?.ready != nil)
    }

    @Test("should redraw the idle clock without photos only when its minute changes")
    func idleClockAtTheMinute() throws {
        var script = StationScript(settings: settings(groups: []), startingAt: "2026-03-10 12:00:00")
        script.advance(seconds: 61)
        #expect(script.screen?.idle?.clock == "12:01")
        let quiet = script.advance(seconds: 58)
        #expect(!quiet.contains { if case .show = $0 { true } else { false } }, "nothing to show before 12:02")
        let next = script.advance(seconds: 2)
        #expect(next.contains { if case .show = $0 { true } else { false } })
        #expect(script.screen?.idle?.clock == "12:02", "shown at the minute")
    }

    @Test("should still start today's totals again at midnight when the idle time is longer than the evening")
    func midnightBeforeIdle() throws {
        var script = StationScript(settings: settings(idle: .seconds(600)), startingAt: "2026-03-10 23:59:00")
        script.advance(seconds: 61)
        #expect(script.screen?.ready != nil, "midnight came first: the ready screen of the new day")
        script.advance(seconds: 600)
        if case .idle = script.screen {} else { Issue.record("idle after the idle time on the new day") }
    }
}
