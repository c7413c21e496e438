import Foundation
import SnapCore
import SnapStore
import SnapText

/// History: the days with meals, the charts of the week and the month against the kcal goal, and the
/// export of a span of days.
extension HistoryRoom {
    func historyPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let days = try store.mealDays(limit: 120)
        let row = rowWords(words)
        let dayLine = words.template("page.history.day", ["count", "kcal"])
        let rows = days.map { entry -> HTML in
            """
            <li><a href="/day/\(entry.day.description)"><b>\(row.day(entry.day))</b>\
            <span>\(dayLine(count: entry.meals, words.integer(entry.meals), row.kcal(entry.calories)))</span></a></li>
            """
        }
        let today = try today()
        let month = (0..<30).map { today.adding(days: $0 - 29) }
        let totals = try store.dayTotals(from: month[0], to: today).mapValues(\.totals)
        let goal = inForce.goals.calories
        let charts: HTML =
            days.isEmpty
            ? ""
            : """
            <section class="charts">
            \(chart(MealChart(days: Array(month.suffix(7)), totals: totals, goal: goal), "page.chart.week", every: 1, row))
            \(chart(MealChart(days: month, totals: totals, goal: goal), "page.chart.month", every: 5, row))
            <p class="legend"><span class="p"></span>\(words("page.settings.goal_protein")) \
            <span class="c"></span>\(words("page.settings.goal_carbs")) <span class="f"></span>\(words("page.settings.goal_fats"))</p>
            </section>
            """
        return page(
            words("page.history.title"),
            """
            \(days.isEmpty ? "<p class=\"empty\">\(words("page.history.empty"))</p>" as HTML : "")
            \(charts)
            <ul class="days">\(rows)</ul>
            <section class="export"><h2>\(words("page.export.title"))</h2><p>\(words("page.export.text"))</p>
            <form method="get" action="/export/meals.csv">
            <label>\(words("page.export.from")) <input type="date" name="from" value="\(today.adding(days: -29).description)"></label>
            <label>\(words("page.export.to")) <input type="date" name="to" value="\(today.description)"></label>
            <div class="buttons"><button type="submit">\(words("page.export.meals_csv"))</button>
            <button type="submit" formaction="/export/items.csv" class="secondary">\(words("page.export.items_csv"))</button>
            <button type="submit" formaction="/export/meals.json" class="secondary">\(words("page.export.json"))</button></div>
            </form></section>
            """)
    }
}

extension HistoryRoom {
    /// A chart with its heading and what it says in words: the average, and the days over and under the goal.
    func chart(_ chart: MealChart, _ title: String, every: Int, _ row: RowWords) -> HTML {
        let words = row.words
        let summary = chart.summary
        var said = [words("page.chart.logged", count: summary.logged)]
        if let average = summary.average { said.append(words("page.chart.average", ["kcal": words.kcal(average)])) }
        if chart.goal > 0 {
            said.append(words("page.chart.over", count: summary.over))
            said.append(words("page.chart.under", count: summary.under))
        }
        return """
            <figure><figcaption><b>\(words(title))</b> <small>\(said.joined(separator: " · "))</small></figcaption>
            \(chart.svg(row, label: words(title), every: every))</figure>
            """
    }
}
