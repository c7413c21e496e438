import Foundation

/// The shell's time (STYLE: "Time is a dependency in the shell too"): what a service, a thread or a
/// handler that waits or reads the time is given, instead of reading the machine's clocks itself. The
/// station runs on `SystemClock`; a test holds its own (`HeldClock`, SnapTestSupport), moves it, and sees
/// each wait's deadline as the code asked for it. This file is the one place the shell reads the real
/// clocks for it.
public protocol ShellClock: Sendable {
    /// The monotonic time since the clock began: waits, deadlines and backoffs are counted on it.
    var uptime: Duration { get }
    /// The wall clock: days, expiries, what a row or a log line says.
    var wall: Date { get }
    /// Returns once `uptime` has reached `deadline`, or throws `CancellationError` when the task is
    /// cancelled first.
    func sleep(untilUptime deadline: Duration) async throws
    /// The monotonic instant `uptime` counts from, for a clock that is the machine's own: a thread can
    /// then wait for a deadline in the kernel (`TimerThread`'s `pthread_cond_timedwait`). Nil for a clock
    /// only its holder moves.
    var monotonicOrigin: ContinuousClock.Instant? { get }
}

extension ShellClock {
    public var monotonicOrigin: ContinuousClock.Instant? { nil }

    /// Sleeps `duration` of this clock's time.
    public func sleep(for duration: Duration) async throws {
        try await sleep(untilUptime: uptime + duration)
    }
}

/// The machine's clocks: `ContinuousClock` (monotonic; it counts a suspend, as a person waiting does) and
/// the system's wall clock.
public struct SystemClock: ShellClock {
    /// One origin for the process: every `SystemClock` counts the same uptime, so a deadline one of them
    /// gives (the machine's, through StationClock) is a deadline for another (the timer thread's).
    private static let origin = ContinuousClock.now

    public init() {
        _ = Self.origin
    }

    public var uptime: Duration { ContinuousClock.now - Self.origin }
    public var wall: Date { Date() }
    public var monotonicOrigin: ContinuousClock.Instant? { Self.origin }

    public func sleep(untilUptime deadline: Duration) async throws {
        try await Task.sleep(until: Self.origin + deadline, clock: .continuous)
    }
}
