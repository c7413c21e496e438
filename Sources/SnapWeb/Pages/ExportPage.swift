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
extension HistoryRoom {
    /// The longest range one export covers.
    static let exportDays = 366

    func export(_ file: String, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let today = try today()
        let to = try exportDay(visitor.form["to"], default: today, words)
        let from = try exportDay(visitor.form["from"], default: to.adding(days: -29), words)
        guard from <= to, from.adding(days: Self.exportDays - 1) >= to else {
            throw WebProblem(
                400, words("page.export.problem.title"),
                words("page.export.problem.range", ["days": words.integer(Self.exportDays)]))
        }
        // One person's meals (`person`), or everyone's; with more than one person, each row says whose.
        let household = try store.household()
        let chosen = chosenPerson(household, visitor)
        var meals: [Meal] = []
        var day = from
        while day <= to {
            meals += try store.meals(on: day).filter { chosen == nil || $0.person == chosen?.id }
                .sorted { $0.photo.takenAt < $1.photo.takenAt }
            day = day.adding(days: 1)
        }
        let whose: ((Meal) -> String)? =
            household.isShared ? { meal in household.person(meal.person).map(words.person) ?? "" } : nil
        let name = "snapstation-\(from)-\(to)\(chosen.map { "-person\($0.id.rawValue)" } ?? "")"
        switch file {
        case "meals.csv":
            return download(
                CSV.document(mealRows(meals, whose), separator: words("csv.separator")), "\(name)-meals.csv",
                type: "text/csv")
        case "items.csv":
            return download(
                CSV.document(itemRows(meals, whose), separator: words("csv.separator")), "\(name)-items.csv",
                type: "text/csv")
        case "meals.json":
            return download(try json(meals, whose, from: from, to: to), "\(name).json", type: "application/json")
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

    // The rows are built a statement at a time: as one expression, Swift 6.2's type checker (the arm64
    // build's) gave up on them.
    private func mealRows(_ meals: [Meal], _ whose: ((Meal) -> String)?) -> [[String]] {
        let head: [String] = ["date", "time", "title", "kcal", "protein_g", "carbs_g", "fats_g", "items", "id"]
        var rows: [[String]] = [head + (whose == nil ? [] : ["person"])]
        for meal in meals {
            let totals = meal.analysis.totals
            let row: [String] = [
                meal.day.description, clock(meal.photo.takenAt), CSV.cell(meal.analysis.title),
                String(totals.calories), String(totals.protein), String(totals.carbs), String(totals.fats),
                String(meal.analysis.items.count), meal.photo.id.rawValue,
            ]
            rows.append(row + (whose.map { [CSV.cell($0(meal))] } ?? []))
        }
        return rows
    }

    private func itemRows(_ meals: [Meal], _ whose: ((Meal) -> String)?) -> [[String]] {
        let head: [String] = [
            "date", "time", "meal", "item", "grams", "kcal", "protein_g", "carbs_g", "fats_g", "contains", "meal_id",
        ]
        var rows: [[String]] = [head + (whose == nil ? [] : ["person"])]
        for meal in meals {
            let person: [String] = whose.map { [CSV.cell($0(meal))] } ?? []
            for item in meal.analysis.items {
                let contains: String = item.contains.map(\.rawValue).sorted().joined(separator: " ")
                let row: [String] = [
                    meal.day.description, clock(meal.photo.takenAt), CSV.cell(meal.analysis.title),
                    CSV.cell(item.name), String(item.grams), String(item.macros.calories),
                    String(item.macros.protein), String(item.macros.carbs), String(item.macros.fats), contains,
                    meal.photo.id.rawValue,
                ]
                rows.append(row + person)
            }
        }
        return rows
    }

    private func json(_ meals: [Meal], _ whose: ((Meal) -> String)?, from: LocalDay, to: LocalDay) throws -> String {
        func macros(_ value: Macros) -> [String: Int] {
            ["kcal": value.calories, "protein_g": value.protein, "carbs_g": value.carbs, "fats_g": value.fats]
        }
        let document: [String: Any] = [
            "from": from.description, "to": to.description,
            "meals": meals.map { meal -> [String: Any] in
                var entry: [String: Any] = [
                    "id": meal.photo.id.rawValue, "date": meal.day.description, "time": clock(meal.photo.takenAt),
                    "title": meal.analysis.title, "totals": macros(meal.analysis.totals),
                    "items": meal.analysis.items.map { item -> [String: Any] in
                        [
                            "name": item.name, "grams": item.grams, "macros": macros(item.macros),
                            "contains": item.contains.map(\.rawValue).sorted(),
                        ]
                    },
                ]
                if let whose { entry["person"] = whose(meal) }
                return entry
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
