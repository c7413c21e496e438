import Foundation
import SnapCore

/// Reads the station's `Instant`: uptime from the monotonic clock, and the wall clock.
public struct StationClock: Sendable {
    private let start: ContinuousClock.Instant

    public init() {
        start = ContinuousClock.now
    }

    public func now() -> Instant {
        Instant(uptime: ContinuousClock.now - start, wall: Date())
    }

    /// The monotonic instant of an uptime deadline, for `Task.sleep(until:)`.
    public func instant(ofUptime deadline: Duration) -> ContinuousClock.Instant {
        start + deadline
    }
}
