import Foundation
import SnapCore
import SnapStore

extension WebApp {
    /// A day's meals with their thumbnails, times and macros, and the day's totals.
    func dayPage(_ day: LocalDay, _ visitor: Visitor) throws -> WebReply {
        let meals = try store.mealSummaries(on: day)
        let totals = meals.reduce(Macros.zero) { $0 + $1.totals }
        let isToday = day == today()
        let rows = meals.reversed().map { meal -> HTML in
            let id = meal.id.rawValue
            let thumbnail: HTML =
                access(meal.thumbnailPath, F_OK) == 0
                ? "<img src=\"/photo/\(id).thumb.jpg\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">"
                : "<span class=\"nophoto\" title=\"The photo was deleted after \(config.storage.retentionHours) h\"></span>"
            return """
                <li class="meal"><a href="/meal/\(id)">\(thumbnail)<span class="what"><b>\(meal.title)</b>\
                <small>\(clock(meal.takenAt))</small></span><span class="nums">\(macrosLine(meal.totals))</span></a></li>
                """
        }
        let title = isToday ? "Today" : day.description
        let saved = visitor.form["saved"].map { $0 == "deleted" ? "The meal is deleted." : "Saved." }
        return page(
            title,
            """
            \(notice(saved))
            <section class="totals" aria-label="The day's totals">\(macrosLine(totals))
            <small>\(meals.count) meal\(meals.count == 1 ? "" : "s")</small></section>
            \(meals.isEmpty ? "<p class=\"empty\">No meals \(isToday ? "yet today" : "on this day").</p>" as HTML : "")
            <ul class="meals">\(rows)</ul>
            """)
    }

    func historyPage(_ visitor: Visitor) throws -> WebReply {
        let days = try store.mealDays(limit: 120)
        let rows = days.map { entry -> HTML in
            """
            <li><a href="/day/\(entry.day.description)"><b>\(entry.day.description)</b>\
            <span>\(entry.meals) meal\(entry.meals == 1 ? "" : "s") · \(entry.calories) kcal</span></a></li>
            """
        }
        return page(
            "History",
            """
            \(days.isEmpty ? "<p class=\"empty\">No meals yet.</p>" as HTML : "")
            <ul class="days">\(rows)</ul>
            """)
    }

    func storedMeal(_ id: PhotoID) throws -> StoredMeal {
        guard let meal = try store.storedMeal(id) else {
            throw WebProblem.notFound(
                "This meal is not kept on the station (it may have been deleted, here or in another tab).")
        }
        return meal
    }

    /// One meal: its photo and sticker, items with grams, macros and dietary flags, and the form to edit it.
    func mealPage(_ id: PhotoID, _ visitor: Visitor, message: String?, problem: Bool = true, status: Int = 200)
        throws -> WebReply
    {
        let stored = try storedMeal(id)
        let meal = stored.meal
        let preferences = currentPreferences()
        let photo: HTML =
            FileManager.default.fileExists(atPath: meal.photo.photoPath)
            ? "<img class=\"photo\" src=\"/photo/\(id.rawValue).jpg\" alt=\"The photo of \(meal.analysis.title)\">"
            : "<p class=\"empty\">The photo was deleted after \(config.storage.retentionHours) hours; the macros stay.</p>"
        let sticker: HTML =
            stored.stickerPath.map { FileManager.default.fileExists(atPath: $0) } == true
            ? "<img class=\"sticker\" src=\"/photo/\(id.rawValue).sticker.png\" alt=\"Its sticker\">" : ""
        let items = meal.analysis.items.map { item -> HTML in
            let clashes = DietaryPreference.clashes(of: item, with: preferences)
            let flags: HTML =
                clashes.isEmpty
                ? "" : " <span class=\"clash\">not \(clashes.map(\.rawValue).joined(separator: ", "))</span>"
            let tags = item.contains.map(\.rawValue).sorted().joined(separator: ", ")
            return """
                <tr><td>\(item.name)\(flags)\(tags.isEmpty ? "" : HTML("<br><small>contains \(tags)</small>"))</td>\
                <td>\(item.grams) g</td><td>\(item.macros.calories)</td><td>\(item.macros.protein)</td>\
                <td>\(item.macros.carbs)</td><td>\(item.macros.fats)</td></tr>
                """
        }
        let saved = visitor.form["saved"] != nil ? "Saved. The station shows it within a second." : nil
        return page(
            meal.analysis.title, status: status,
            """
            \(notice(message, problem: problem))\(notice(saved))
            <p class="when">\(dateAndTime(meal.photo.takenAt)) · \(macrosLine(meal.analysis.totals))\
            \(stored.totalsSetByOwner ? " <small>(totals set by hand)</small>" as HTML : "")</p>
            <div class="pictures">\(photo)\(sticker)</div>
            \(meal.analysis.funFact.map { HTML("<p class=\"fact\">\($0)</p>") })
            <table class="items"><thead><tr><th>Item</th><th>Weight</th><th>kcal</th><th>P</th><th>C</th><th>F</th></tr>\
            </thead><tbody>\(items)</tbody></table>
            <details class="edit"><summary>Edit this meal</summary>
            \(mealForm(action: "/meal/\(id.rawValue)", analysis: meal.analysis, totalsByHand: stored.totalsSetByOwner, visitor, hidden: "<input type=\"hidden\" name=\"version\" value=\"\(stored.version)\">"))
            </details>
            <div class="actions">
            <form method="post" action="/shopping/add">\(csrfField(visitor))<input type="hidden" name="meal" value="\(id.rawValue)">\
            <button type="submit">Add its ingredients to the shopping list</button></form>
            <a class="danger" href="/meal/\(id.rawValue)/delete">Delete this meal…</a>
            </div>
            """)
    }

