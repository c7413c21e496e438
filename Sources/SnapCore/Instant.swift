import Foundation

/// A moment as the station sees it: monotonic uptime for timers, and the wall clock for local days.
///
/// The two are kept apart on purpose. Timers must not jump when NTP corrects the wall clock of a Pi that
/// has no real-time clock, while the daily limits must follow the wall clock. The shell reads both at
/// once for every event; tests drive both with a manual clock.
public struct Instant: Sendable, Hashable {
    /// Time since the station started, from a monotonic clock. Timer deadlines are on this line.
    public var uptime: Duration
    /// The wall clock.
    public var wall: Date

    public init(uptime: Duration, wall: Date) {
        self.uptime = uptime
        self.wall = wall
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
