import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// One meal's page: its photo, items and macros, and the form that edits it.
extension MealsRoom {
    func storedMeal(_ id: PhotoID) throws -> StoredMeal {
        guard let meal = try store.storedMeal(id) else {
            let words = self.words
            throw WebProblem.notFound(words("page.meal.not_kept"), words)
        }
        return meal
    }

    /// One meal: its photo and sticker, items with grams, macros and dietary flags, and the form to edit it.
    func mealPage(
        _ id: PhotoID, _ visitor: Visitor, message: String?, problem: Bool = true, status: Int = 200,
        echo: FormEcho = FormEcho()
    ) throws -> WebReply {
        let words = self.words
        let stored = try storedMeal(id)
        let meal = stored.meal
        let preferences = currentPreferences()
        let photo: HTML =
            FileManager.default.fileExists(atPath: meal.photo.photoPath)
            ? "<img class=\"photo\" src=\"/photo/\(id.rawValue).jpg\" alt=\"\(words("page.meal.photo_alt", ["title": meal.analysis.title]))\">"
            : "<p class=\"empty\">\(words("page.meal.photo_deleted", count: retentionHours))</p>"
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
        let correction = corrections.correctionNotice(id, words)
        // Another person's meal, on a household member's phone: seen, not changed.
        let mine = visitor.session.mayChange(mealsOf: meal.person, in: try store.household())
        return page(
            meal.analysis.title, status: status, refresh: correction?.refresh,
            """
            \(echo.summary(words))\(notice(message, problem: problem))\(notice(saved))\(notice(correction?.text, problem: correction?.problem ?? false))
            <p class="when">\(dateAndTime(meal.photo.takenAt, words)) · \(macrosLine(meal.analysis.totals, words))\
            \(stored.totalsSetByOwner ? " <small>\(words("page.meal.totals_by_hand"))</small>" as HTML : "")</p>
            \(try personForm(stored, visitor, words))
            <div class="pictures">\(photo)\(sticker)</div>
            \(meal.analysis.funFact.map { HTML("<p class=\"fact\">\($0)</p>") })
            \(tableBox(words("page.meal.items"), """
            <table class="items"><thead><tr><th>\(words("page.meal.item"))</th><th>\(words("page.field.grams"))</th>\
            <th>\(words("page.field.kcal"))</th><th>\(words("page.field.protein"))</th><th>\(words("page.field.carbs"))</th>\
            <th>\(words("page.field.fats"))</th></tr></thead><tbody>\(items)</tbody></table>
            """))
            \(mine ? changes(stored, visitor, echo: echo, words) : "")
            <div class="actions">
            <form method="post" action="/shopping/add">\(csrfField(visitor))<input type="hidden" name="meal" value="\(id.rawValue)">\
            <button type="submit">\(words("page.meal.add_to_shopping"))</button></form>
            \(mine ? """
            <form method="post" action="/meal/\(id.rawValue)/again">\(csrfField(visitor))\
            <button type="submit" class="secondary" title="\(words("page.meal.again_hint"))">\(words("page.meal.again"))</button></form>
            <a class="danger" href="/meal/\(id.rawValue)/delete">\(words("page.meal.delete_link"))</a>
            """ as HTML : "")
            </div>
            """)
    }

    /// A meal's corrections asked of the AI, and its form.
    private func changes(_ stored: StoredMeal, _ visitor: Visitor, echo: FormEcho, _ words: Words) -> HTML {
        let id = stored.meal.photo.id
        return """
            \(corrections.correctionSection(id, stored, visitor, words))
            <details class="edit"\(echo.failed ? " open" : "")><summary>\(words("page.meal.edit"))</summary>
            \(mealForm(action: "/meal/\(id.rawValue)", analysis: stored.meal.analysis, totalsByHand: stored.totalsSetByOwner, visitor, words, hidden: "<input type=\"hidden\" name=\"version\" value=\"\(stored.version)\">", echo: echo))
            </details>
            """
    }

