import Foundation
import SnapCore
import SnapStore
import SnapText

/// History: the days with meals, the charts of the week and the month against the kcal goal, and the
/// export of a span of days.
extension HistoryRoom {
    func historyPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let (today, days, everyone) = try store.mealHistory(limit: 120, span: 30, in: timeZone, at: now())
        let household = try store.household()
        let chosen = chosenPerson(household, visitor)
        // The charts and their numbers are one person's where one is chosen; the days listed, everyone's.
        let totals =
            try chosen.map {
                try store.dayTotals(of: $0.id, from: today.adding(days: -29), to: today).mapValues(\.totals)
            }
            ?? everyone
        let row = rowWords(words)
        let dayLine = words.template("page.history.day", ["count", "kcal"])
        var rows = MarkupWriter(capacity: days.count * 120)
        for entry in days {
            rows.raw("<li><a href=\"/day/")
            rows.raw(entry.day.description)
            rows.raw("\"><b>")
            rows.text(row.day(entry.day))
            rows.raw("</b><span>")
            rows.text(dayLine(count: entry.meals, words.integer(entry.meals), row.kcal(entry.calories)))
            rows.raw("</span></a></li>")
        }
        let month = (0..<30).map { today.adding(days: $0 - 29) }
        let goal = goals(of: chosen, in: household).calories
        let charts: HTML =
            days.isEmpty
            ? ""
            : """
            <section class="charts">
            <svg class="patterns" aria-hidden="true" focusable="false"><defs>\
            <pattern id="pattern-c" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
            <rect class="swatch-c" width="8" height="8"/><rect class="mark" width="2.5" height="8"/></pattern>\
            <pattern id="pattern-f" width="8" height="8" patternUnits="userSpaceOnUse">\
            <rect class="swatch-f" width="8" height="8"/><circle class="mark" cx="4" cy="4" r="1.8"/></pattern></defs></svg>
            \(chart(MealChart(days: Array(month.suffix(7)), totals: totals, goal: goal), "page.chart.week", every: 1, row))
            \(chart(MealChart(days: month, totals: totals, goal: goal), "page.chart.month", every: 5, row))
            <p class="legend"><span class="p"></span>\(words("page.settings.goal_protein")) \
            <span class="c"></span>\(words("page.settings.goal_carbs")) <span class="f"></span>\(words("page.settings.goal_fats"))</p>
            \(values(month, totals, row))
            </section>
            """
        return page(
            words("page.history.title"),
            """
            \(peopleNav(household, chosen: chosen, path: "/history", words))
            \(days.isEmpty ? "<p class=\"empty\">\(words("page.history.empty"))</p>" as HTML : "")
            \(charts)
            <ul class="days">\(rows.html)</ul>
            <section class="export"><h2>\(words("page.export.title"))</h2><p>\(words("page.export.text"))</p>
            <form method="get" action="/export/meals.csv">
            <label>\(words("page.export.from")) <input type="date" name="from" value="\(today.adding(days: -29).description)"></label>
            <label>\(words("page.export.to")) <input type="date" name="to" value="\(today.description)"></label>\
            \(household.isShared ? exportPeople(household, chosen: chosen, words) : "")
            <div class="buttons"><button type="submit">\(words("page.export.meals_csv"))</button>
            <button type="submit" formaction="/export/items.csv" class="secondary">\(words("page.export.items_csv"))</button>
            <button type="submit" formaction="/export/meals.json" class="secondary">\(words("page.export.json"))</button></div>
            </form></section>
            """)
    }
}

extension HistoryRoom {
    /// The export's choice of whose meals: everyone's, or one person's.
    func exportPeople(_ household: Household, chosen: Person?, _ words: Words) -> HTML {
        let options = household.people.map { person -> HTML in
            "<option value=\"\(person.id.rawValue)\"\(chosen?.id == person.id ? " selected" : "" as HTML)>\(words.person(person))</option>"
        }
        return """
            <label>\(words("page.people.whose")) <select name="person"><option value="">\(words("page.people.all"))</option>\(options)</select></label>
            """
    }

    /// What the charts draw, in numbers: each day with meals, newest first, its kcal and each macro's
    /// grams (a bar's parts are told apart by pattern as well as colour, and here by name).
    func values(_ days: [LocalDay], _ totals: [LocalDay: Macros], _ row: RowWords) -> HTML {
        let words = row.words
        let rows = days.reversed().compactMap { day -> HTML? in
            guard let macros = totals[day] else { return nil }
            return """
                <tr><th scope="row">\(row.day(day))</th><td>\(words.integer(macros.calories))</td>\
                <td>\(words.integer(macros.protein))</td><td>\(words.integer(macros.carbs))</td>\
                <td>\(words.integer(macros.fats))</td></tr>
                """
        }
        let title = words("page.chart.values")
        return """
            <details class="chart-values"><summary>\(title)</summary>
            \(tableBox(title, """
            <table class="items"><thead><tr><th scope="col">\(words("page.chart.day"))</th>\
            <th scope="col">\(words("page.field.kcal"))</th><th scope="col">\(words("page.field.protein"))</th>\
            <th scope="col">\(words("page.field.carbs"))</th><th scope="col">\(words("page.field.fats"))</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """))
            </details>
            """
    }

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
