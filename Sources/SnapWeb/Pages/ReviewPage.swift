import Foundation
import SnapCore
import SnapStore
import SnapText

extension ReviewRoom {
    /// The meal result the station shows now, to save edited or discard from here.
    func reviewPage(_ visitor: Visitor, message: String? = nil, status: Int = 200, echo: FormEcho = FormEcho()) throws
        -> WebReply
    {
        let words = self.words
        guard case .mealResult(let result)? = link.status().screen else {
            let today: HTML = "<a href=\"/\">\(words("page.nav.today"))</a>"
            return page(
                words("page.review.nothing.title"),
                "<p>\(HTML(filling: words("page.review.nothing.text"), ["today": today]))</p>")
        }
        let id = result.photo.id.rawValue
        let buttons: HTML = """
            <button type="submit" name="decision" value="save">\(words("page.form.save"))</button> \
            <button type="submit" name="decision" value="discard" class="danger">\(words("page.review.discard"))</button>
            """
        return page(
            words("page.review.title", ["title": result.analysis.title]), status: status,
            """
            \(echo.summary(words))\(notice(message, problem: true))<p>\(words("page.review.auto_save", ["seconds": words.integer(result.autoSaveIn)]))</p>
            <div class="pictures"><img class="photo" src="/photo/\(id).jpg" alt="\(words("page.review.photo_alt"))"></div>
            \(meals.mealForm(action: "/review", analysis: result.analysis, totalsByHand: false, visitor, words,
                hidden: "<input type=\"hidden\" name=\"photo\" value=\"\(id)\">", buttons: buttons, echo: echo))
            \(try correctShownForm(id, visitor, words))
            """)
    }

    /// "Correct it in a sentence" for the result on the screen: what the button spends, and that the
    /// station saves the result first.
    private func correctShownForm(_ id: String, _ visitor: Visitor, _ words: Words) throws -> HTML {
        guard corrections.corrector != nil else { return "" }
        let left = try budget(on: try today()).left
        return """
            <form method="post" action="/review/correct" class="correct">\(csrfField(visitor))\
            <input type="hidden" name="photo" value="\(id)">
            <label>\(words("page.meal.correct.label")) <textarea name="sentence" rows="2" maxlength="\(CorrectionsRoom.maxSentence)" \
            placeholder="\(words("page.meal.correct.example"))"></textarea></label>
            \(askButton("page.meal.correct.button", left: left, words))
            <p><small>\(words("page.review.correct_saves"))</small></p>
            </form>
            """
    }

    /// Corrects the result the station shows: the station saves it as it is first (so the answer has one
    /// place to go, whatever the person at the station does meanwhile), and the saved meal is corrected as
    /// any other, its page saying that the AI is asked.
    func correctShown(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let form = visitor.form
        let id = try photoID(form["photo"] ?? "")
        let sentence: String
        do {
            sentence = try form.text(
                "sentence", label: words("page.meal.correct.field"), maxLength: CorrectionsRoom.maxSentence)
        } catch {
            return .reply(
                try reviewPage(visitor, message: words("page.form.not_saved", ["problem": error.message]), status: 400))
        }
        let shown = showing(id)
        return deciding(shown.map { .reviewSubmitted(id, $0) }) {
            guard let stored = try store.storedMeal(id) else {
                throw WebProblem(
                    503, words("page.review.not_saved_yet.title"), words("page.review.not_saved_yet.message"))
            }
            logger.info("owner's page: result \(id) saved to be corrected")
            return .reply(try meals.correct(id, stored, sentence: sentence, visitor))
        }
    }

