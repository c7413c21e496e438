import Foundation
import SnapCore
import SnapTestSupport
import Testing

@Suite("StationMachine: the notices to the household's phones, each once a day and only the kinds left on")
struct NoticeFlowTests {
    static let hook = NoticeSettings(address: "http://127.0.0.1:9/hook", format: .webhook)

    func script(
        mode: StationMode = .meal, notices: NoticeSettings = hook, snapshot: StationSnapshot = StationSnapshot(),
        at local: String = "2026-03-10 12:00:00"
    ) -> StationScript {
        var settings = Fixture.settings(mode: mode)
        settings.owner.defaults.notices = notices
        return StationScript(settings: settings, snapshot: snapshot, startingAt: local)
    }

    func told(_ actions: [Action]) -> [Notice] {
        actions.compactMap { if case .notify(let notice) = $0 { notice } else { nil } }
    }

    func shared(_ id: String, member: String, at now: Date) -> SharedPhoto {
        SharedPhoto(
            id: PhotoID(id), group: "Family", member: member, takenAt: now - 60, expiresAt: now + 47 * 3600,
            path: "/tmp/\(id).jpg")
    }

    @Test("should tell an AI refusal the owner must act on once a day, and not a failure that mends itself")
    func aiRefused() {
        var script = script()
        let first = Fixture.capture(&script, id: "p1")
        #expect(told(script.send(.analysisFailed(first.id, .noCredit))) == [.aiRefused(.noCredit)])
        script.press(.hold)  // leaves the problem screen
        let second = Fixture.capture(&script, id: "p2")
        #expect(told(script.send(.analysisFailed(second.id, .noCredit))).isEmpty, "once a day")
        script.press(.hold)
        let third = Fixture.capture(&script, id: "p3")
        #expect(told(script.send(.analysisFailed(third.id, .unauthorized))) == [.aiRefused(.unauthorized)])
        script.press(.hold)
        let fourth = Fixture.capture(&script, id: "p4")
        #expect(told(script.send(.analysisFailed(fourth.id, .photoUnreadable))).isEmpty, "one photo's")
        script.press(.hold)
        script.setWall(local: "2026-03-11 08:00:00")
        let nextDay = Fixture.capture(&script, id: "p5")
        #expect(told(script.send(.analysisFailed(nextDay.id, .noCredit))) == [.aiRefused(.noCredit)], "a new day")
    }

    @Test(
        "should tell nothing of a kind the owner turned off, and say so in the log; nothing at all without an address")
    func off() {
        var quiet = script(notices: NoticeSettings(address: Self.hook.address, format: .webhook, off: [.ai]))
        let photo = Fixture.capture(&quiet, id: "p1")
        let actions = quiet.send(.analysisFailed(photo.id, .unauthorized))
        #expect(told(actions).isEmpty)
        #expect(
            actions.contains(.log(.info, "not told (notices of kind ai are off): \(Notice.aiRefused(.unauthorized))")))
        var none = script(notices: .none)
        let other = Fixture.capture(&none, id: "p1")
        let silent = none.send(.analysisFailed(other.id, .unauthorized))
        #expect(
            told(silent).isEmpty
                && !silent.contains { if case .log(.info, let text) = $0 { text.hasPrefix("not told") } else { false } }
        )
    }

    @Test("should tell each photo a member shares once, not the ones the station already kept")
    func sharedPhotos() {
        let now = Date(timeIntervalSince1970: 1_773_140_000)
        var script = script(
            mode: .group, snapshot: StationSnapshot(inbox: [shared("old", member: "Hall", at: now)]),
            at: "2026-03-10 12:00:00")
        let wall = script.clock.now.wall
        let kept = shared("old", member: "Hall", at: wall)
        let new = shared("new", member: "Kitchen", at: wall)
        #expect(told(script.send(.inboxChanged([kept, new]))) == [.shared(member: "Kitchen", group: "Family")])
        #expect(told(script.send(.inboxChanged([kept, new]))).isEmpty, "the same photos again")
        #expect(told(script.send(.inboxChanged([new]))).isEmpty, "one expired")
    }

    @Test("should tell an installed update and a rollback once each, not the install's progress")
    func updates() {
        var script = script()
        #expect(told(script.send(.update(.installing(version: "2.0.0", percent: 40)))).isEmpty)
        #expect(told(script.send(.update(.restarting(version: "2.0.0")))) == [.updateInstalled(version: "2.0.0")])
        #expect(told(script.send(.update(.restarting(version: "2.0.0")))).isEmpty)
        #expect(
            told(script.send(.update(.rolledBack(tried: "2.0.0", running: "1.0.0"))))
                == [.updateRolledBack(tried: "2.0.0", running: "1.0.0")])
    }

    @Test("should tell a full storage, and a nearly full one, once a day each")
    func storage() {
        var script = script()
        #expect(told(script.send(.storageFailed(.full))) == [.storageFull])
        script.press(.hold)
        #expect(told(script.send(.storageFailed(.full))).isEmpty)
        #expect(told(script.send(.storageFailed(.failed("EIO")))).isEmpty, "a failure is not a full disk")
        #expect(told(script.send(.storageLow)) == [.storageLow], "nearly full is news of its own")
        #expect(told(script.send(.storageLow)).isEmpty, "once a day: the retention's pass says it every 15 minutes")
    }

    @Test("should remind of the day's group photo at its local time while it is still to take, whatever the screens do")
    func reminder() throws {
        var notices = Self.hook
        notices.reminder = 18 * 60
        var script = script(mode: .group, notices: notices, at: "2026-03-10 17:00:00")
        #expect(script.timers[.photoDue] != nil, "set at start")
        script.press(.mode)  // screens come and go: the reminder's timer stays
        script.advance(seconds: 10)
        #expect(told(script.advance(seconds: 3600 - 20)).isEmpty, "17:59:50")
        #expect(told(script.advance(seconds: 20)) == [.photoDue(group: "Family")], "18:00")
        #expect(script.timers[.photoDue] != nil, "tomorrow's")

        // Taken before the reminder's time: nothing to remind of.
        let snapshot = StationSnapshot(latestDay: Fixture.day, groupSends: ["Family": [Fixture.day]])
        var taken = self.script(mode: .group, notices: notices, snapshot: snapshot, at: "2026-03-10 17:00:00")
        #expect(told(taken.advance(seconds: 3700)).isEmpty)

        // Turned off on the page: the timer goes.
        var page = self.script(mode: .group, notices: notices, at: "2026-03-10 17:00:00")
        page.send(.settingsChanged(.form(RuntimeSettings(notices: Self.hook), mode: nil)))
        #expect(page.timers[.photoDue] == nil)
        #expect(told(page.advance(seconds: 3700)).isEmpty)
    }
}