    /// The form that edits an analysis: the title, each item (with a box to remove it), a new item, and
    /// the totals, which are the items' sum unless set by hand. A form that failed (`echo`) comes back
    /// with what was typed and its wrong fields marked; the browser checks what it can before sending.
    func mealForm(
        action: String, analysis: MealAnalysis, totalsByHand: Bool, _ visitor: Visitor, _ words: Words, hidden: HTML,
        buttons: HTML? = nil, echo: FormEcho = FormEcho()
    ) -> HTML {
        func field(_ name: String, _ label: String, _ input: HTML, stored: String, wide: Bool = false) -> HTML {
            """
            <label\(wide ? " class=\"wide\"" as HTML : "")>\(label) <input name="\(name)"\(echo.attributes(name))\(input) \
            value="\(echo.value(name, stored))"></label>\(echo.message(name))
            """
        }
        func number(_ name: String, _ value: Int?, _ label: String, max: Int, required: Bool = true) -> HTML {
            let required: HTML = value != nil && required ? " required" : ""
            return field(
                name, label, " type=\"number\" inputmode=\"numeric\" min=\"0\" max=\"\(max)\"\(required)",
                stored: value.map(String.init) ?? "")
        }
        func text(_ name: String, _ label: String, _ value: String?) -> HTML {
            let required: HTML = value == nil ? "" : " required"
            return field(name, label, " maxlength=\"\(Self.maxName)\"\(required)", stored: value ?? "", wide: true)
        }
        let (grams, kcal, protein, carbs, fats) = (
            words("page.field.grams"), words("page.field.kcal"), words("page.field.protein"),
            words("page.field.carbs"), words("page.field.fats")
        )
        let name = words("page.meal.form.name")
        let rows = analysis.items.enumerated().map { index, item -> HTML in
            let p = "item\(index)_"
            return """
                <fieldset class="item"><legend>\(words("page.meal.form.item", ["n": words.integer(index + 1)]))</legend>
                \(text(p + "name", name, item.name))
                \(number(p + "grams", item.grams, grams, max: Self.maxGrams))\(number(p + "kcal", item.macros.calories, kcal, max: Self.maxKcal))\
                \(number(p + "protein", item.macros.protein, protein, max: Self.maxMacro))\(number(p + "carbs", item.macros.carbs, carbs, max: Self.maxMacro))\
                \(number(p + "fats", item.macros.fats, fats, max: Self.maxMacro))
                <label class="remove"><input type="checkbox" name="\(p)remove" value="1"\(echo.checked(p + "remove", false))> \
                \(words("page.meal.form.remove"))</label>
                </fieldset>
                """
        }
        let totals = analysis.totals
        let buttons = buttons ?? "<button type=\"submit\">\(words("page.form.save"))</button>"
        return """
            <form method="post" action="\(action)" class="meal-form">\(csrfField(visitor))\(hidden)
            <input type="hidden" name="items" value="\(analysis.items.count)">
            \(text("title", words("page.meal.form.title"), analysis.title))
            \(rows)
            <fieldset class="item new"><legend>\(words("page.meal.form.add_item"))</legend>
            \(text("new_name", name, nil))
            \(number("new_grams", nil, grams, max: Self.maxGrams))\(number("new_kcal", nil, kcal, max: Self.maxKcal))\
            \(number("new_protein", nil, protein, max: Self.maxMacro))\(number("new_carbs", nil, carbs, max: Self.maxMacro))\
            \(number("new_fats", nil, fats, max: Self.maxMacro))
            </fieldset>
            <fieldset class="totals-form"><legend>\(words("page.meal.form.totals"))</legend>
            <label class="wide"><input type="checkbox" name="own_totals" value="1"\(echo.checked("own_totals", totalsByHand))> \
            \(words("page.meal.form.own_totals"))</label>
            \(number("total_kcal", totals.calories, kcal, max: Self.maxKcal * Self.maxItems, required: false))\
            \(number("total_protein", totals.protein, protein, max: Self.maxMacro * Self.maxItems, required: false))\
            \(number("total_carbs", totals.carbs, carbs, max: Self.maxMacro * Self.maxItems, required: false))\
            \(number("total_fats", totals.fats, fats, max: Self.maxMacro * Self.maxItems, required: false))
            </fieldset>
            <div class="buttons">\(buttons)</div>
            </form>
            """
    }

