import Foundation

/// The two date formats the station reads from servers, parsed by hand: a timestamp as PostgREST writes
/// one (RFC 3339: "2026-03-10T12:00:00.123456+00:00") and an HTTP date (RFC 9110's IMF-fixdate: "Tue, 10
/// Mar 2026 12:00:00 GMT"). Foundation's formatters hand these to ICU, which a hostile fraction of a few
/// hundred digits crashed with a division fault (found by fuzzing the Supabase listing,
/// Tests/Fuzz/crashes/supabase-crash-5a46…); here every field is bounded and checked.
public enum InternetDate {
    /// An RFC 3339 timestamp: date, "T" (or a space, as PostgreSQL prints), time with seconds, an optional
    /// fraction (any length; nanoseconds are kept), and "Z" or an offset of ±HH, ±HHMM or ±HH:MM.
    public static func rfc3339(_ text: String) -> Date? {
        var scanner = Digits(Array(text.utf8))
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
            let day = scanner.number(2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.number(2), scanner.skip(":"), let minute = scanner.number(2), scanner.skip(":"),
            let second = scanner.number(2)
        else { return nil }
        var nanoseconds = 0
        if scanner.skip(".") {
            var digits = 0
            while let digit = scanner.digit() {
                if digits < 9 { nanoseconds = nanoseconds * 10 + digit }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanoseconds *= 10 }
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(2), hours <= 23 else { return nil }
            _ = scanner.skip(":")
            let minutes = scanner.atEnd ? 0 : scanner.number(2)
            guard let minutes, minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }
        return date(year, month, day, hour, minute, second, nanoseconds: nanoseconds, offset: offset)
    }

    /// An HTTP date in the IMF-fixdate form every server sends today.
    public static func http(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2, let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2])
        else { return nil }
        return date(year, month + 1, day, hour, minute, second, nanoseconds: 0, offset: 0)
    }

    /// Seconds since 1970 for a civil date and time, with every field checked.
    static func date(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, nanoseconds: Int,
        offset: Int
    ) -> Date? {
        guard (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let seconds = daysFromEpoch(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar: whole 400-year eras (146,097
    /// days each) from 0000-03-01, with the year counted from March so that the leap day falls last.
    static func daysFromEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Reads ASCII digits and marks from bytes, one field at a time.
    struct Digits {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { index == bytes.count }

        mutating func digit() -> Int? {
            guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
            defer { index += 1 }
            return Int(bytes[index] - 48)
        }

        /// Exactly `count` digits.
        mutating func number(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func skip(_ mark: Character) -> Bool {
            guard index < bytes.count, bytes[index] == mark.asciiValue else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
