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
    /// "2026-03-09". By hand: `String(format:)` went through CoreFoundation's formatter, and History writes
    /// a day in each of its rows and bars.
    public var description: String {
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2)
    }

    /// The day `days` after this one (before it, for a negative count), by arithmetic on the days since
    /// 1970-01-01 (Howard Hinnant's `civil_from_days`): a Calendar for each of a month's days was a tenth
    /// of History's time.
    public func adding(days: Int) -> LocalDay {
        let count = daysSince1970 + days + 719_468
        let era = (count >= 0 ? count : count - 146_096) / 146_097
        let dayOfEra = count - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return LocalDay(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// The days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    var daysSince1970: Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1 Monday to 7 Sunday (ISO 8601), by arithmetic on the days since 1970-01-01, a Thursday: no
    /// Calendar, which costs more than a whole row of History.
    public var weekday: Int { ((daysSince1970 % 7) + 7 + 3) % 7 + 1 }

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
