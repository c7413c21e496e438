import Foundation
import SnapCore
import SnapStore
import SnapText

/// Meals planned into the shopping list: the form that asks the AI what a meal needs (text only, one of
/// the day's analyses), the draft the owner reviews, the planned meals on the list, and their deletion,
/// which takes their lines back off the list.
extension PlansRoom {
    /// The shopping page's part for planned meals: drafts waiting for review, the meals on the list (each
    /// with its first three ingredients, the rest behind "more"), and the form to plan another.
    func plansSection(_ visitor: Visitor, typed: PlanRequest?, echo: FormEcho = FormEcho()) throws -> HTML {
        let words = self.words
        let plans = try store.plannedMeals()
        let drafts = plans.filter { !$0.confirmed }.map { plan -> HTML in
            "<li><a href=\"/plan/\(String(plan.id))\">\(words("page.plan.review_draft", ["title": plan.title]))</a></li>"
        }
        let planned = plans.filter(\.confirmed).map { plan -> HTML in
            let lines = plan.lines.map { "<li>\(self.line($0, words))</li>" as HTML }
            let more: HTML =
                lines.count > 3
                ? """
                <details><summary>\(words("page.plan.more", count: lines.count - 3))</summary>\
                <ul>\(Array(lines.dropFirst(3)))</ul></details>
                """ : ""
            return """
                <li class="plan"><strong>\(plan.title)</strong> <small>\(planLine(plan.request, words))</small>\
                <ul>\(Array(lines.prefix(3)))</ul>\(more)\
                <a class="danger" href="/plan/\(String(plan.id))/delete">\(words("page.plan.delete"))</a></li>
                """
        }
        return """
            <h2>\(words("page.plan.heading"))</h2>
            \(drafts.isEmpty ? "" : "<ul class=\"drafts\">\(drafts)</ul>" as HTML)
            \(planned.isEmpty ? "<p class=\"empty\">\(words("page.plan.none"))</p>" as HTML : "<ul class=\"plans\">\(planned)</ul>")
            \(try planForm(visitor, typed: typed, echo: echo))
            """
    }

    /// "add a meal to cook": its name, portions, units and times a week, and what the button spends.
    private func planForm(_ visitor: Visitor, typed: PlanRequest?, echo: FormEcho) throws -> HTML {
        let words = self.words
        guard planner != nil else { return "<p class=\"empty\">\(words("ai.not_configured"))</p>" }
        if case .asking(let request)? = planning.withLock({ $0 }) {
            return "<p class=\"notice\">\(words("page.plan.asking", ["name": request.name]))</p>"
        }
        let form = visitor.form
        let name = typed?.name ?? form["plan_name"] ?? ""
        let portions = typed.map { String($0.portions) } ?? form["plan_portions"] ?? "2"
        let times = typed.map { String($0.timesAWeek) } ?? form["plan_times"] ?? "1"
        let us = (typed?.units ?? (form["plan_units"] == "us" ? .us : .metric)) == .us
        let left = try budget(on: try today()).left
        return """
            <form method="post" action="/shopping/plan" class="plan-form">\(csrfField(visitor))\(echo.summary(words))
            <fieldset><legend>\(words("page.plan.add"))</legend>
            <label>\(words("page.plan.name")) <input name="plan_name"\(echo.attributes("plan_name")) required \
            maxlength="\(PlanRequest.nameLength.upperBound)" value="\(name)" placeholder="\(words("page.plan.name_example"))">\
            </label>\(echo.message("plan_name"))
            <label>\(words("page.plan.portions")) <input name="plan_portions"\(echo.attributes("plan_portions")) required \
            type="number" inputmode="numeric" min="1" max="\(PlanRequest.portionRange.upperBound)" value="\(portions)">\
            </label>\(echo.message("plan_portions"))
            <label>\(words("page.plan.times")) <input name="plan_times"\(echo.attributes("plan_times")) required \
            type="number" inputmode="numeric" min="1" max="\(PlanRequest.timesRange.upperBound)" value="\(times)">\
            </label>\(echo.message("plan_times"))
            <label><input type="radio" name="plan_units" value="metric"\(us ? "" : " checked")> \(words("page.plan.metric"))</label>
            <label><input type="radio" name="plan_units" value="us"\(us ? " checked" : "")> \(words("page.plan.us"))</label>
            </fieldset>
            \(askButton("page.plan.ask", left: left, words))
            </form>
            """
    }

