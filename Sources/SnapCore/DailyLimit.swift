import Foundation

/// The arithmetic of "once per local day": when the day ends, and how long until it does.
public enum DailyLimit {
    /// The first instant of the local day after the one containing `date`.
    ///
    /// Computed by the calendar, not by adding 24 hours, so it is right on the days that have 23 or 25
    /// hours, and in zones where midnight itself is skipped by a DST change (the day then starts at the
    /// first instant that exists).
    public static func nextReset(after date: Date, in timeZone: TimeZone) -> Date {
        let calendar = Calendar.gregorian(in: timeZone)
        guard let today = calendar.dateInterval(of: .day, for: date) else {
            return date.addingTimeInterval(24 * 3600)
        }
        return today.end
    }

    /// The first instant of the local day after `day`.
    public static func nextReset(after day: LocalDay, in timeZone: TimeZone) -> Date {
        let calendar = Calendar.gregorian(in: timeZone)
        let noon = DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)
        guard let middle = calendar.date(from: noon) else { return .distantFuture }
        return nextReset(after: middle, in: timeZone)
    }

    /// Time from `date` until the end of `day`, the countdown a lock screen shows.
    public static func remaining(from date: Date, untilEndOf day: LocalDay, in timeZone: TimeZone) -> Duration {
        let seconds = nextReset(after: day, in: timeZone).timeIntervalSince(date)
        return .seconds(max(0, seconds.rounded(.up)))
    }
}
