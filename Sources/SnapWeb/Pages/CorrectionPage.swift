import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// A saved meal corrected in a sentence: the form on its page, the request to the AI in the page's jobs,
/// and what the answer does to the store.
extension CorrectionsRoom {
    /// "Correct it in a sentence": the form (what the button spends, said on it), and the estimates
    /// corrections replaced, kept in the meal's history. While the AI is asked, the form waits.
    func correctionSection(_ id: PhotoID, _ stored: StoredMeal, _ visitor: Visitor, _ words: Words) -> HTML {
        let replaced = ((try? store.replacedEstimates(id)) ?? []).map { entry -> HTML in
            let line = words(
                "page.meal.correct.entry",
                [
                    "when": dateAndTime(entry.replacedAt, words), "sentence": entry.sentence,
                    "title": entry.analysis.title, "kcal": words.kcal(entry.analysis.totals.calories),
                ])
            return "<li>\(line)</li>"
        }
        let history: HTML =
            replaced.isEmpty
            ? "" : "<p><small>\(words("page.meal.correct.earlier"))</small></p><ul class=\"estimates\">\(replaced)</ul>"
        guard corrector != nil else { return history }
        let state = corrections.withLock { $0[id] }
        if case .asking? = state { return history }
        let left = (try? budget(on: try today()).left) ?? 0
        let typed = visitor.form["sentence"] ?? state?.sentence ?? ""
        return """
            <form method="post" action="/meal/\(id.rawValue)/correct" class="correct">\(csrfField(visitor))\
            <input type="hidden" name="version" value="\(stored.version)">
            <label>\(words("page.meal.correct.label")) <textarea name="sentence" rows="2" maxlength="\(Self.maxSentence)" \
            placeholder="\(words("page.meal.correct.example"))">\(typed)</textarea></label>
            \(askButton("page.meal.correct.button", left: left, words))
            </form>\(history)
            """
    }

    /// The longest correction the page takes.
    static let maxSentence = 300

    /// What a correction's page shows: that the AI is being asked (the page reloads itself every two
    /// seconds), or how it ended, once; nil without one.
    func correctionNotice(_ id: PhotoID, _ words: Words) -> (text: String, problem: Bool, refresh: Int?)? {
        corrections.withLock { corrections in
            switch corrections[id] {
            case nil: return nil
            case .asking: return (words("page.meal.correct.asking"), false, 2)
            case .done:
                corrections[id] = nil
                return (words("page.meal.correct.done"), false, nil)
            case .failed(let reason, let sentence):
                // The sentence stays in the form for this showing; then the correction is forgotten.
                corrections[id] = .shown(sentence: sentence)
                return (words("page.meal.correct.failed", ["reason": reason]), true, nil)
            case .shown:
                corrections[id] = nil
                return nil
            }
        }
    }

    /// Asks the AI about the stored meal `id` with the owner's sentence, in the page's jobs, unless
    /// there is no AI, no analysis left today or no photo: then why not, for the meal's page to say.
    func start(_ id: PhotoID, _ stored: StoredMeal, sentence: String) throws -> String? {
        let words = self.words
        let version = stored.version
        let day = try today()
        guard let corrector else { return words("ai.not_configured") }
        guard try !budget(on: day).isSpent else { return words("page.meal.correct.used_up") }
        guard let photo = FileBytes.readIfPresent(stored.meal.photo.photoPath) else {
            return words("page.meal.correct.no_photo", count: retentionHours)
        }
        let asking = corrections.withLock { corrections -> Bool in
            if case .asking? = corrections[id] { return false }
            corrections[id] = .asking(sentence: sentence)
            return true
        }
        guard asking else { return nil }
        let first = stored.meal.analysis
        let moment = now()
        let started = jobs.start("the correction of \(id)") { [self] in
            let outcome: Result<MealAnalysis, AIFailure>
            do throws(AIFailure) {
                outcome = .success(try await corrector.correct(photo: photo, first: first, sentence: sentence))
            } catch {
                outcome = .failure(error)
            }
            // The store's own thread keeps the answer: a task must not block the pool on a write.
            store.enqueue(
                { store throws(StoreError) in
                    let ended = try self.keep(
                        outcome, of: id, first: first, sentence: sentence, version: version, day: day, at: moment,
                        in: store)
                    self.corrections.withLock { $0[id] = ended }
                    self.logger.info("owner's page: the correction of \(id) ended: \(ended)")
                },
                failed: { error in
                    self.logger.error("owner's page: the correction of \(id) was not kept: \(error)")
                    self.corrections.withLock { $0[id] = .failed(reason: "\(error)", sentence: sentence) }
                })
        }
        if !started {
            corrections.withLock { $0[id] = .failed(reason: words("page.problem.stopping"), sentence: sentence) }
        }
        return nil
    }

