import Foundation

/// CLOCK_MONOTONIC, the clock of the kernel's GPIO event timestamps and of camera sensor timestamps.
///
/// Swift's ContinuousClock reads CLOCK_BOOTTIME on Linux, which differs once a board has suspended, so
/// driver code that compares with kernel timestamps reads this one.
public enum MonotonicClock {
    public static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
