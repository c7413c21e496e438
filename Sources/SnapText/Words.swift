import Foundation

/// What a person reads, in one language: every text on the display and the page is looked up here by
/// its key, with its placeholders filled by name and its plural form chosen by the language's rule.
/// A key a language lacks falls back to English's text (`CatalogTests` keep that from shipping); a key
/// English lacks shows as itself, which the key scan in `CatalogTests` catches first.
///
///     words("lock.group", ["group": "Family"])
///     words("ready.analyses_left", count: 2)        // "2 analyses left today"
///     words.decimal(0.5, digits: 1)                 // "0.5", "0,5"
///
/// Numbers, times and dates follow the language too: a decimal comma where it writes one, a 24-hour
/// clock in all five (SnapStation's decision: an appliance's clock reads the same in every kitchen),
/// weekday and month names from the catalog. None of it goes through ICU's locale data, so the binary
/// carries only these catalogs.
public struct Words: Sendable, Hashable {
    public let language: Language

    public init(_ language: Language = .en) { self.language = language }

    /// The text of `key` with its placeholders filled.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        switch entry(key) {
        case .text(let text)?: Self.fill(text, values)
        case .plural(let forms)?: Self.fill(forms[.other] ?? key, values)
        case nil: key
        }
    }

    /// The form of `key` for `count` (its `{count}` is the number as the language writes it).
    public func callAsFunction(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        var values = values
        values["count"] = integer(count)
        switch entry(key) {
        case .plural(let forms)?:
            let category = Catalog.of(language).plural.category(count)
            return Self.fill(forms[category] ?? forms[.other] ?? key, values)
        case .text(let text)?: return Self.fill(text, values)
        case nil: return key
        }
    }

    private func entry(_ key: String) -> Catalog.Entry? {
        Catalog.of(language).entries[key] ?? Catalog.of(.en).entries[key]
    }

    /// `text` with each `{name}` replaced by its value (one without a value stays as it is). Searched in
    /// UTF-8 for the braces, which are ASCII: a page of 500 meals fills thousands of texts, and walking
    /// them by Character took a fifth of its time.
    private static func fill(_ text: String, _ values: [String: String]) -> String {
        let bytes = text.utf8
        guard bytes.contains(UInt8(ascii: "{")) else { return text }
        var result = ""
        result.reserveCapacity(bytes.count + 16)
        var copied = bytes.startIndex
        while let open = bytes[copied...].firstIndex(of: UInt8(ascii: "{")),
            let close = bytes[open...].firstIndex(of: UInt8(ascii: "}"))
        {
            result += text[copied..<open]
            let name = String(text[bytes.index(after: open)..<close])
            result += values[name] ?? String(text[open...close])
            copied = bytes.index(after: close)
        }
        result += text[copied...]
        return result
    }

    // MARK: Numbers

    /// A whole number: digits grouped from 10 000 up, with the language's separator ("12 500", "12.500").
    public func integer(_ value: Int) -> String {
        if (0..<10_000).contains(value) { return String(value) }
        let digits = String(value.magnitude)
        guard digits.count > 4 else { return value < 0 ? "-" + digits : digits }
        let separator = self("number.group")
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// `value` rounded to `digits` decimals, with the language's decimal mark ("0.5", "0,5").
    public func decimal(_ value: Double, digits: Int) -> String {
        let scale = pow(10, Double(digits))
        let scaled = Int((abs(value) * scale).rounded())
        let whole = integer(scaled / Int(scale))
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + whole }
        let fraction = String(scaled % Int(scale))
        return sign + whole + self("number.decimal") + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// A share as a percentage, spaced as the language spaces it ("40%", "40 %").
    public func percent(_ value: Int) -> String { self("number.percent", ["n": integer(value)]) }

    // MARK: Times and dates

    /// "07:05": a 24-hour clock.
    public static func clock(hour: Int, minute: Int) -> String {
        (hour < 10 ? "0" : "") + String(hour) + (minute < 10 ? ":0" : ":") + String(minute)
    }

    /// The name of a weekday, 1 Monday to 7 Sunday (ISO 8601).
    public func weekday(_ day: Int) -> String { self("date.weekday.\(day)") }

    /// The short name of a weekday, for a chart's axis.
    public func shortWeekday(_ day: Int) -> String { self("date.weekday.short.\(day)") }

    /// The name of a month, 1 January to 12 December.
    public func month(_ month: Int) -> String { self("date.month.\(month)") }

    /// A day as a page's history heads it: "Monday 3 March", "Montag, 3. März".
    public func day(year: Int, month: Int, day: Int, weekday: Int) -> String {
        self(
            "date.day",
            ["weekday": self.weekday(weekday), "day": String(day), "month": self.month(month), "year": String(year)])
    }
}
