import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapTestSupport
import SnapUpdates
import Testing

@testable import SnapApp

/// The station's side of updates on a clock the test holds: the slot marked good at its configured
/// wait, not before, and an update installed meanwhile told within the two seconds of the next look.
@Suite("UpdateService: the slot marked good after its wait, and a waiting update told", .startsProcesses)
struct UpdateServiceTests {
    let folder = TemporaryDirectory("update-service")

    @Test("should mark the slot good at exactly the configured wait, and tell of an installed update at the next look")
    func confirmsOnTheClock() async throws {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let updater = SlotUpdater(
            rauc: rauc.path, folder: folder.path + "/state/updates", imageVersion: "1.0.0",
            bootID: { rauc.bootID() }, logger: Logger(label: "update-test"))
        let clock = HeldClock()
        let bus = EventBus()
        let service = UpdateService(
            updater: updater, bus: bus, confirmAfter: .seconds(600), logger: Logger(label: "update-test"),
            clock: clock)
        let task = Task { try await service.run() }
        defer { task.cancel() }
        #expect(await clock.sleepers() == [.seconds(600)], "the wait before the slot is marked good")
        clock.advance(by: .milliseconds(599_999))
        #expect(clock.deadlines == [.seconds(600)], "still waiting at 599.999 s")
        #expect(await updater.status().confirmed == false)
        clock.advance(by: .milliseconds(1))
        #expect(await clock.sleepers() == [.seconds(602)], "marked good at 600 s, then it looks every 2 s")
        #expect(await updater.status().confirmed, "the running slot is marked good")

        _ = try await updater.install(bundle: try rauc.bundle("v2.raucb", version: "2.0.0")) { _, _, _ in }
        clock.advance(by: .seconds(2))
        #expect(await clock.sleepers() == [.seconds(604)])
        task.cancel()
        _ = await task.result
        bus.finish()
        var events: [Event] = []
        for await event in bus.events { events.append(event) }
        #expect(events == [.update(.restarting(version: "2.0.0"))], "told once, at the look after the install")
    }
}

@Suite("WatchdogService: a heartbeat at half the watchdog's interval")
struct WatchdogServiceTests {
    @Test("should send a heartbeat at once and then every half interval of the clock, not before")
    func heartbeats() async throws {
        let clock = HeldClock()
        let bus = EventBus()
        let task = Task { try await WatchdogService(interval: .seconds(10), bus: bus, clock: clock).run() }
        #expect(await clock.sleepers() == [.seconds(5)])
        clock.advance(by: .milliseconds(4_999))
        #expect(clock.deadlines == [.seconds(5)], "no heartbeat at 4.999 s")
        clock.advance(by: .milliseconds(1))
        #expect(await clock.sleepers() == [.seconds(10)])
        task.cancel()
        _ = await task.result
        bus.finish()
        var beats = 0
        for await event in bus.events where event == .heartbeat { beats += 1 }
        #expect(beats == 2, "at 0 s and at 5 s")
    }
}
