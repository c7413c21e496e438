import Foundation

/// A calendar day in the station's time zone; the unit of the daily limits.
public struct LocalDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The local day that contains `date` in `timeZone`.
    public init(containing date: Date, in timeZone: TimeZone) {
        let parts = Calendar.gregorian(in: timeZone).dateComponents([.year, .month, .day], from: date)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// Parses the `YYYY-MM-DD` form that `description` writes.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2], (1...12).contains(month),
            (1...31).contains(day), (1...9999).contains(year)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`, the form kept in the store and in file names.
    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// The day `days` after this one (before it, for a negative count).
    public func adding(days: Int) -> LocalDay {
        let utc = Calendar.gregorian(in: TimeZone(identifier: "UTC")!)
        let noon =
            utc.date(from: DateComponents(year: year, month: month, day: day, hour: 12))
            ?? Date(timeIntervalSince1970: 0)
        return LocalDay(containing: utc.date(byAdding: .day, value: days, to: noon) ?? noon, in: utc.timeZone)
    }

    /// 1 Monday to 7 Sunday (ISO 8601), by arithmetic on the days since 1970-01-01, a Thursday (Howard
    /// Hinnant's `days_from_civil`): no Calendar, which costs more than a whole row of History.
    public var weekday: Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days % 7) + 7 + 3) % 7 + 1
    }

    public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

extension Calendar {
    /// A Gregorian calendar fixed to `timeZone`, so that results never depend on the process's locale.
    public static func gregorian(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