    /// Saves the result edited, or discards it. The station decides (it may have saved it by itself a
    /// moment ago): the page sends its decision, waits for the store to settle, and then makes the
    /// stored meal what the owner sent, so nothing typed is lost either way.
    func submitReview(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let form = visitor.form
        let id = try photoID(form["photo"] ?? "")
        let discard = form["decision"] == "discard"
        let shown = showing(id)
        let original = try shown ?? store.storedMeal(id)?.meal.analysis
        guard let original else {
            throw WebProblem.notFound(words("page.review.gone"), words)
        }
        if discard {
            return deciding(shown.map { _ in .reviewSubmitted(id, nil) }) {
                // Saved by the station before the decision arrived: deleted, as the owner asked.
                if let day = try store.storedMeal(id)?.meal.day {
                    try store.writingAndWaiting { store throws(StoreError) in _ = try store.deleteMeal(id) }
                    try meals.mealsChanged(on: day)
                }
                logger.info("owner's page: result \(id) discarded")
                return .reply(.redirect("/?saved=deleted"))
            }
        }
        let edited: MealAnalysis
        let byHand: Bool
        do {
            (edited, byHand) = try meals.readMealForm(form, from: original)
        } catch {
            return .reply(try reviewAgain(id, visitor, error))
        }
        return deciding(shown.map { _ in .reviewSubmitted(id, edited) }) {
            try keep(edited, byHand: byHand, of: id)
        }
    }

    /// A review that failed, drawn again as it was sent (`FormEcho`): on the review while the station shows
    /// the result, else on the meal's page once the station has saved it, so that nothing typed is lost.
    private func reviewAgain(_ id: PhotoID, _ visitor: Visitor, _ problem: FormProblem) throws -> WebReply {
        let echo = FormEcho(visitor.form, problem)
        if case .mealResult(let result)? = link.status().screen, result.photo.id == id {
            return try reviewPage(visitor, status: 400, echo: echo)
        }
        if try store.storedMeal(id) != nil {
            return try meals.mealPage(id, visitor, message: nil, status: 400, echo: echo)
        }
        return page(
            words("page.review.not_saved"), status: 400,
            """
            \(notice(words("page.form.not_saved", ["problem": problem.message]), problem: true))
            <p><a href="/review">\(words("page.review.back"))</a></p>
            """)
    }

    /// Makes the meal the station saved from the result what the owner sent (`edited`), unless it is.
    private func keep(_ edited: MealAnalysis, byHand: Bool, of id: PhotoID) throws -> PageStep {
        let words = self.words
        guard let stored = try store.storedMeal(id) else {
            throw WebProblem(503, words("page.review.not_saved_yet.title"), words("page.review.not_saved_yet.message"))
        }
        if stored.meal.analysis != edited || stored.totalsSetByOwner != byHand {
            let result = try store.writingAndWaiting { store throws(StoreError) in
                try store.editMeal(id, edited, totalsSetByOwner: byHand, version: stored.version)
            }
            if case .failure(let failure) = result {
                let what =
                    switch failure {
                    case .missing: words("page.review.failure.missing")
                    case .changed: words("page.review.failure.changed")
                    }
                throw WebProblem(
                    409, words("page.review.not_saved"), words("page.review.save_failed", ["failure": what]))
            }
            try meals.mealsChanged(on: stored.meal.day)
        }
        logger.info("owner's page: result \(id) saved", metadata: ["kcal": "\(edited.totals.calories)"])
        return .reply(.redirect("/meal/\(id.rawValue)?saved=1"))
    }

    /// The result the station shows for `id`, if it shows it.
    private func showing(_ id: PhotoID) -> MealAnalysis? {
        if case .mealResult(let result)? = link.status().screen, result.photo.id == id { result.analysis } else { nil }
    }

    /// Hands the owner's decision (`decision`, where the station still shows the result) to the station
    /// and waits until its loop handled it; then, once the store's thread wrote what the station asked
    /// of it (the meal saved, or saved a moment before by the station itself), goes on with `then` on the
    /// page's thread. No polling: the loop says when it handled the event, and the store's thread keeps
    /// its writes in order.
    private func deciding(_ decision: Event?, then: @escaping @Sendable () throws -> PageStep) -> PageStep {
        .after { [link, store, words] in
            if let decision, await link.deliver(decision) == nil {
                return { throw WebProblem(503, words("page.problem.stopping"), "") }
            }
            return {
                try store.writingAndWaiting { _ throws(StoreError) in }
                return try then()
            }
        }
    }
}
