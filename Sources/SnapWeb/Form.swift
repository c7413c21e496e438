import Foundation
import SnapText

/// A submitted `application/x-www-form-urlencoded` form, read field by field with the checks each field
/// needs; every problem names the field as the page labels it, in the page's language (`words`).
struct Form: Sendable {
    private(set) var fields: [(name: String, value: String)] = []
    /// The language its problems are said in.
    let words: Words

    /// The largest form read: a meal of 50 items is a few kilobytes.
    static let maxBytes = 64 * 1024
    /// Fields beyond this many are a broken or hostile form.
    static let maxFields = 1000

    init(fields: [(name: String, value: String)], words: Words) {
        self.fields = fields
        self.words = words
    }

    /// Parses a form body, or a query string.
    init(parsing text: some StringProtocol, words: Words) throws(FormProblem) {
        self.words = words
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard fields.count < Self.maxFields else { throw FormProblem(words("page.form.too_many_fields")) }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(Substring(parts[0])),
                let value = Self.decode(parts.count > 1 ? Substring(parts[1]) : "")
            else {
                throw FormProblem(words("page.form.not_encoded"))
            }
            fields.append((name, value))
        }
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    subscript(_ name: String) -> String? { fields.last { $0.name == name }?.value }

    /// Every value of a field that repeats (checkboxes).
    func all(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// Trimmed text of at most `maxLength` characters; empty only when `allowEmpty`.
    func text(_ name: String, label: String, maxLength: Int, allowEmpty: Bool = false) throws(FormProblem) -> String {
        let value = (self[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if value.isEmpty && !allowEmpty { throw FormProblem(words("page.form.empty", ["label": label]), field: name) }
        if value.count > maxLength {
            throw FormProblem(words("page.form.too_long", count: maxLength, ["label": label]), field: name)
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw FormProblem(words("page.form.control", ["label": label]), field: name)
        }
        return value
    }

    // A problem writes its numbers as they were typed, and the bounds the same way (no digit grouping),
    // so the person compares like with like.

    /// A whole number in `range`.
    func int(_ name: String, label: String, in range: ClosedRange<Int>) throws(FormProblem) -> Int {
        let raw = (self[name] ?? "").trimmingCharacters(in: .whitespaces)
        guard let value = Int(raw) else {
            throw FormProblem(
                raw.isEmpty
                    ? words("page.form.empty", ["label": label])
                    : words("page.form.not_whole", ["label": label, "value": String(raw.prefix(20))]), field: name)
        }
        guard range.contains(value) else {
            throw FormProblem(
                words(
                    "page.form.outside",
                    [
                        "label": label, "value": String(value), "low": String(range.lowerBound),
                        "high": String(range.upperBound),
                    ]), field: name)
        }
        return value
    }

    /// A number in `range` (a comma as the decimal mark is read too).
    func number(_ name: String, label: String, in range: ClosedRange<Double>) throws(FormProblem) -> Double {
        let raw = (self[name] ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        guard let value = Double(raw), value.isFinite else {
            throw FormProblem(
                raw.isEmpty
                    ? words("page.form.empty", ["label": label])
                    : words("page.form.not_number", ["label": label, "value": String(raw.prefix(20))]), field: name)
        }
        guard range.contains(value) else {
            throw FormProblem(
                words(
                    "page.form.outside",
                    [
                        "label": label, "value": Self.format(value), "low": Self.format(range.lowerBound),
                        "high": Self.format(range.upperBound),
                    ]), field: name)
        }
        return value
    }

    /// A number as a field's value holds it: no trailing ".0", no digit grouping, a point as the decimal
    /// mark (the form reads it back; `Words.number(_:)` is the one for text).
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }
}

/// What was wrong with a submitted form, said the way the page shows it (in its language).
struct FormProblem: Error, Sendable, Equatable, CustomStringConvertible {
    var message: String
    /// The field at fault, by its name in the form; nil when the form as a whole is.
    var field: String?
    /// The form's other wrong fields, when it was read whole (`FormReading`).
    var others: [FormProblem] = []

    init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }

    var description: String { message }
    /// This problem and the others, in the form's order.
    var all: [FormProblem] { [self] + others }
}

/// Reads a form on past a wrong field, so that a failed form comes back with every wrong field marked,
/// not only the first: each read gives its fallback when its field is wrong, and `check` throws the
/// first problem with the others.
struct FormReading {
    private(set) var problems: [FormProblem] = []

    mutating func read<T>(_ fallback: T, _ field: () throws(FormProblem) -> T) -> T {
        do {
            return try field()
        } catch {
            // A field read whole may bring its own others (the goals' four): each problem once, flat.
            problems += error.all.map { problem in
                var alone = problem
                alone.others = []
                return alone
            }
            return fallback
        }
    }

    func check() throws(FormProblem) {
        guard var first = problems.first else { return }
        first.others = Array(problems.dropFirst())
        throw first
    }
}
