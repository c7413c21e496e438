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

    /// The thread's wait, as its clock sees it: one sleep until `deadline`.
    func waiting(_ clock: HeldClock, until deadline: Duration) async -> Bool {
        await eventually(every: .milliseconds(2)) { clock.deadlines == [deadline] }
    }

    @Test("should fire timers in the order of their deadlines, each once, exactly at its deadline of the clock")
    func order() async throws {
        let clock = HeldClock()
        clock.advance(by: .seconds(10))
        let timers = TimerThread<String>(name: "test-timers", clock: clock)
        defer { timers.shutDown() }
        let fired = Fired()
        timers.start("late", at: .seconds(10) + .milliseconds(120)) { fired.add("late") }
        timers.start("early", at: .seconds(10) + .milliseconds(30)) { fired.add("early") }
        timers.start("past", at: .seconds(9)) { fired.add("past") }
        // The past one at once; then the thread waits for the earliest: 30 ms on.
        #expect(await eventually { fired.all == ["past"] })
        #expect(await waiting(clock, until: .seconds(10) + .milliseconds(30)))
        clock.advance(by: .milliseconds(29))
        #expect(await waiting(clock, until: .seconds(10) + .milliseconds(30)), "not due at 29 ms")
        #expect(fired.all == ["past"])
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { fired.all == ["past", "early"] })
        #expect(await waiting(clock, until: .seconds(10) + .milliseconds(120)))
        clock.advance(by: .milliseconds(90))
        #expect(await eventually { fired.all == ["past", "early", "late"] })
        #expect(timers.count == 0)
    }

    @Test("should not fire a cancelled or replaced timer, and hold nothing for it")
    func cancel() async throws {
        let clock = HeldClock()
        let timers = TimerThread<String>(name: "test-timers", clock: clock)
        defer { timers.shutDown() }
        let fired = Fired()
        timers.start("midnight", at: .seconds(3600)) { fired.add("midnight") }
        timers.start("gone", at: .milliseconds(40)) { fired.add("gone") }
        timers.start("replaced", at: .milliseconds(40)) { fired.add("old") }
        timers.start("replaced", at: .milliseconds(60)) { fired.add("new") }
        timers.cancel("gone")
        #expect(timers.count == 2)
        timers.cancel("midnight")
        #expect(timers.count == 1)
        // The thread waits for the replacing deadline, not the old one nor the cancelled ones.
        #expect(await waiting(clock, until: .milliseconds(60)))
        clock.advance(by: .seconds(7200))
        #expect(await eventually { fired.all == ["new"] })
        #expect(await eventually(every: .milliseconds(2)) { clock.deadlines.isEmpty }, "no wait left")
        #expect(fired.all == ["new"])
    }

    @Test("should fire on the machine's clock, waiting in the kernel (SystemClock)")
    func machineClock() async throws {
        let clock = SystemClock()
        let timers = TimerThread<String>(name: "test-timers")
        defer { timers.shutDown() }
        let fired = Fired()
        let asked = clock.uptime
        timers.start("soon", at: asked + .milliseconds(50)) {
            fired.add("soon at \(clock.uptime >= asked + .milliseconds(50))")
        }
        #expect(await eventually(every: .milliseconds(5)) { !fired.all.isEmpty })
        #expect(fired.all == ["soon at true"], "fired, and not before its deadline")
    }

    @Test("should arm and cancel 100,000 timers until midnight without keeping any")
    func many() {
        let timers = TimerThread<Int>(name: "test-timers")
        defer { timers.shutDown() }
        let midnight = SystemClock().uptime + .seconds(86_400)
        for round in 0..<100_000 {
            timers.start(round % 3, at: midnight) {}
            timers.cancel(round % 3)
        }
        #expect(timers.count == 0)
    }
}
