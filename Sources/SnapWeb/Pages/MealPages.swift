import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

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
        let goals = rule.inForce((try? store.runtimeSettings()) ?? RuntimeSettings()).goals
        let progress = Self.goalFields.compactMap { field -> HTML? in
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
        let goal = rule.inForce((try? store.runtimeSettings()) ?? RuntimeSettings()).goals.calories
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

    func storedMeal(_ id: PhotoID) throws -> StoredMeal {
        guard let meal = try store.storedMeal(id) else {
            let words = self.words
            throw WebProblem.notFound(words("page.meal.not_kept"), words)
        }
        return meal
    }

    /// One meal: its photo and sticker, items with grams, macros and dietary flags, and the form to edit it.
    func mealPage(_ id: PhotoID, _ visitor: Visitor, message: String?, problem: Bool = true, status: Int = 200)
        throws -> WebReply
    {
        let words = self.words
        let stored = try storedMeal(id)
        let meal = stored.meal
        let preferences = currentPreferences()
        let photo: HTML =
            FileManager.default.fileExists(atPath: meal.photo.photoPath)
            ? "<img class=\"photo\" src=\"/photo/\(id.rawValue).jpg\" alt=\"\(words("page.meal.photo_alt", ["title": meal.analysis.title]))\">"
            : "<p class=\"empty\">\(words("page.meal.photo_deleted", count: config.storage.retentionHours))</p>"
        let sticker: HTML =
            stored.stickerPath.map { FileManager.default.fileExists(atPath: $0) } == true
            ? "<img class=\"sticker\" src=\"/photo/\(id.rawValue).sticker.png\" alt=\"\(words("page.meal.sticker_alt"))\">"
            : ""
        let items = meal.analysis.items.map { item -> HTML in
            let clashes = DietaryPreference.clashes(of: item, with: preferences)
            let diets = clashes.map(words.dietary).joined(separator: ", ")
            let flags: HTML =
                clashes.isEmpty ? "" : " <span class=\"clash\">\(words("page.meal.clash", ["diets": diets]))</span>"
            let tags = item.contains.map(words.food).sorted().joined(separator: ", ")
            return """
                <tr><td>\(item.name)\(flags)\(tags.isEmpty ? "" : HTML("<br><small>\(words("page.meal.contains", ["tags": tags]))</small>"))</td>\
                <td>\(words("page.meal.grams", ["grams": words.integer(item.grams)]))</td><td>\(words.integer(item.macros.calories))</td>\
                <td>\(words.integer(item.macros.protein))</td><td>\(words.integer(item.macros.carbs))</td>\
                <td>\(words.integer(item.macros.fats))</td></tr>
                """
        }
        let saved = visitor.form["saved"].map { _ in words("page.meal.saved") }
        let correction = correctionNotice(id, words)
        return page(
            meal.analysis.title, status: status, refresh: correction?.refresh,
            """
            \(notice(message, problem: problem))\(notice(saved))\(notice(correction?.text, problem: correction?.problem ?? false))
            <p class="when">\(dateAndTime(meal.photo.takenAt, words)) · \(macrosLine(meal.analysis.totals, words))\
            \(stored.totalsSetByOwner ? " <small>\(words("page.meal.totals_by_hand"))</small>" as HTML : "")</p>
            <div class="pictures">\(photo)\(sticker)</div>
            \(meal.analysis.funFact.map { HTML("<p class=\"fact\">\($0)</p>") })
            <table class="items"><thead><tr><th>\(words("page.meal.item"))</th><th>\(words("page.meal.weight"))</th>\
            <th>\(words("page.macro.kcal"))</th><th>\(words("page.macro.protein"))</th><th>\(words("page.macro.carbs"))</th>\
            <th>\(words("page.macro.fats"))</th></tr></thead><tbody>\(items)</tbody></table>
            \(correctionSection(id, stored, visitor, words))
            <details class="edit"><summary>\(words("page.meal.edit"))</summary>
            \(mealForm(action: "/meal/\(id.rawValue)", analysis: meal.analysis, totalsByHand: stored.totalsSetByOwner, visitor, words, hidden: "<input type=\"hidden\" name=\"version\" value=\"\(stored.version)\">"))
            </details>
            <div class="actions">
            <form method="post" action="/shopping/add">\(csrfField(visitor))<input type="hidden" name="meal" value="\(id.rawValue)">\
            <button type="submit">\(words("page.meal.add_to_shopping"))</button></form>
            <form method="post" action="/meal/\(id.rawValue)/again">\(csrfField(visitor))\
            <button type="submit" class="secondary" title="\(words("page.meal.again_hint"))">\(words("page.meal.again"))</button></form>
            <a class="danger" href="/meal/\(id.rawValue)/delete">\(words("page.meal.delete_link"))</a>
            </div>
            """)
    }

    /// The form that edits an analysis: the title, each item (with a box to remove it), a new item, and
    /// the totals, which are the items' sum unless set by hand.
    func mealForm(
        action: String, analysis: MealAnalysis, totalsByHand: Bool, _ visitor: Visitor, _ words: Words, hidden: HTML,
        buttons: HTML? = nil
    ) -> HTML {
        func number(_ name: String, _ value: Int, _ label: String, max: Int) -> HTML {
            "<label>\(label) <input name=\"\(name)\" type=\"number\" inputmode=\"numeric\" min=\"0\" max=\"\(max)\" value=\"\(value)\"></label>"
        }
        let (grams, kcal, protein, carbs, fats) = (
            words("page.macro.grams"), words("page.macro.kcal"), words("page.macro.protein"),
            words("page.macro.carbs"), words("page.macro.fats")
        )
        let name = words("page.meal.form.name")
        let rows = analysis.items.enumerated().map { index, item -> HTML in
            let p = "item\(index)_"
            return """
                <fieldset class="item"><legend>\(words("page.meal.form.item", ["n": words.integer(index + 1)]))</legend>
                <label class="wide">\(name) <input name="\(p)name" maxlength="\(Self.maxName)" value="\(item.name)" required></label>
                \(number(p + "grams", item.grams, grams, max: Self.maxGrams))\(number(p + "kcal", item.macros.calories, kcal, max: Self.maxKcal))\
                \(number(p + "protein", item.macros.protein, protein, max: Self.maxMacro))\(number(p + "carbs", item.macros.carbs, carbs, max: Self.maxMacro))\
                \(number(p + "fats", item.macros.fats, fats, max: Self.maxMacro))
                <label class="remove"><input type="checkbox" name="\(p)remove" value="1"> \(words("page.meal.form.remove"))</label>
                </fieldset>
                """
        }
        let totals = analysis.totals
        let buttons = buttons ?? "<button type=\"submit\">\(words("page.form.save"))</button>"
        return """
            <form method="post" action="\(action)" class="meal-form">\(csrfField(visitor))\(hidden)
            <input type="hidden" name="items" value="\(analysis.items.count)">
            <label class="wide">\(words("page.meal.form.title")) <input name="title" maxlength="\(Self.maxName)" value="\(analysis.title)" required></label>
            \(rows)
            <fieldset class="item new"><legend>\(words("page.meal.form.add_item"))</legend>
            <label class="wide">\(name) <input name="new_name" maxlength="\(Self.maxName)"></label>
            <label>\(grams) <input name="new_grams" type="number" min="0" max="\(Self.maxGrams)"></label>\
            <label>\(kcal) <input name="new_kcal" type="number" min="0" max="\(Self.maxKcal)"></label>\
            <label>\(protein) <input name="new_protein" type="number" min="0" max="\(Self.maxMacro)"></label>\
            <label>\(carbs) <input name="new_carbs" type="number" min="0" max="\(Self.maxMacro)"></label>\
            <label>\(fats) <input name="new_fats" type="number" min="0" max="\(Self.maxMacro)"></label>
            </fieldset>
            <fieldset class="totals-form"><legend>\(words("page.meal.form.totals"))</legend>
            <label class="wide"><input type="checkbox" name="own_totals" value="1"\(totalsByHand ? " checked" : "")> \
            \(words("page.meal.form.own_totals"))</label>
            \(number("total_kcal", totals.calories, kcal, max: Self.maxKcal * Self.maxItems))\
            \(number("total_protein", totals.protein, protein, max: Self.maxMacro * Self.maxItems))\
            \(number("total_carbs", totals.carbs, carbs, max: Self.maxMacro * Self.maxItems))\
            \(number("total_fats", totals.fats, fats, max: Self.maxMacro * Self.maxItems))
            </fieldset>
            <div class="buttons">\(buttons)</div>
            </form>
            """
    }

    static let maxName = 80
    static let maxItems = 50
    static let maxGrams = 5000
    static let maxKcal = 10_000
    static let maxMacro = 1000

    /// Reads the meal form into an analysis, every field checked; an item's tags and ingredients stay
    /// with it while its name does. Returns the analysis and whether the totals were set by hand.
    func readMealForm(_ form: Form, from original: MealAnalysis) throws(FormProblem) -> (MealAnalysis, Bool) {
        let words = form.words
        let title = try form.text("title", label: words("page.meal.field.title"), maxLength: Self.maxName)
        let count = try form.int("items", label: words("page.meal.field.item_count"), in: 0...Self.maxItems)
        guard count == original.items.count else {
            throw FormProblem(words("page.meal.problem.mismatch", count: original.items.count))
        }
        var items: [MealItem] = []
        for index in 0..<count {
            let p = "item\(index)_"
            if form[p + "remove"] != nil { continue }
            let n = ["n": words.integer(index + 1)]
            let name = try form.text(p + "name", label: words("page.meal.field.item.name", n), maxLength: Self.maxName)
            var item = original.items[index]
            if name != item.name {
                item.contains = []
                item.ingredients = []
            }
            item.name = name
            let grams = try form.int(p + "grams", label: words("page.meal.field.item.grams", n), in: 0...Self.maxGrams)
            let typed = try readMacros(
                form, prefix: p, limit: 1,
                labels: (
                    words("page.meal.field.item.kcal", n), words("page.meal.field.item.protein", n),
                    words("page.meal.field.item.carbs", n), words("page.meal.field.item.fats", n)
                ))
            if typed != item.macros {
                // The owner's own numbers: they are the item's per-gram values from now on.
                item.macros = typed
                item.grams = grams
                item.estimate = nil
            } else if grams != item.grams {
                // Only the weight changed: the numbers follow it, from the estimate's per-gram values.
                item = item.portion(grams)
            }
            items.append(item)
        }
        let newName = try form.text(
            "new_name", label: words("page.meal.field.new.name"), maxLength: Self.maxName, allowEmpty: true)
        if !newName.isEmpty {
            guard items.count < Self.maxItems else {
                throw FormProblem(words("page.meal.problem.too_many_items", count: Self.maxItems))
            }
            items.append(
                MealItem(
                    name: newName,
                    grams: try form.int("new_grams", label: words("page.meal.field.new.grams"), in: 0...Self.maxGrams),
                    macros: try readMacros(
                        form, prefix: "new_", limit: 1,
                        labels: (
                            words("page.meal.field.new.kcal"), words("page.meal.field.new.protein"),
                            words("page.meal.field.new.carbs"), words("page.meal.field.new.fats")
                        ))))
        }
        let byHand = form["own_totals"] != nil
        let totals =
            byHand
            ? try readMacros(
                form, prefix: "total_", limit: Self.maxItems,
                labels: (
                    words("page.meal.field.total.kcal"), words("page.meal.field.total.protein"),
                    words("page.meal.field.total.carbs"), words("page.meal.field.total.fats")
                ))
            : items.reduce(Macros.zero) { $0 + $1.macros }
        return (MealAnalysis(title: title, totals: totals, items: items, funFact: original.funFact), byHand)
    }

    /// The four macro fields after `prefix`, each named in a problem by its label.
    private func readMacros(
        _ form: Form, prefix: String, limit: Int, labels: (kcal: String, protein: String, carbs: String, fats: String)
    ) throws(FormProblem) -> Macros {
        Macros(
            calories: try form.int(prefix + "kcal", label: labels.kcal, in: 0...Self.maxKcal * limit),
            protein: try form.int(prefix + "protein", label: labels.protein, in: 0...Self.maxMacro * limit),
            carbs: try form.int(prefix + "carbs", label: labels.carbs, in: 0...Self.maxMacro * limit),
            fats: try form.int(prefix + "fats", label: labels.fats, in: 0...Self.maxMacro * limit))
    }

    /// Saves an edit if nobody changed the meal since the form was loaded; the station hears of it.
    func editMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let stored = try storedMeal(id)
        let form = visitor.form
        let edited: MealAnalysis
        let byHand: Bool
        let version: Int
        do {
            version = try form.int("version", label: words("page.meal.field.version"), in: 1...Int.max)
            (edited, byHand) = try readMealForm(form, from: stored.meal.analysis)
        } catch {
            return try mealPage(
                id, visitor, message: words("page.form.not_saved", ["problem": error.message]), status: 400)
        }
        let result = try store.writingAndWaiting { store throws(StoreError) in
            try store.editMeal(id, edited, totalsSetByOwner: byHand, version: version)
        }
        switch result {
        case .failure(.missing):
            throw WebProblem.notFound(words("page.meal.deleted_elsewhere"), words)
        case .failure(.changed):
            return try mealPage(id, visitor, message: words("page.meal.changed_elsewhere"), status: 409)
        case .success:
            logger.info("owner's page: meal \(id) edited", metadata: ["kcal": "\(edited.totals.calories)"])
            try mealsChanged(on: stored.meal.day)
            return .redirect("/meal/\(id.rawValue)?saved=1")
        }
    }

    func deletePage(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let meal = try storedMeal(id).meal
        return page(
            words("page.meal.delete.title", ["title": meal.analysis.title]),
            """
            <p>\(dateAndTime(meal.photo.takenAt, words)) · \(macrosLine(meal.analysis.totals, words))</p>
            <p>\(words("page.meal.delete.text"))</p>
            <form method="post" action="/meal/\(id.rawValue)/delete">\(csrfField(visitor))
            <button type="submit" class="danger">\(words("page.meal.delete.button"))</button> \
            <a href="/meal/\(id.rawValue)">\(words("page.meal.delete.keep"))</a></form>
            """)
    }

    func deleteMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let day = try store.storedMeal(id)?.meal.day
        let deleted = try store.writingAndWaiting { store throws(StoreError) in try store.deleteMeal(id) }
        guard deleted, let day else {
            let words = self.words
            throw WebProblem.notFound(words("page.meal.already_deleted"), words)
        }
        logger.info("owner's page: meal \(id) deleted")
        try mealsChanged(on: day)
        return .redirect(day == (try today()) ? "/?saved=deleted" : "/day/\(day.description)?saved=deleted")
    }

    /// Logs a meal from history again today: its title and numbers, with no new photo and no analysis
    /// used. Its photo's files are copied where they are still kept (each meal owns its files, so deleting
    /// one leaves the other whole); the station hears of today's meals and drops its sticker into the jar.
    func eatAgain(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let original = try storedMeal(id).meal
        let (moment, day) = (now(), try today())
        let again = PhotoID.new(at: moment, in: timeZone)
        let paths = store.paths(for: again, day: day)
        var photo = ProcessedPhoto(id: again, photoPath: "", thumbnailPath: "", takenAt: moment)
        let jpeg = FileBytes.readIfPresent(original.photo.photoPath)
        let thumbnail = FileBytes.readIfPresent(original.photo.thumbnailPath)
        // The meal's own sticker: retention keeps it after the photo's files are gone (48 hours by default),
        // so a meal from last week still drops its sticker into the jar.
        let sticker = FileBytes.readIfPresent(try storedMeal(id).stickerPath ?? "")
        if jpeg != nil && thumbnail != nil { (photo.photoPath, photo.thumbnailPath) = (paths.photo, paths.thumbnail) }
        if sticker != nil { photo.stickerPath = paths.sticker }
        let meal = Meal(photo: photo, day: day, analysis: original.analysis)
        if jpeg == nil || thumbnail == nil, let sticker {
            // Files first, then the row, as everywhere in the store.
            try AtomicFile.createFolder((paths.sticker as NSString).deletingLastPathComponent)
            try AtomicFile.write(sticker, to: paths.sticker)
        }
        try store.writingAndWaiting { store throws(StoreError) in
            if let jpeg, let thumbnail {
                try store.storePhoto(meal.photo, jpeg: jpeg, thumbnail: thumbnail, sticker: sticker)
            }
            try store.saveMeal(meal)
        }
        logger.info("owner's page: meal \(id) logged again today as \(again)")
        try mealsChanged(on: day)
        return .redirect("/?saved=again")
    }

    /// Tells the station the day's meals as the store now holds them; the station keeps those of the days
    /// it shows (today's totals, its jar's days) and ignores the rest.
    func mealsChanged(on day: LocalDay) throws {
        link.send(.mealsChanged(day: day, try store.meals(on: day)))
    }

    /// The dietary preferences in force (the config's where the owner's settings cannot be read).
    func currentPreferences() -> Set<DietaryPreference> {
        rule.inForce((try? store.runtimeSettings()) ?? RuntimeSettings()).dietaryPreferences
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
