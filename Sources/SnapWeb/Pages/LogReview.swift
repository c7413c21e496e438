import Foundation
import SnapCore
import SnapStore
import SnapText

/// What the AI answered about a meal logged on the page, reviewed before it is saved.
extension LogRoom {
    /// The meal waiting: said to be asked about (the page reloads itself), or its form to save edited or
    /// discard; where the AI gave no estimate, why, and the form empty for the numbers by hand, the photo
    /// kept.
    func reviewPage(_ visitor: Visitor, status: Int = 200, echo: FormEcho = FormEcho()) throws -> WebReply {
        let words = self.words
        guard let waiting = draft.withLock({ $0 }) else { return .redirect("/log") }
        let household = try store.household()
        let person = household.person(waiting.person) ?? household.people[0]
        let whose: HTML =
            household.isShared
            ? "<p class=\"person\"><span class=\"swatch person-\(person.colour.rawValue)\"></span> \(words("page.log.for", ["name": words.person(person)]))</p>"
            : ""
        let picture: HTML =
            waiting.photo.map {
                "<div class=\"pictures\"><img class=\"photo\" src=\"/photo/\($0.id.rawValue).jpg\" alt=\"\(words("page.review.photo_alt"))\"></div>"
            } ?? ""
        let said: HTML = waiting.sentence.map { "<blockquote>\($0)</blockquote>" } ?? ""
        let analysis: MealAnalysis
        let problem: String?
        switch waiting.stage {
        case .asking:
            let asking = waiting.photo == nil ? words("page.log.asking_sentence") : words("page.log.asking_photo")
            return page(
                words("page.log.asking_title"), status: status, refresh: 2,
                "\(whose)\(picture)\(said)<p class=\"notice\" role=\"status\">\(asking)</p>")
        case .answered(let answer):
            (analysis, problem) = (answer, nil)
        case .failed(let reason):
            analysis = MealAnalysis(
                title: waiting.sentence.map { String($0.prefix(MealsRoom.maxName)) } ?? "", totals: .zero, items: [])
            problem = words("page.log.failed", ["reason": reason])
        }
        let buttons: HTML = """
            <button type="submit" name="decision" value="save">\(words("page.form.save"))</button> \
            <button type="submit" name="decision" value="discard" class="danger" formnovalidate>\(words("page.review.discard"))</button>
            """
        return page(
            words("page.log.review_title"), status: status,
            """
            \(echo.summary(words))\(notice(problem, problem: true))\(whose)\(picture)\(said)
            \(meals.mealForm(action: "/log/review", analysis: analysis, totalsByHand: problem != nil, visitor, words,
                hidden: "", buttons: buttons, echo: echo))
            """)
    }

    /// Saves the meal waiting, as the form has it, or discards it (its photo goes when its retention
    /// ends, as a discarded capture's does).
    func decide(_ visitor: Visitor) throws -> WebReply {
        guard let waiting = draft.withLock({ $0 }) else { return .redirect("/log") }
        // A household member's phone decides its own person's meal only.
        try visitor.mustChange(mealsOf: waiting.person, in: try store.household(), words)
        let analysis: MealAnalysis
        switch waiting.stage {
        case .asking: return .redirect("/log/review")
        case .answered(let answer): analysis = answer
        case .failed: analysis = MealAnalysis(title: "", totals: .zero, items: [])
        }
        guard visitor.form["decision"] != "discard" else {
            draft.withLock { $0 = nil }
            logger.info("owner's page: the meal logged for \(waiting.person) was discarded")
            return .redirect("/log?person=\(waiting.person.rawValue)")
        }
        let edited: MealAnalysis
        do {
            (edited, _) = try meals.readMealForm(visitor.form, from: analysis)
        } catch {
            return try reviewPage(visitor, status: 400, echo: FormEcho(visitor.form, error))
        }
        // Taken first: a second tap of Save finds nothing to save twice.
        guard draft.withLock({ taken in taken.take() }) != nil else { return .redirect("/log") }
        let how = waiting.photo == nil ? "description" : "phone photo"
        return try save(edited, photo: waiting.photo, for: waiting.person, how: how)
    }
}
