import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// Today, any day, and the history: the meals with their macros, the goals' meters and the charts.
extension MealsRoom {
    /// A day's meals with their thumbnails, times and macros, and the day's totals; `asked` nil for the
    /// station's day.
    func dayPage(_ asked: LocalDay?, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let today = try today()
        let day = asked ?? today
        let household = try store.household()
        let chosen = chosenPerson(household, visitor)
        let meals = try store.mealSummaries(on: day).filter { chosen == nil || $0.person == chosen?.id }
        let totals = meals.reduce(Macros.zero) { $0 + $1.totals }
        let isToday = day == today
        let deletedAfter = words("page.today.photo_deleted", ["hours": words.integer(retentionHours)])
        var row = rowWords(words)
        // The rows written into one string as they go: 500 of them, each made as a value of its own and
        // joined after, was a third of the page's time.
        var rows = MarkupWriter(capacity: meals.count * 330)
        let nophoto = "<span class=\"nophoto\" title=\"" + HTML.escaped(deletedAfter) + "\"></span>"
        for meal in meals.reversed() {
            let id = meal.id.rawValue  // 1 to 64 of A-Z a-z 0-9 _ - (`PhotoID`): nothing to escape
            rows.raw("<li class=\"meal\"><a href=\"/meal/")
            rows.raw(id)
            if meal.hasPhoto {
                rows.raw("\"><img src=\"/photo/")
                rows.raw(id)
                rows.raw(".thumb.jpg\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">")
            } else {
                rows.raw("\">")
                rows.raw(nophoto)
            }
            if household.isShared && chosen == nil, let person = household.person(meal.person) {
                // Whose, by their colour and name: the name for a screen reader, the dot for a glance.
                rows.raw("<span class=\"swatch person-")
                rows.raw(person.colour.rawValue)
                rows.raw("\" title=\"")
                rows.text(words.person(person))
                rows.raw("\"></span>")
            }
            rows.raw("<span class=\"what\"><b>")
            rows.text(meal.title)
            rows.raw("</b><small>")
            rows.raw(row.clock(meal.takenAt))
            rows.raw("</small></span><span class=\"nums\">")
            row.write(meal.totals, into: &rows)
            rows.raw("</span></a></li>\n")
        }
        let title = isToday ? words("page.today.title") : words.day(day)
        let goals = goals(of: chosen, in: household)
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
            case "logged": words("page.today.logged")
            default: words("page.saved")
            }
        }
        let empty = isToday ? words("page.today.empty") : words("page.today.empty_day")
        return page(
            title,
            """
            \(notice(saved))\(peopleNav(household, chosen: chosen, path: isToday ? "/" : "/day/\(day.description)", words))
            <section class="totals" aria-label="\(words("page.today.totals"))">\(macrosLine(totals, words))
            <small>\(words("page.today.meals", count: meals.count))</small></section>
            \(goalsSection)
            \(meals.isEmpty ? "<p class=\"empty\">\(empty)</p>" as HTML : "")
            <ul class="meals">\(rows.html)</ul>
            """)
    }
}

extension PageRoom {
    /// The person a page of days is about (`?person=2`), or nil for the whole household (and always, with
    /// one person).
    func chosenPerson(_ household: Household, _ visitor: PageVisitor) -> Person? {
        guard household.isShared, let number = visitor.form["person"].flatMap(Int.init) else { return nil }
        return household.person(PersonID(rawValue: number))
    }

    /// The goals a day of `person` is measured against: the owner's are the station's (Settings); the
    /// household's day, where several people share the station, has none of its own.
    func goals(of person: Person?, in household: Household) -> Macros {
        guard household.isShared else { return inForce.goals }
        guard let person else { return .zero }
        return household.goals(of: person.id, station: inForce.goals)
    }

    /// The household's people as links to `path` for one of them or all (`?person=`), the one shown
    /// marked; nothing with one person.
    func peopleNav(_ household: Household, chosen: Person?, path: String, _ words: Words) -> HTML {
        guard household.isShared else { return "" }
        func link(_ target: String, _ label: HTML, current: Bool) -> HTML {
            "<a href=\"\(target)\"\(current ? " aria-current=\"page\"" as HTML : "")>\(label)</a>"
        }
        let people = household.people.map { person -> HTML in
            link(
                "\(path)?person=\(person.id.rawValue)",
                "<span class=\"swatch person-\(person.colour.rawValue)\"></span> \(words.person(person))",
                current: chosen?.id == person.id)
        }
        return """
            <nav class="people" aria-label="\(words("page.people.whose"))">\(link(path, "\(words("page.people.all"))", current: chosen == nil))\(people)</nav>
            """
    }
}
