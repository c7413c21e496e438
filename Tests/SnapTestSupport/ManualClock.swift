import Foundation
import SnapCore

/// A clock tests move by hand: uptime and wall clock advance together, and the wall clock can jump alone.
public struct ManualClock: Sendable {
    public private(set) var now: Instant

    /// Starts at `local` ("2026-03-29 01:30:00") in `timeZone`, with zero uptime.
    public init(local: String, in timeZone: TimeZone) {
        now = Instant(uptime: .zero, wall: Self.date(local, in: timeZone))
    }

    public mutating func advance(by duration: Duration) {
        now.uptime += duration
        now.wall += duration.seconds
    }

    /// Moves the wall clock only, as NTP does to a Pi that booted with a wrong time.
    public mutating func setWall(local: String, in timeZone: TimeZone) {
        now.wall = Self.date(local, in: timeZone)
    }

    /// Parses "yyyy-MM-dd HH:mm:ss" in `timeZone`. On a DST fall-back day, the first of the two matches.
    public static func date(_ local: String, in timeZone: TimeZone) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        guard let date = formatter.date(from: local) else { fatalError("bad test date \(local)") }
        return date
    }
}
