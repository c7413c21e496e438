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

    /// Parses the `YYYY-MM-DD` form that `description` writes: three numbers of digits only, between two
    /// dashes. By bytes: splitting the text was most of reading a year of days from the store for History.
    public init?(_ text: String) {
        var parts = (0, 0, 0)
        var (part, digits) = (0, 0)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                guard digits > 0, part < 2 else { return nil }
                (part, digits) = (part + 1, 0)
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            switch part {
            case 0: parts.0 = parts.0 * 10 + digit
            case 1: parts.1 = parts.1 * 10 + digit
            default: parts.2 = parts.2 * 10 + digit
            }
            digits += 1
        }
        let (year, month, day) = parts
        guard part == 2, digits > 0, (1...12).contains(month), (1...31).contains(day), (1...9999).contains(year)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`, the form kept in the store and in file names.
    /// "2026-03-09". By hand, digit by digit into the string's own ten bytes: `String(format:)` went
    /// through CoreFoundation's formatter, and History writes a day in each of its rows and bars.
    public var description: String {
        guard (0...9999).contains(year), (0...99).contains(month), (0...99).contains(day) else {
            // Only arithmetic far from any meal's day gets here: zero-padded as wide as it needs.
            func padded(_ value: Int, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
        }
        return String(unsafeUninitializedCapacity: 10) { text in
            func put(_ value: Int, width: Int, endingAt end: Int) {
                var rest = value
                for place in (end - width..<end).reversed() {
                    text[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, width: 4, endingAt: 4)
            text[4] = UInt8(ascii: "-")
            put(month, width: 2, endingAt: 7)
            text[7] = UInt8(ascii: "-")
            put(day, width: 2, endingAt: 10)
            return 10
        }
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
