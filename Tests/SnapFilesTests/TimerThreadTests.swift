import Foundation
import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

@Suite("TimerThread")
struct TimerThreadTests {
    /// What fired, in order, collected from the timer thread.
    final class Fired: Sendable {
        let keys = Lock<[String]>([])
        func add(_ key: String) { keys.withLock { $0.append(key) } }
        var all: [String] { keys.withLock { $0 } }
    }

    func waitUntil(_ seconds: Double = 5, _ condition: () -> Bool) async throws {
        _ = await eventually(within: seconds, every: .milliseconds(5)) { condition() }
    }

    @Test("should fire timers in the order of their deadlines, each once")
    func order() async throws {
        let timers = TimerThread<String>(name: "test-timers")
        defer { timers.shutDown() }
        let fired = Fired()
        let now = ContinuousClock.now
        timers.start("late", at: now + .milliseconds(120)) { fired.add("late") }
        timers.start("early", at: now + .milliseconds(30)) { fired.add("early") }
        timers.start("past", at: now - .seconds(1)) { fired.add("past") }
        try await waitUntil { fired.all.count == 3 }
        #expect(fired.all == ["past", "early", "late"])
        #expect(ContinuousClock.now - now >= .milliseconds(120))
        #expect(timers.count == 0)
    }

    @Test("should not fire a cancelled or replaced timer, and hold nothing for it")
    func cancel() async throws {
        let timers = TimerThread<String>(name: "test-timers")
        defer { timers.shutDown() }
        let fired = Fired()
        let now = ContinuousClock.now
        timers.start("midnight", at: now + .seconds(3600)) { fired.add("midnight") }
        timers.start("gone", at: now + .milliseconds(40)) { fired.add("gone") }
        timers.start("replaced", at: now + .milliseconds(40)) { fired.add("old") }
        timers.start("replaced", at: now + .milliseconds(60)) { fired.add("new") }
        timers.cancel("gone")
        #expect(timers.count == 2)
        timers.cancel("midnight")
        #expect(timers.count == 1)
        // The thread fires in deadline order: the old deadline (40 ms) would have fired before the new (60 ms).
        try await waitUntil { fired.all.count == 1 }
        #expect(fired.all == ["new"])
    }

    @Test("should arm and cancel 100,000 timers until midnight without keeping any")
    func many() {
        let timers = TimerThread<Int>(name: "test-timers")
        defer { timers.shutDown() }
        let midnight = ContinuousClock.now + .seconds(86_400)
        for round in 0..<100_000 {
            timers.start(round % 3, at: midnight) {}
            timers.cancel(round % 3)
        }
        #expect(timers.count == 0)
    }
}
