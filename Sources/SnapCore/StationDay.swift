import Foundation

/// The station's local day: the wall clock's day, but never earlier than the latest day anything was
/// recorded for (a send, an analysis, a meal). A clock that jumps backwards (a Pi without a real-time
/// clock before NTP) therefore cannot reopen a day that is already used.
///
/// The one rule for "today": the state machine holds one, and the page and the analysis queue make one
/// from the store's latest recorded day (`StationStore.stationDay(in:)`), so all three count on the
/// same day.
public struct StationDay: Sendable, Equatable {
    public let timeZone: TimeZone
    /// The latest day anything was recorded for; nil before the first.
    public private(set) var recorded: LocalDay?

    public init(timeZone: TimeZone, recorded: LocalDay? = nil) {
        self.timeZone = timeZone
        self.recorded = recorded
    }

    /// The station's day at the wall clock's `time`.
    public func today(at time: Date) -> LocalDay {
        let wallDay = LocalDay(containing: time, in: timeZone)
        guard let recorded else { return wallDay }
        return max(wallDay, recorded)
    }

    /// Whether the wall clock is behind the station's day at `time` (set back since something was recorded).
    public func clockIsBehind(at time: Date) -> Bool {
        LocalDay(containing: time, in: timeZone) < today(at: time)
    }

    /// Something was recorded for `day`: the station's day never goes back before it.
    public mutating func record(_ day: LocalDay) {
        recorded = max(recorded ?? day, day)
    }
}

/// The AI service's answers a day allows (`ai.daily_limit`), against those answered that day: what the
/// station's ready screen and lock, the analysis queue, a correction and a planned meal each spend from.
public struct DailyBudget: Sendable, Equatable {
    public let limit: Int
    public let used: Int

    public init(limit: Int, used: Int) {
        self.limit = limit
        self.used = used
    }

    /// The analyses left today.
    public var left: Int { max(0, limit - used) }

    /// No analysis is left today: nothing more is asked of the AI until midnight.
    public var isSpent: Bool { left == 0 }
}