    /// "4 portions, 2 times a week".
    private func planLine(_ request: PlanRequest, _ words: Words) -> String {
        words(
            "page.plan.line",
            [
                "portions": words("page.plan.portion_count", count: request.portions),
                "times": words("page.plan.times_count", count: request.timesAWeek),
            ])
    }

    /// "400 g spaghetti".
    private func line(_ ingredient: Ingredient, _ words: Words) -> String {
        Self.line(ingredient.amount, ingredient.unit, ingredient.name, words)
    }

    /// "400 g spaghetti": a line of the list or of a plan, its amount as the page's language writes it.
    static func line(_ amount: Double, _ unit: String, _ name: String, _ words: Words) -> String {
        "\(words.number(amount)) \(unit) \(name)"
    }

    /// While the AI is asked: a page that says so and reloads itself; then the draft to review, or the
    /// shopping list with why nothing came and what was typed.
    func planningPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let state = planning.withLock { planning -> Planning? in
            let state = planning
            if case .asking? = planning {} else { planning = nil }
            return state
        }
        switch state {
        case .asking(let request)?:
            return page(
                words("page.plan.asking_title"), refresh: 2,
                "<p class=\"notice\" role=\"status\">\(words("page.plan.asking", ["name": request.name]))</p>")
        case .answered(let id)?:
            return .redirect("/plan/\(id)")
        case .failed(let reason, let request)?:
            return try shoppingPage(
                visitor, message: words("page.plan.failed", ["reason": reason]), status: 200, typed: request)
        case nil:
            return .redirect("/shopping")
        }
    }

    /// A planned meal: a draft as a form to review (each line editable or removed) before it goes on the
    /// list, or a confirmed one with its lines.
    func planPage(_ rawID: String, _ visitor: Visitor, message: String? = nil, status: Int = 200) throws -> WebReply {
        let words = self.words
        let plan = try plannedMeal(rawID)
        let clashes = DietaryPreference.clashes(of: plan.contains, with: currentPreferences())
        let tags = FoodTag.allCases.filter(plan.contains.contains).map(words.food).joined(separator: ", ")
        let about: HTML = """
            <p>\(planLine(plan.request, words))\
            \(tags.isEmpty ? "" : HTML("<br><small>\(words("page.meal.contains", ["tags": tags]))</small>"))\
            \(clashes.isEmpty ? "" : HTML(" <span class=\"clash\">\(words("page.meal.clash", ["diets": clashes.map(words.dietary).joined(separator: ", ")]))</span>"))</p>
            """
        guard !plan.confirmed else {
            let lines = plan.lines.map { "<li>\(self.line($0, words))</li>" as HTML }
            return page(
                plan.title, status: status,
                """
                \(notice(message, problem: true))\(about)<ul>\(lines)</ul>
                <p><a class="danger" href="/plan/\(String(plan.id))/delete">\(words("page.plan.delete"))</a></p>
                """)
        }
        let form = visitor.form
        let rows = plan.lines.enumerated().map { index, line -> HTML in
            let p = "l\(index)_"
            return """
                <li class="line"><input type="hidden" name="line" value="\(index)">\
                <input name="\(p)amount" class="amount" inputmode="decimal" value="\(form[p + "amount"] ?? Form.format(line.amount))" aria-label="\(words("page.shopping.amount"))">\
                <input name="\(p)unit" class="unit" maxlength="12" value="\(form[p + "unit"] ?? line.unit)" aria-label="\(words("page.shopping.unit"))">\
                <input name="\(p)name" class="name" maxlength="\(MealsRoom.maxName)" value="\(form[p + "name"] ?? line.name)" aria-label="\(words("page.shopping.name"))">\
                <label><input type="checkbox" name="\(p)remove" value="1"\(form[p + "remove"] != nil ? " checked" : "")> \(words("page.plan.remove"))</label></li>
                """
        }
        return page(
            words("page.plan.review_title", ["title": plan.title]), status: status,
            """
            \(notice(message, problem: true))\(about)<p>\(words("page.plan.review_text"))</p>
            <form method="post" action="/plan/\(String(plan.id))/confirm" class="shopping">\(csrfField(visitor))
            <ul class="lines">\(rows)</ul>
            <div class="buttons"><button type="submit">\(words("page.plan.confirm"))</button></div>
            </form>
            <form method="post" action="/plan/\(String(plan.id))/discard">\(csrfField(visitor))\
            <button type="submit" class="danger">\(words("page.plan.discard"))</button></form>
            """)
    }

    /// Puts a reviewed draft on the list: its lines as edited, without the removed ones, merged with what
    /// the list holds.
    func confirmPlan(_ rawID: String, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let plan = try plannedMeal(rawID)
        guard !plan.confirmed else { return .redirect("/plan/\(plan.id)") }
        let form = visitor.form
        var lines: [Ingredient] = []
        do throws(FormProblem) {
            for raw in form.all("line") {
                guard let index = Int(raw), plan.lines.indices.contains(index) else {
                    throw FormProblem(words("page.shopping.problem.broken_line"))
                }
                let p = "l\(index)_"
                guard form[p + "remove"] == nil else { continue }
                let name = try form.text(
                    p + "name", label: words("page.shopping.field.line_name"), maxLength: MealsRoom.maxName)
                let of = ["name": name]
                lines.append(
                    Ingredient(
                        name: name,
                        amount: try form.number(
                            p + "amount", label: words("page.shopping.field.amount", of), in: 0...100_000),
                        unit: try form.text(
                            p + "unit", label: words("page.shopping.field.unit", of), maxLength: 12, allowEmpty: true)))
            }
            guard !lines.isEmpty else { throw FormProblem(words("page.plan.keep_one")) }
        } catch {
            return try planPage(
                rawID, visitor, message: words("page.form.not_saved", ["problem": error.message]), status: 400)
        }
        let added = try store.writingAndWaiting { [lines] store throws(StoreError) in
            try store.confirmPlan(plan.id, lines: lines)
        }
        guard added else { return .redirect("/shopping") }
        logger.info("owner's page: planned meal \"\(plan.title)\" put on the shopping list (\(lines.count) lines)")
        return .redirect("/shopping?saved=1")
    }

    /// Drops a draft the owner does not want (the analysis it used stays counted).
    func discardPlan(_ rawID: String, _ visitor: Visitor) throws -> WebReply {
        let plan = try plannedMeal(rawID)
        guard !plan.confirmed else { return .redirect("/plan/\(plan.id)") }
        try store.writingAndWaiting { store throws(StoreError) in _ = try store.deletePlan(plan.id) }
        return .redirect("/shopping")
    }

    /// Asks before a planned meal and its lines leave the list.
    func deletePlanPage(_ rawID: String, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let plan = try plannedMeal(rawID)
        return page(
            words("page.plan.delete_title", ["title": plan.title]),
            """
            <p>\(words("page.plan.delete_text", count: plan.lines.count))</p>
            <form method="post" action="/plan/\(String(plan.id))/delete">\(csrfField(visitor))\
            <button type="submit" class="danger">\(words("page.plan.delete"))</button> \
            <a href="/shopping">\(words("page.plan.keep"))</a></form>
            """)
    }

    func deletePlan(_ rawID: String, _ visitor: Visitor) throws -> WebReply {
        let plan = try plannedMeal(rawID)
        try store.writingAndWaiting { store throws(StoreError) in _ = try store.deletePlan(plan.id) }
        logger.info("owner's page: planned meal \"\(plan.title)\" deleted with its lines")
        return .redirect("/shopping?saved=1")
    }

    /// The planned meal the path names, or the page's 404.
    private func plannedMeal(_ rawID: String) throws -> PlannedMeal {
        guard let id = Int64(rawID), let plan = try store.plannedMeal(id) else {
            throw WebProblem.notFound(words("page.plan.gone"), words)
        }
        return plan
    }
}
