import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// Today, any day, and the history: the meals with their macros, the goals' meters and the charts.
extension WebApp {
    /// A day's meals with their thumbnails, times and macros, and the day's totals.
    func dayPage(_ day: LocalDay, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let meals = try store.mealSummaries(on: day)
        let totals = meals.reduce(Macros.zero) { $0 + $1.totals }
        let isToday = day == (try today())
        let deletedAfter = words("page.today.photo_deleted", ["hours": words.integer(config.storage.retentionHours)])
        let rows = meals.reversed().map { meal -> HTML in
            let id = meal.id.rawValue
            let thumbnail: HTML =
                access(meal.thumbnailPath, F_OK) == 0
                ? "<img src=\"/photo/\(id).thumb.jpg\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">"
                : "<span class=\"nophoto\" title=\"\(deletedAfter)\"></span>"
            return """
                <li class="meal"><a href="/meal/\(id)">\(thumbnail)<span class="what"><b>\(meal.title)</b>\
                <small>\(clock(meal.takenAt))</small></span><span class="nums">\(macrosLine(meal.totals, words))</span></a></li>
                """
        }
        let title = isToday ? words("page.today.title") : words.day(day)
        let goals = inForce.goals
        let progress = SettingsForm.goalFields.compactMap { field -> HTML? in
            let (done, goal) = (totals[keyPath: field.value], goals[keyPath: field.value])
            guard goal > 0 else { return nil }
            let amount =
                field.name == "goal_kcal"
                ? words.kcal(done, goal: goal)
                : words("page.today.grams_goal", ["done": words.integer(done), "goal": words.integer(goal)])
            return """
                <li\(done > goal ? " class=\"over\"" as HTML : "")><span>\(words(field.label))</span>\
                <meter min="0" max="\(goal)" high="\(goal)" value="\(done)">\(amount)</meter><span>\(amount)</span></li>
                """
        }
        let goalsSection: HTML =
            progress.isEmpty
            ? "" : "<ul class=\"goals\" aria-label=\"\(words("page.today.goals"))\">\(progress)</ul>"
        let saved = visitor.form["saved"].map { saved in
            switch saved {
            case "deleted": words("page.today.deleted")
            case "again": words("page.today.again")
            default: words("page.saved")
            }
        }
        let empty = isToday ? words("page.today.empty") : words("page.today.empty_day")
        return page(
            title,
            """
            \(notice(saved))
            <section class="totals" aria-label="\(words("page.today.totals"))">\(macrosLine(totals, words))
            <small>\(words("page.today.meals", count: meals.count))</small></section>
            \(goalsSection)
            \(meals.isEmpty ? "<p class=\"empty\">\(empty)</p>" as HTML : "")
            <ul class="meals">\(rows)</ul>
            """)
    }

    func historyPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let days = try store.mealDays(limit: 120)
        let rows = days.map { entry -> HTML in
            """
            <li><a href="/day/\(entry.day.description)"><b>\(words.day(entry.day))</b>\
            <span>\(words("page.history.day", count: entry.meals, ["kcal": words.kcal(entry.calories)]))</span></a></li>
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
            \(chart(MealChart(days: Array(month.suffix(7)), totals: totals, goal: goal), "page.chart.week", every: 1, words))
            \(chart(MealChart(days: month, totals: totals, goal: goal), "page.chart.month", every: 5, words))
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

extension WebApp {
    /// A chart with its heading and what it says in words: the average, and the days over and under the goal.
    func chart(_ chart: MealChart, _ title: String, every: Int, _ words: Words) -> HTML {
        let summary = chart.summary
        var said = [words("page.chart.logged", count: summary.logged)]
        if let average = summary.average { said.append(words("page.chart.average", ["kcal": words.kcal(average)])) }
        if chart.goal > 0 {
            said.append(words("page.chart.over", count: summary.over))
            said.append(words("page.chart.under", count: summary.under))
        }
        return """
            <figure><figcaption><b>\(words(title))</b> <small>\(said.joined(separator: " · "))</small></figcaption>
            \(chart.svg(words, label: words(title), every: every))</figure>
            """
    }
}