    /// The form that edits an analysis: the title, each item (with a box to remove it), a new item, and
    /// the totals, which are the items' sum unless set by hand.
    func mealForm(
        action: String, analysis: MealAnalysis, totalsByHand: Bool, _ visitor: Visitor, hidden: HTML,
        buttons: HTML = "<button type=\"submit\">Save</button>"
    ) -> HTML {
        func number(_ name: String, _ value: Int, _ label: String, max: Int) -> HTML {
            "<label>\(label) <input name=\"\(name)\" type=\"number\" inputmode=\"numeric\" min=\"0\" max=\"\(max)\" value=\"\(value)\"></label>"
        }
        let rows = analysis.items.enumerated().map { index, item -> HTML in
            let p = "item\(index)_"
            return """
                <fieldset class="item"><legend>Item \(index + 1)</legend>
                <label class="wide">Name <input name="\(p)name" maxlength="\(Self.maxName)" value="\(item.name)" required></label>
                \(number(p + "grams", item.grams, "g", max: Self.maxGrams))\(number(p + "kcal", item.macros.calories, "kcal", max: Self.maxKcal))\
                \(number(p + "protein", item.macros.protein, "P", max: Self.maxMacro))\(number(p + "carbs", item.macros.carbs, "C", max: Self.maxMacro))\
                \(number(p + "fats", item.macros.fats, "F", max: Self.maxMacro))
                <label class="remove"><input type="checkbox" name="\(p)remove" value="1"> remove</label>
                </fieldset>
                """
        }
        let totals = analysis.totals
        return """
            <form method="post" action="\(action)" class="meal-form">\(csrfField(visitor))\(hidden)
            <input type="hidden" name="items" value="\(analysis.items.count)">
            <label class="wide">Title <input name="title" maxlength="\(Self.maxName)" value="\(analysis.title)" required></label>
            \(rows)
            <fieldset class="item new"><legend>Add an item</legend>
            <label class="wide">Name <input name="new_name" maxlength="\(Self.maxName)"></label>
            <label>g <input name="new_grams" type="number" min="0" max="\(Self.maxGrams)"></label>\
            <label>kcal <input name="new_kcal" type="number" min="0" max="\(Self.maxKcal)"></label>\
            <label>P <input name="new_protein" type="number" min="0" max="\(Self.maxMacro)"></label>\
            <label>C <input name="new_carbs" type="number" min="0" max="\(Self.maxMacro)"></label>\
            <label>F <input name="new_fats" type="number" min="0" max="\(Self.maxMacro)"></label>
            </fieldset>
            <fieldset class="totals-form"><legend>Totals</legend>
            <label class="wide"><input type="checkbox" name="own_totals" value="1"\(totalsByHand ? " checked" : "")> \
            set the totals by hand (otherwise they are the sum of the items)</label>
            \(number("total_kcal", totals.calories, "kcal", max: Self.maxKcal * Self.maxItems))\
            \(number("total_protein", totals.protein, "P", max: Self.maxMacro * Self.maxItems))\
            \(number("total_carbs", totals.carbs, "C", max: Self.maxMacro * Self.maxItems))\
            \(number("total_fats", totals.fats, "F", max: Self.maxMacro * Self.maxItems))
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
        let title = try form.text("title", label: "The title", maxLength: Self.maxName)
        let count = try form.int("items", label: "The item count", in: 0...Self.maxItems)
        guard count == original.items.count else {
            throw FormProblem("the form does not match the meal any more (it has \(original.items.count) items now)")
        }
        var items: [MealItem] = []
        for index in 0..<count {
            let p = "item\(index)_"
            if form[p + "remove"] != nil { continue }
            let label = "Item \(index + 1)"
            let name = try form.text(p + "name", label: "\(label)'s name", maxLength: Self.maxName)
            var item = original.items[index]
            if name != item.name {
                item.contains = []
                item.ingredients = []
            }
            item.name = name
            item.grams = try form.int(p + "grams", label: "\(label)'s grams", in: 0...Self.maxGrams)
            item.macros = try readMacros(form, prefix: p, label: "\(label)'s", limit: 1)
            items.append(item)
        }
        let newName = try form.text("new_name", label: "The new item's name", maxLength: Self.maxName, allowEmpty: true)
        if !newName.isEmpty {
            guard items.count < Self.maxItems else { throw FormProblem("a meal has at most \(Self.maxItems) items") }
            items.append(
                MealItem(
                    name: newName,
                    grams: try form.int("new_grams", label: "The new item's grams", in: 0...Self.maxGrams),
                    macros: try readMacros(form, prefix: "new_", label: "The new item's", limit: 1)))
        }
        let byHand = form["own_totals"] != nil
        let totals =
            byHand
            ? try readMacros(form, prefix: "total_", label: "The total", limit: Self.maxItems)
            : items.reduce(Macros.zero) { $0 + $1.macros }
        return (MealAnalysis(title: title, totals: totals, items: items, funFact: original.funFact), byHand)
    }

    private func readMacros(_ form: Form, prefix: String, label: String, limit: Int) throws(FormProblem) -> Macros {
        Macros(
            calories: try form.int(prefix + "kcal", label: "\(label) kcal", in: 0...Self.maxKcal * limit),
            protein: try form.int(prefix + "protein", label: "\(label) protein", in: 0...Self.maxMacro * limit),
            carbs: try form.int(prefix + "carbs", label: "\(label) carbs", in: 0...Self.maxMacro * limit),
            fats: try form.int(prefix + "fats", label: "\(label) fats", in: 0...Self.maxMacro * limit))
    }

    /// Saves an edit if nobody changed the meal since the form was loaded; the station hears of it.
    func editMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let stored = try storedMeal(id)
        let form = visitor.form
        let edited: MealAnalysis
        let byHand: Bool
        let version: Int
        do {
            version = try form.int("version", label: "The version", in: 1...Int.max)
            (edited, byHand) = try readMealForm(form, from: stored.meal.analysis)
        } catch {
            return try mealPage(id, visitor, message: "Not saved: \(error.message).", status: 400)
        }
        let result = try store.writingAndWaiting { store throws(StoreError) in
            try store.editMeal(id, edited, totalsSetByOwner: byHand, version: version)
        }
        switch result {
        case .failure(.missing):
            throw WebProblem.notFound("This meal was deleted (in another tab or phone). Nothing was saved.")
        case .failure(.changed):
            return try mealPage(
                id, visitor,
                message:
                    "Not saved: the meal was changed elsewhere (another tab or phone) since you opened it. Here it is as it is now; make your change again.",
                status: 409)
        case .success:
            logger.info("owner's page: meal \(id) edited", metadata: ["kcal": "\(edited.totals.calories)"])
            try mealsChanged(on: stored.meal.day)
            return .redirect("/meal/\(id.rawValue)?saved=1")
        }
    }

    func deletePage(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let meal = try storedMeal(id).meal
        return page(
            "Delete “\(meal.analysis.title)”?",
            """
            <p>\(dateAndTime(meal.photo.takenAt)) · \(macrosLine(meal.analysis.totals))</p>
            <p>The meal, its photo and its sticker are deleted from the station. This cannot be undone.</p>
            <form method="post" action="/meal/\(id.rawValue)/delete">\(csrfField(visitor))
            <button type="submit" class="danger">Delete</button> <a href="/meal/\(id.rawValue)">Keep it</a></form>
            """)
    }

    func deleteMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let day = try store.storedMeal(id)?.meal.day
        let deleted = try store.writingAndWaiting { store throws(StoreError) in try store.deleteMeal(id) }
        guard deleted, let day else {
            throw WebProblem.notFound("This meal was already deleted (in another tab or phone).")
        }
        logger.info("owner's page: meal \(id) deleted")
        try mealsChanged(on: day)
        return .redirect(day == today() ? "/?saved=deleted" : "/day/\(day.description)?saved=deleted")
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
