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
}

extension ShellClock {
    /// Sleeps `duration` of this clock's time.
    public func sleep(for duration: Duration) async throws {
        try await sleep(untilUptime: uptime + duration)
    }
}

/// The machine's clocks: `ContinuousClock` (monotonic; it counts a suspend, as a person waiting does) and
/// the system's wall clock.
public struct SystemClock: ShellClock {
    private let start: ContinuousClock.Instant

    public init() {
        start = ContinuousClock.now
    }

    public var uptime: Duration { ContinuousClock.now - start }
    public var wall: Date { Date() }

    public func sleep(untilUptime deadline: Duration) async throws {
        try await Task.sleep(until: instant(ofUptime: deadline), clock: .continuous)
    }

    /// The monotonic instant an uptime deadline falls at, for what waits on `ContinuousClock` itself (a
    /// `TimerThread`).
    public func instant(ofUptime deadline: Duration) -> ContinuousClock.Instant {
        start + deadline
    }
}