    static let maxName = MealBounds.formName
    static let maxItems = MealBounds.formItems
    static let maxGrams = MealBounds.formGrams
    static let maxKcal = MealBounds.formKcal
    static let maxMacro = MealBounds.formMacro

    /// Reads the meal form into an analysis, every field checked (each wrong field is named, not only the
    /// first: `FormReading`); an item's tags and ingredients stay with it while its name does. Returns the
    /// analysis and whether the totals were set by hand.
    func readMealForm(_ form: Form, from original: MealAnalysis) throws(FormProblem) -> (MealAnalysis, Bool) {
        let words = form.words
        var reading = FormReading()
        let title = reading.read("") {
            () throws(FormProblem) in
            try form.text("title", label: words("page.meal.field.title"), maxLength: Self.maxName)
        }
        let count = try form.int("items", label: words("page.meal.field.item_count"), in: 0...Self.maxItems)
        guard count == original.items.count else {
            throw FormProblem(words("page.meal.problem.mismatch", count: original.items.count))
        }
        var items: [MealItem] = []
        for index in 0..<count {
            let p = "item\(index)_"
            if form[p + "remove"] != nil { continue }
            let n = ["n": words.integer(index + 1)]
            var item = original.items[index]
            let name = reading.read(item.name) {
                () throws(FormProblem) in
                try form.text(p + "name", label: words("page.meal.field.item.name", n), maxLength: Self.maxName)
            }
            if name != item.name {
                item.contains = []
                item.ingredients = []
            }
            item.name = name
            let grams = reading.read(item.grams) {
                () throws(FormProblem) in
                try form.int(p + "grams", label: words("page.meal.field.item.grams", n), in: 0...Self.maxGrams)
            }
            let typed = readMacros(
                form, prefix: p, limit: 1, into: &reading,
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
        let newName = reading.read("") {
            () throws(FormProblem) in
            try form.text(
                "new_name", label: words("page.meal.field.new.name"), maxLength: Self.maxName, allowEmpty: true)
        }
        if !newName.isEmpty {
            guard items.count < Self.maxItems else {
                throw FormProblem(words("page.meal.problem.too_many_items", count: Self.maxItems), field: "new_name")
            }
            let grams = reading.read(0) {
                () throws(FormProblem) in
                try form.int("new_grams", label: words("page.meal.field.new.grams"), in: 0...Self.maxGrams)
            }
            let macros = readMacros(
                form, prefix: "new_", limit: 1, into: &reading,
                labels: (
                    words("page.meal.field.new.kcal"), words("page.meal.field.new.protein"),
                    words("page.meal.field.new.carbs"), words("page.meal.field.new.fats")
                ))
            items.append(MealItem(name: newName, grams: grams, macros: macros))
        }
        let byHand = form["own_totals"] != nil
        let totals =
            byHand
            ? readMacros(
                form, prefix: "total_", limit: Self.maxItems, into: &reading,
                labels: (
                    words("page.meal.field.total.kcal"), words("page.meal.field.total.protein"),
                    words("page.meal.field.total.carbs"), words("page.meal.field.total.fats")
                ))
            : items.reduce(Macros.zero) { $0 + $1.macros }
        try reading.check()
        return (MealAnalysis(title: title, totals: totals, items: items, funFact: original.funFact), byHand)
    }

    /// The four macro fields after `prefix`, each named in a problem by its label.
    private func readMacros(
        _ form: Form, prefix: String, limit: Int, into reading: inout FormReading,
        labels: (kcal: String, protein: String, carbs: String, fats: String)
    ) -> Macros {
        func field(_ name: String, _ label: String, _ most: Int) -> Int {
            reading.read(0) {
                () throws(FormProblem) in
                try form.int(prefix + name, label: label, in: 0...most * limit)
            }
        }
        return Macros(
            calories: field("kcal", labels.kcal, Self.maxKcal),
            protein: field("protein", labels.protein, Self.maxMacro),
            carbs: field("carbs", labels.carbs, Self.maxMacro), fats: field("fats", labels.fats, Self.maxMacro))
    }

}
