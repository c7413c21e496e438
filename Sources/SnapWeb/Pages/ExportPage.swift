import Foundation
import SnapCore
import SnapStore
import SnapText

/// The meal log as files a spreadsheet or a script reads: the meals and their items as CSV, and both as
/// JSON, over a range of days (`?from=YYYY-MM-DD&to=YYYY-MM-DD`, the last 30 days without one; at most
/// a year).
///
/// The CSV is what LibreOffice and Excel open: UTF-8 with a byte-order mark (Excel reads UTF-8 only with
/// it), one header row, ISO dates and 24-hour times, whole numbers without grouping, CRLF line ends and
/// fields quoted as RFC 4180 says (the separator, a quote, a line break; quotes doubled). The separator is
/// the one the language's spreadsheets use (`csv.separator`: a comma in English, a semicolon where a
/// comma is the decimal mark), or Excel opens every row in one column. A text cell that would start a
/// formula (`=`, `+`, `-`, `@`, a tab) gets a `'` before it, as OWASP advises: the meal's title comes from
/// the AI or the owner, and a spreadsheet must not run it. The column names are the data's, in English
/// and the same in every language, so a script that reads them keeps working.
extension WebApp {
    /// The longest range one export covers.
    static let exportDays = 366

    func export(_ file: String, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let today = today()
        let to = try exportDay(visitor.form["to"], default: today, words)
        let from = try exportDay(visitor.form["from"], default: to.adding(days: -29), words)
        guard from <= to, from.adding(days: Self.exportDays - 1) >= to else {
            throw WebProblem(
                400, words("page.export.problem.title"),
                words("page.export.problem.range", ["days": words.integer(Self.exportDays)]))
        }
        var meals: [Meal] = []
        var day = from
        while day <= to {
            meals += try store.meals(on: day).sorted { $0.photo.takenAt < $1.photo.takenAt }
            day = day.adding(days: 1)
        }
        let name = "snapstation-\(from)-\(to)"
        switch file {
        case "meals.csv":
            return download(CSV.text(mealRows(meals), words), "\(name)-meals.csv", type: "text/csv")
        case "items.csv":
            return download(CSV.text(itemRows(meals), words), "\(name)-items.csv", type: "text/csv")
        case "meals.json":
            return download(try json(meals, from: from, to: to), "\(name).json", type: "application/json")
        default: throw WebProblem.notFound(words("page.problem.no_page", ["path": "/export/\(file)"]), words)
        }
    }

    private func exportDay(_ raw: String?, default value: LocalDay, _ words: Words) throws -> LocalDay {
        guard let raw, !raw.isEmpty else { return value }
        guard let day = LocalDay(raw) else {
            throw WebProblem(400, words("page.export.problem.title"), words("page.problem.not_a_day", ["day": raw]))
        }
        return day
    }

    private func mealRows(_ meals: [Meal]) -> [[String]] {
        [["date", "time", "title", "kcal", "protein_g", "carbs_g", "fats_g", "items", "id"]]
            + meals.map { meal in
                let totals = meal.analysis.totals
                return [
                    meal.day.description, clock(meal.photo.takenAt), CSV.text(meal.analysis.title),
                    String(totals.calories),
                    String(totals.protein), String(totals.carbs), String(totals.fats),
                    String(meal.analysis.items.count), meal.photo.id.rawValue,
                ]
            }
    }

    private func itemRows(_ meals: [Meal]) -> [[String]] {
        [["date", "time", "meal", "item", "grams", "kcal", "protein_g", "carbs_g", "fats_g", "contains", "meal_id"]]
            + meals.flatMap { meal in
                meal.analysis.items.map { item in
                    [
                        meal.day.description, clock(meal.photo.takenAt), CSV.text(meal.analysis.title),
                        CSV.text(item.name),
                        String(item.grams), String(item.macros.calories), String(item.macros.protein),
                        String(item.macros.carbs), String(item.macros.fats),
                        item.contains.map(\.rawValue).sorted().joined(separator: " "), meal.photo.id.rawValue,
                    ]
                }
            }
    }

    private func json(_ meals: [Meal], from: LocalDay, to: LocalDay) throws -> String {
        func macros(_ value: Macros) -> [String: Int] {
            ["kcal": value.calories, "protein_g": value.protein, "carbs_g": value.carbs, "fats_g": value.fats]
        }
        let document: [String: Any] = [
            "from": from.description, "to": to.description,
            "meals": meals.map { meal -> [String: Any] in
                [
                    "id": meal.photo.id.rawValue, "date": meal.day.description, "time": clock(meal.photo.takenAt),
                    "title": meal.analysis.title, "totals": macros(meal.analysis.totals),
                    "items": meal.analysis.items.map { item -> [String: Any] in
                        [
                            "name": item.name, "grams": item.grams, "macros": macros(item.macros),
                            "contains": item.contains.map(\.rawValue).sorted(),
                        ]
                    },
                ]
            },
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func download(_ text: String, _ filename: String, type: String) -> WebReply {
        WebReply(
            headers: [
                ("Content-Type", "\(type); charset=utf-8"),
                ("Content-Disposition", "attachment; filename=\"\(filename)\""), ("Cache-Control", "no-store"),
            ],
            body: Array(text.utf8))
    }
}

/// Comma-separated values as RFC 4180 writes them, for spreadsheets.
enum CSV {
    /// The rows with a UTF-8 byte-order mark before them (Excel reads UTF-8 only with it), the fields
    /// apart by the language's separator and CRLF after each row.
    static func text(_ rows: [[String]], _ words: Words) -> String {
        let separator = words("csv.separator")
        return "\u{FEFF}" + rows.map { $0.map { field($0, separator) }.joined(separator: separator) + "\r\n" }.joined()
    }

    /// One field: quoted, with its quotes doubled, when it holds a `,`, a `;`, a tab, a quote or a line break,
    /// whatever the language's separator: a reader set to the other separator must not split it into cells
    /// (OWASP, CSV injection).
    static func field(_ value: String, _ separator: String) -> String {
        let quoted = value.unicodeScalars.contains { scalar in
            scalar == "," || scalar == ";" || scalar == "\t" || scalar == "\"" || scalar.isNewlineLike
        }
        guard quoted || value.contains(separator) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A text from the AI or the owner as a cell: with a `'` before it when a spreadsheet would take it for
    /// a formula, that is when it starts with `=`, `+`, `-`, `@`, a tab or a line break, also behind
    /// leading spaces, control, zero-width and combining characters (judged by Unicode scalar: "\r\n=1+2"
    /// is one grapheme, and "=\u{301}" another that starts with `=`).
    static func text(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard let first = scalars.first else { return value }
        let meaningful = scalars.first { !$0.isIgnoredBeforeFormula }
        let formula: Set<Unicode.Scalar> = ["=", "+", "-", "@"]
        guard formula.contains(first) || "\t\r\n".unicodeScalars.contains(first)
            || meaningful.map(formula.contains) == true
        else { return value }
        return "'" + value
    }
}

extension Unicode.Scalar {
    /// A line feed, carriage return, vertical tab, form feed, next line, or line or paragraph separator.
    fileprivate var isNewlineLike: Bool {
        ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"].contains(self)
    }

    /// What a spreadsheet skips before it reads a formula, or what shows nothing of its own: white space,
    /// control and format characters (zero-width joiners, direction marks) and combining marks.
    fileprivate var isIgnoredBeforeFormula: Bool {
        switch properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark,
            .enclosingMark, .spacingMark:
            true
        default:
            properties.isWhitespace
        }
    }
}
