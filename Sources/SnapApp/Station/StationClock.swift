import Foundation
import SnapCore
import SnapFiles

/// Reads the station's `Instant` from the machine's clocks (`SystemClock`): uptime from the monotonic
/// clock, and the wall clock.
public struct StationClock: Sendable {
    private let clock = SystemClock()

    public init() {}

    public func now() -> Instant {
        Instant(uptime: clock.uptime, wall: clock.wall)
    }

    /// The monotonic instant of an uptime deadline, for the machine's timers (`TimerThread`).
    public func instant(ofUptime deadline: Duration) -> ContinuousClock.Instant {
        clock.instant(ofUptime: deadline)
    }
}
