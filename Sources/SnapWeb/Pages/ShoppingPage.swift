import Foundation
import SnapCore
import SnapStore
import SnapText

extension PlansRoom {
    /// The shopping list: every line editable and tickable in one form, lines added by hand, from the
    /// ingredients of chosen meals or from meals planned with the AI (`plansSection`), ticked lines
    /// cleared, and the list as plain text. `echo` draws the list's form again as it was sent when saving
    /// it failed; `typed` fills the planning form again after a failure, and `planEcho` marks its wrong fields.
    func shoppingPage(
        _ visitor: Visitor, message: String?, status: Int = 200, echo: FormEcho = FormEcho(),
        typed: PlanRequest? = nil, planEcho: FormEcho = FormEcho()
    ) throws -> WebReply {
        let words = self.words
        let (amount, unit, name) = (
            words("page.shopping.amount"), words("page.shopping.unit"), words("page.shopping.name")
        )
        let list = try store.shoppingList()
        let rows = list.map { item -> HTML in
            let p = "line\(item.id)_"
            let bought = words("page.shopping.bought", ["line": Self.line(item.amount, item.unit, item.name, words)])
            return """
                <li class="line\(item.ticked ? " ticked" : "")"><input type="hidden" name="line" value="\(item.id)">\
                <label class="tick"><input type="checkbox" name="\(p)ticked" value="1"\(echo.checked(p + "ticked", item.ticked)) aria-label="\(bought)"></label>\
                <input name="\(p)amount"\(echo.attributes(p + "amount")) class="amount" inputmode="decimal" required value="\(echo.value(p + "amount", Form.format(item.amount)))" aria-label="\(amount)">\
                <input name="\(p)unit"\(echo.attributes(p + "unit")) class="unit" maxlength="12" value="\(echo.value(p + "unit", item.unit))" aria-label="\(unit)">\
                <input name="\(p)name"\(echo.attributes(p + "name")) class="name" maxlength="\(MealsRoom.maxName)" required value="\(echo.value(p + "name", item.name))" aria-label="\(name)">\
                \(echo.message(p + "amount"))\(echo.message(p + "unit"))\(echo.message(p + "name"))</li>
                """
        }
        let recent = try (0..<7).flatMap { offset in try store.meals(on: try today().adding(days: -offset)).reversed() }
        let choices = recent.map { meal -> HTML in
            let count = Self.shoppingLines(of: meal.analysis).count
            return """
                <li><label><input type="checkbox" name="meal" value="\(meal.photo.id.rawValue)"> \(meal.analysis.title) \
                <small>\(words("page.shopping.choice", count: count, ["day": words.day(meal.day)]))</small></label></li>
                """
        }
        let saved = visitor.form["saved"].map { _ in words("page.saved") }
        return page(
            words("page.shopping.title"), status: status,
            """
            \(notice(message, problem: true))\(echo.summary(words))\(notice(saved))
            <form method="post" action="/shopping" class="shopping">\(csrfField(visitor))
            \(list.isEmpty ? "<p class=\"empty\">\(words("page.shopping.empty"))</p>" as HTML : "")
            <ul class="lines">\(rows)</ul>
            <fieldset class="add"><legend>\(words("page.shopping.add_line"))</legend>
            <input name="new_amount"\(echo.attributes("new_amount")) class="amount" inputmode="decimal" placeholder="1" value="\(echo.value("new_amount", ""))" aria-label="\(amount)">\
            <input name="new_unit"\(echo.attributes("new_unit")) class="unit" maxlength="12" placeholder="\(words("page.shopping.piece"))" value="\(echo.value("new_unit", ""))" aria-label="\(unit)">\
            <input name="new_name"\(echo.attributes("new_name")) class="name" maxlength="\(MealsRoom.maxName)" placeholder="\(words("page.shopping.name_example"))" value="\(echo.value("new_name", ""))" aria-label="\(name)">
            \(echo.message("new_amount"))\(echo.message("new_unit"))\(echo.message("new_name"))
            </fieldset>
            <div class="buttons"><button type="submit">\(words("page.shopping.save"))</button></div>
            </form>
            <div class="actions">
            <form method="post" action="/shopping/clear">\(csrfField(visitor))<button type="submit">\(words("page.shopping.clear"))</button></form>
            <a href="/shopping.txt" download="shopping-list.txt">\(words("page.shopping.as_text"))</a>
            </div>
            \(try plansSection(visitor, typed: typed, echo: planEcho))
            <h2>\(words("page.shopping.from_meals"))</h2>
            \(recent.isEmpty ? "<p class=\"empty\">\(words("page.shopping.no_recent"))</p>" as HTML : "")
            <form method="post" action="/shopping/add" class="from-meals">\(csrfField(visitor))
            <ul class="choices">\(choices)</ul>
            \(recent.isEmpty ? "" : "<button type=\"submit\">\(words("page.shopping.add_ingredients"))</button>" as HTML)
            </form>
            """)
    }