    /// On the store's thread: what a correction's answer does, and how it ended for its page.
    private func keep(
        _ outcome: Result<MealAnalysis, AIFailure>, of id: PhotoID, first: MealAnalysis, sentence: String,
        version: Int, day: LocalDay, at moment: Date, in store: StationStore
    ) throws(StoreError) -> Correction {
        let words = self.words
        // A correction is counted for the person whose meal it is.
        let person = try store.storedMeal(id)?.meal.person ?? .first
        switch outcome {
        case .failure(let failure):
            try countIfAnswered(failure, on: day, in: store, for: person)
            return .failed(reason: words.aiFailure(failure), sentence: sentence)
        case .success(let corrected):
            switch try store.correctMeal(
                id, from: first, to: corrected, sentence: sentence, version: version, usedOn: day, at: moment)
            {
            case .failure:
                // The service answered all the same: its answer counts; the meal stays as the other edit left it.
                try store.recordAIUse(on: day, person: person)
                link.send(.answeredForThePage(day: day, person: person))
                return .failed(reason: words("page.meal.changed_elsewhere"), sentence: sentence)
            case .success:
                link.send(.answeredForThePage(day: day, person: person))
                if let meal = try store.storedMeal(id)?.meal {
                    link.send(.mealsChanged(day: meal.day, try store.meals(on: meal.day)))
                }
                return .done
            }
        }
    }
}

/// A correction the page asked the AI for, until its meal's page has shown how it ended.
enum Correction: Sendable, CustomStringConvertible {
    case asking(sentence: String)
    case done
    /// Why it ended without a new estimate, in the page's words, and the sentence to give back.
    case failed(reason: String, sentence: String)
    /// The failure was shown once; the sentence stays in the form until the page is loaded again.
    case shown(sentence: String)

    var sentence: String? {
        switch self {
        case .asking(let sentence), .failed(_, let sentence), .shown(let sentence): sentence
        case .done: nil
        }
    }

    var description: String {
        switch self {
        case .asking: "asking"
        case .done: "the new estimate is kept"
        case .failed(let reason, _): "not corrected: \(reason)"
        case .shown: "its failure shown"
        }
    }
}

/// A meal corrected from its page.
extension MealsRoom {
    /// Asks the AI again about a saved meal with the owner's sentence, in the page's jobs (the page's
    /// requests are answered one at a time, and the AI may take half a minute): the meal's page says it
    /// is asking and reloads itself until the answer is in. The answer replaces the estimate (the first
    /// kept in the meal's history) and counts as one of today's analyses; a refusal counts too and
    /// changes nothing; any failure leaves the estimate as it was, with the sentence kept in the form.
    func correctMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let stored = try storedMeal(id)
        let (sentence, version): (String, Int)
        do {
            version = try loadedVersion(visitor.form)
            sentence = try visitor.form.text(
                "sentence", label: words("page.meal.correct.field"), maxLength: CorrectionsRoom.maxSentence)
        } catch {
            return try mealPage(
                id, visitor, message: words("page.form.not_saved", ["problem": error.message]), status: 400)
        }
        // A page loaded before another edit asks about an estimate that is gone: nothing is spent on it.
        guard version == stored.version else {
            return try mealPage(id, visitor, message: words("page.meal.changed_elsewhere"), status: 409)
        }
        return try correct(id, stored, sentence: sentence, visitor)
    }

    /// Starts the correction of the stored meal `id`, and shows its page: asking, or why it cannot.
    func correct(_ id: PhotoID, _ stored: StoredMeal, sentence: String, _ visitor: Visitor) throws -> WebReply {
        if let refused = try corrections.start(id, stored, sentence: sentence) {
            return try mealPage(id, visitor, message: refused, status: 409)
        }
        return .redirect("/meal/\(id.rawValue)")
    }
}

extension PageRoom {
    /// On the store's thread: a failure that came from the service's answer (a refusal, an answer that does
    /// not read) spends one of the day's analyses, as the station counts them; one that is no answer
    /// spends nothing. For the page's corrections and planned meals alike.
    func countIfAnswered(
        _ failure: AIFailure, on day: LocalDay, in store: StationStore, for person: PersonID = .first
    ) throws(StoreError) {
        guard failure.cameFromAnAnswer else { return }
        try store.recordAIUse(on: day, person: person)
        link.send(.answeredForThePage(day: day, person: person))
    }
}
