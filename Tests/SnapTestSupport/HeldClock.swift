import Foundation
import SnapFiles
import Testing

/// A `ShellClock` the test holds: its time moves only when the test advances it, and a test waits for the
/// event it means (`sleepers(_:)`: the code under test has reached its wait) before it moves it. A sleep
/// wakes when an advance reaches its deadline, the earliest first, or throws when its task is cancelled.
/// (Hummingbird's `MockClock` in its connection state machine's tests, swift-nio's
/// `EmbeddedEventLoop.advanceTime`.)
public final class HeldClock: ShellClock {
    private struct Sleeper {
        var deadline: Duration
        var wake: CheckedContinuation<Void, any Error>
    }

    /// The deadlines a waiter is given, and whether the hang guard gave them.
    private typealias Answer = (deadlines: [Duration], guarded: Bool)

    private struct Waiter {
        var id: UInt64
        var count: Int
        var wake: CheckedContinuation<Answer, Never>
    }

    private typealias Ready = (CheckedContinuation<Answer, Never>, [Duration])

    private struct State {
        var uptime: Duration = .zero
        var wall: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var waiters: [Waiter] = []
        var next: UInt64 = 0

        /// The waiters whose count of sleepers is reached, taken out, with the deadlines to give them.
        mutating func satisfied() -> [Ready] {
            let deadlines = sleepers.values.map(\.deadline).sorted()
            let ready = waiters.filter { $0.count <= deadlines.count }
            waiters.removeAll { $0.count <= deadlines.count }
            return ready.map { ($0.wake, deadlines) }
        }
    }

    private let state: Lock<State>

    /// Starts at zero uptime and at `wall` (2026-11-23 12:00 UTC unless said).
    public init(wall: Date = Date(timeIntervalSince1970: 1_795_435_200)) {
        state = Lock(State(wall: wall))
    }

    public var uptime: Duration { state.withLock { $0.uptime } }
    public var wall: Date { state.withLock { $0.wall } }

    public func sleep(untilUptime deadline: Duration) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                // Cancelled before it slept (the handler below ran with nothing to cancel yet).
                if Task.isCancelled { return wake.resume(throwing: CancellationError()) }
                let (now, ready) = state.withLock { state -> (Bool, [Ready]) in
                    if state.uptime >= deadline { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: wake)
                    return (false, state.satisfied())
                }
                if now { wake.resume() }
                for (waiter, deadlines) in ready { waiter.resume(returning: (deadlines, false)) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.wake.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the time on by `duration`, the wall clock with it: every sleep whose deadline it reaches
    /// wakes, the earliest first.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.uptime += duration
            state.wall += Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
            let due = state.sleepers.filter { $0.value.deadline <= state.uptime }
                .sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.wake)
        }
        for wake in woken { wake.resume() }
    }

    /// The deadlines of the sleeps waiting now, the earliest first (`sleepers(_:)` waits for a count; this
    /// reads, for a wait that is remade as its earliest deadline changes: a timer thread's).
    public var deadlines: [Duration] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Moves the wall clock alone (NTP setting a Pi that booted with a wrong time).
    public func setWall(_ date: Date) {
        state.withLock { $0.wall = date }
    }

    /// Waits until at least `count` sleeps wait on this clock, and gives their deadlines, the earliest
    /// first: the event a test advances the clock after. Under the one hang guard (`HangGuard`): a wait
    /// the code never reaches (a wrong deadline, a lost wake) fails the test naming the line that waited
    /// and the deadlines that were waiting, and gives those.
    public func sleepers(_ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> [Duration] {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        let watch = Task { [self] in
            try await Task.sleep(for: .seconds(HangGuard.seconds))
            let (waiter, deadlines) = state.withLock { state in
                let waiter = state.waiters.first { $0.id == id }
                state.waiters.removeAll { $0.id == id }
                return (waiter, state.sleepers.values.map(\.deadline).sorted())
            }
            waiter?.wake.resume(returning: (deadlines, true))
        }
        defer { watch.cancel() }
        let (deadlines, guarded) = await withCheckedContinuation { (wake: CheckedContinuation<Answer, Never>) in
            let ready = state.withLock { state -> [Ready] in
                state.waiters.append(Waiter(id: id, count: count, wake: wake))
                return state.satisfied()
            }
            for (waiter, deadlines) in ready { waiter.resume(returning: (deadlines, false)) }
        }
        if guarded {
            let said = "waited \(Int(HangGuard.seconds)) s for \(count) sleep(s) on the held clock"
            Issue.record(
                "Hang guard: \(said); \(deadlines.count) waited, until \(deadlines)", sourceLocation: sourceLocation)
        }
        return deadlines
    }
}