    /// What a meal puts on the list: each item's ingredients, or the item itself in grams when the AI
    /// gave none (a plain food).
    static func shoppingLines(of analysis: MealAnalysis) -> [Ingredient] {
        analysis.items.flatMap { item in
            item.ingredients.isEmpty
                ? [Ingredient(name: item.name, amount: Double(item.grams), unit: "g")] : item.ingredients
        }
    }

    func saveShopping(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let form = visitor.form
        var lines: [(id: Int64, name: String, amount: Double, unit: String, ticked: Bool)] = []
        var added: Ingredient?
        // Read whole, so that a failed list marks each wrong field.
        var reading = FormReading()
        for raw in form.all("line") {
            guard let id = Int64(raw) else {
                return try shoppingPage(
                    visitor, message: nil, status: 400,
                    echo: FormEcho(form, FormProblem(words("page.shopping.problem.broken_line"))))
            }
            let p = "line\(id)_"
            let typedName = form[p + "name"] ?? ""
            let name = reading.read(typedName) { () throws(FormProblem) in
                try form.text(p + "name", label: words("page.shopping.field.line_name"), maxLength: MealsRoom.maxName)
            }
            let of = ["name": name]
            let amount = reading.read(0) { () throws(FormProblem) in
                try form.number(p + "amount", label: words("page.shopping.field.amount", of), in: 0...100_000)
            }
            let unit = reading.read("") { () throws(FormProblem) in
                try form.text(p + "unit", label: words("page.shopping.field.unit", of), maxLength: 12, allowEmpty: true)
            }
            lines.append((id, name, amount, unit, form[p + "ticked"] != nil))
        }
        let name = reading.read("") { () throws(FormProblem) in
            try form.text(
                "new_name", label: words("page.shopping.field.new_name"), maxLength: MealsRoom.maxName, allowEmpty: true
            )
        }
        if !name.isEmpty {
            let of = ["name": name]
            let amount = reading.read(1) { () throws(FormProblem) in
                (form["new_amount"] ?? "").isEmpty
                    ? 1 : try form.number("new_amount", label: words("page.shopping.field.amount", of), in: 0...100_000)
            }
            let unit = reading.read("") { () throws(FormProblem) in
                try form.text("new_unit", label: words("page.shopping.field.unit", of), maxLength: 12, allowEmpty: true)
            }
            added = Ingredient(name: name, amount: amount, unit: unit.isEmpty ? words.unit(.piece) : unit)
        }
        do throws(FormProblem) {
            try reading.check()
        } catch {
            return try shoppingPage(visitor, message: nil, status: 400, echo: FormEcho(form, error))
        }
        try store.writingAndWaiting { [lines, added] store throws(StoreError) in
            for line in lines {
                try store.updateShoppingItem(
                    line.id, name: line.name, amount: line.amount, unit: line.unit, ticked: line.ticked)
            }
            if let added { try store.addToShopping([added]) }
        }
        return .redirect("/shopping?saved=1")
    }

    /// Adds the ingredients of the chosen meals, merged by name and unit with what is on the list.
    func addToShopping(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let ids = visitor.form.all("meal").prefix(100).map(PhotoID.init)
        guard !ids.isEmpty else {
            return try shoppingPage(visitor, message: words("page.shopping.choose_meal"), status: 400)
        }
        var ingredients: [Ingredient] = []
        for id in ids {
            guard let meal = try store.storedMeal(id) else {
                return try shoppingPage(visitor, message: words("page.shopping.meal_gone"), status: 404)
            }
            // The AI's "piece" as the list writes it in the page's language, so it merges with a line typed there.
            ingredients += Self.shoppingLines(of: meal.meal.analysis).map {
                Ingredient(
                    name: $0.name, amount: $0.amount, unit: PlanUnit(rawValue: $0.unit).map(words.unit) ?? $0.unit)
            }
        }
        try store.writingAndWaiting { [ingredients] store throws(StoreError) in try store.addToShopping(ingredients) }
        logger.info(
            "owner's page: \(ingredients.count) ingredient(s) of \(ids.count) meal(s) added to the shopping list")
        return .redirect("/shopping?saved=1")
    }

    func clearShopping(_ visitor: Visitor) throws -> WebReply {
        try store.writingAndWaiting { store throws(StoreError) in _ = try store.clearTicked() }
        return .redirect("/shopping?saved=1")
    }

    /// The list as plain text, one line each, unticked first, its amounts as the page's language writes them.
    func shoppingText() throws -> WebReply {
        let words = self.words
        let lines = try store.shoppingList().map { item in
            "\(item.ticked ? "[x]" : "[ ]") " + Self.line(item.amount, item.unit, item.name, words)
        }
        return WebReply(
            headers: [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Disposition", "attachment; filename=\"shopping-list.txt\""), ("Cache-Control", "no-store"),
            ],
            body: Array((lines.joined(separator: "\n") + "\n").utf8))
    }
}
