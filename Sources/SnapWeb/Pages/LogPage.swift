import Foundation
import SnapCore
import SnapStore
import SnapText

/// The page that logs a meal without the station's camera, and the review of what the AI answered.
extension LogRoom {
    /// The three ways, for the person chosen (`?person=`; the owner when none is; a household member's
    /// phone its own person, asked once): a photo from the phone, a sentence, the numbers.
    func logPage(
        _ visitor: Visitor, message: String? = nil, status: Int = 200, echo: FormEcho = FormEcho(),
        sentence: String = ""
    ) throws -> WebReply {
        let words = self.words
        let household = try store.household()
        guard
            let person = visitor.session.loggingPerson(household, asked: visitor.form["person"])
                ?? (visitor.isOwner ? household.people[0] : nil)
        else { return whoPage(household, visitor) }
        let left = try analysesLeft(for: person)
        let hidden: HTML = "<input type=\"hidden\" name=\"person\" value=\"\(person.id.rawValue)\">"
        let waiting: HTML =
            draft.withLock { $0 } == nil
            ? "" : "<p class=\"notice\"><a href=\"/log/review\">\(words("page.log.waiting"))</a></p>"
        // The owner logs for anyone; a member's phone for its own person.
        let chooser: HTML =
            household.isShared && visitor.isOwner
            ? """
            <nav class="people" aria-label="\(words("page.log.whose"))">\(household.people.map { one -> HTML in
                "<a href=\"/log?person=\(one.id.rawValue)\"\(one.id == person.id ? " aria-current=\"page\"" as HTML : "")><span class=\"swatch person-\(one.colour.rawValue)\"></span> \(words.person(one))</a>"
            })</nav>
            """ : ""
        let quickEcho = echo.sent?["quick"] == nil ? FormEcho() : echo
        let (kcal, protein, carbs, fats) = (
            words("page.field.kcal"), words("page.field.protein"), words("page.field.carbs"), words("page.field.fats")
        )
        func number(_ name: String, _ label: String, max: Int) -> HTML {
            """
            <label>\(label) <input name="\(name)"\(quickEcho.attributes(name)) type="number" inputmode="numeric" min="0" \
            max="\(max)" value="\(quickEcho.value(name, "0"))"></label>\(quickEcho.message(name))
            """
        }
        return page(
            words("page.log.title"), status: status,
            """
            \(notice(message, problem: true))\(waiting)\(chooser)
            <section><h2>\(words("page.log.photo.title"))</h2>
            <p><small>\(words("page.log.photo.note"))</small></p>
            \(frame.uploadForm(.photo, visitor, words, query: "?person=\(person.id.rawValue)"))</section>
            <section><h2>\(words("page.log.describe.title"))</h2>
            <form method="post" action="/log/describe">\(csrfField(visitor))\(hidden)
            <label>\(words("page.log.describe.label")) <textarea name="sentence" rows="3" maxlength="\(Self.maxSentence)" \
            required placeholder="\(words("page.log.describe.example"))">\(sentence)</textarea></label>
            \(try spent(for: person, left: left, words).map { "<p><small>\($0)</small></p>" as HTML } ?? "")\
            \(askButton("page.log.describe.button", left: left, words))
            </form></section>
            <section><h2>\(words("page.log.quick.title"))</h2>
            \(quickEcho.summary(words))<form method="post" action="/log/quick" class="meal-form">\(csrfField(visitor))\(hidden)
            <input type="hidden" name="quick" value="1"><input type="hidden" name="items" value="0">\
            <input type="hidden" name="own_totals" value="1">
            <label class="wide">\(words("page.meal.form.title")) <input name="title"\(quickEcho.attributes("title")) \
            maxlength="\(MealsRoom.maxName)" required value="\(quickEcho.value("title", ""))"></label>\(quickEcho.message("title"))
            \(number("total_kcal", kcal, max: MealsRoom.maxKcal))\(number("total_protein", protein, max: MealsRoom.maxMacro))\
            \(number("total_carbs", carbs, max: MealsRoom.maxMacro))\(number("total_fats", fats, max: MealsRoom.maxMacro))
            <div class="buttons"><button type="submit">\(words("page.log.quick.button"))</button></div>
            </form></section>
            """)
    }

    /// The person a meal is logged for (`WebSession.loggingPerson`), or why none is.
    func loggingPerson(_ visitor: Visitor) throws -> Person {
        try loggingPerson(visitor.session, asked: visitor.form["person"], in: try store.household())
    }

    /// The person `session` logs a meal for, with `asked` the form's or the query's `person`; a member's
    /// phone that has not said who it is, or a person not in the household, refused in words.
    func loggingPerson(_ session: WebSession, asked: String?, in household: Household) throws(WebProblem) -> Person {
        if let person = session.loggingPerson(household, asked: asked) { return person }
        let words = self.words
        guard session.role == .owner else {
            throw WebProblem(403, words("page.log.who.title"), words("page.log.who.first"))
        }
        throw WebProblem(400, words("page.problem.broken_form.title"), words("page.people.missing"))
    }

    /// A household member's phone that has not said whose meals it logs: one button a person.
    func whoPage(_ household: Household, _ visitor: Visitor) -> WebReply {
        let words = self.words
        let choices = household.people.map { one -> HTML in
            """
            <form method="post" action="/log/me" class="inline">\(csrfField(visitor))\
            <input type="hidden" name="person" value="\(one.id.rawValue)">\
            <button type="submit" class="secondary"><span class="swatch person-\(one.colour.rawValue)"></span> \(words.person(one))</button></form>
            """
        }
        return page(
            words("page.log.who.title"),
            "<p>\(words("page.log.who.text"))</p><div class=\"people-choice\">\(choices)</div>")
    }

    /// A household member's phone says whose meals it logs, once; the owner changes it on the Status page.
    func chooseSelf(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        guard !visitor.isOwner else { return .redirect("/log") }
        guard let number = visitor.form["person"].flatMap(Int.init),
            let person = try store.household().person(PersonID(rawValue: number))
        else { throw WebProblem(400, words("page.problem.broken_form.title"), words("page.people.missing")) }
        let hash = visitor.session.tokenHash
        let said = try store.writingAndWaiting { store throws(StoreError) in
            try store.setPerson(person.id, hash: hash, onlyIfUnsaid: true)
        }
        guard said else { throw WebProblem(403, words("page.log.who.title"), words("page.log.who.said")) }
        logger.notice("owner's page: \(visitor.session.name) logs \(person.id)'s meals")
        return .redirect("/log")
    }

    /// Asks the AI about the meal described, in the page's jobs; the review page waits for the answer.
    func describe(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let sentence: String
        do {
            sentence = try visitor.form.text(
                "sentence", label: words("page.log.describe.field"), maxLength: Self.maxSentence)
        } catch {
            return try logPage(visitor, message: error.message, status: 400)
        }
        let person = try loggingPerson(visitor)
        if let refused = try refusal(for: person, words) {
            return try logPage(visitor, message: refused, status: 409, sentence: sentence)
        }
        let asked = ask(LogDraft(person: person.id, sentence: sentence, day: try today(), stage: .asking)) {
            (kitchen: any PageMeals) async throws(AIFailure) in try await kitchen.describe(sentence)
        }
        guard asked else {
            return try logPage(visitor, message: words("page.log.busy"), status: 409, sentence: sentence)
        }
        return .redirect("/log/review")
    }

    /// Why the AI may not be asked now for `person` (a meal already waits for review, today's analyses
    /// or the person's share of them are used up), or nil.
    func refusal(for person: Person, _ words: Words) throws -> String? {
        if draft.withLock({ $0 }) != nil { return words("page.log.busy") }
        return try spent(for: person, left: try analysesLeft(for: person), words)
    }

    /// Why `person`, with `left` analyses (`analysesLeft`), has none today (the station's are used up, or
    /// their share is), or nil.
    func spent(for person: Person, left: Int, _ words: Words) throws -> String? {
        guard left == 0 else { return nil }
        guard try !budget(on: try today()).isSpent else { return words("page.log.used_up") }
        return words("page.log.share_used", count: person.aiShare ?? 0, ["name": words.person(person)])
    }

    /// The analyses `person` may still ask for today: the station's left, and no more than their share's
    /// (`Household.shareLeft`, the station's own rule).
    func analysesLeft(for person: Person) throws -> Int {
        let day = try today()
        let left = try budget(on: day).left
        let used = try store.personAIUses(on: day)[person.id] ?? 0
        return min(left, try store.household().shareLeft(of: person.id, used: used) ?? left)
    }

    /// Starts asking the AI about `asked` in the page's jobs: the answer (or why there is none) is kept
    /// for the review, and counted on its day as the station counts its own. False, asking nothing, when
    /// another meal already waits.
    func ask(
        _ asked: LogDraft, _ question: @escaping @Sendable (any PageMeals) async throws(AIFailure) -> MealAnalysis
    ) -> Bool {
        let words = self.words
        let claimed = draft.withLock { waiting -> Bool in
            guard waiting == nil else { return false }
            waiting = asked
            return true
        }
        guard claimed else { return false }
        guard let kitchen else {
            draft.withLock { $0?.stage = .failed(words.aiFailure(.notConfigured)) }
            return true
        }
        let what = asked.photo.map { "the photo \($0.id)" } ?? "a described meal"
        let started = jobs.start("the AI about \(what)") { [self] in
            let outcome: Result<MealAnalysis, AIFailure>
            do throws(AIFailure) {
                outcome = .success(try await question(kitchen))
            } catch {
                outcome = .failure(error)
            }
            // The store's own thread counts the answer: a task must not block the pool on a write.
            store.enqueue(
                { store throws(StoreError) in
                    switch outcome {
                    case .success:
                        try store.recordAIUse(on: asked.day, person: asked.person)
                        self.link.send(.answeredForThePage(day: asked.day, person: asked.person))
                    case .failure(let failure):
                        try self.countIfAnswered(failure, on: asked.day, in: store, for: asked.person)
                    }
                    let stage: LogDraft.Stage =
                        switch outcome {
                        case .success(let analysis): .answered(analysis)
                        case .failure(let failure): .failed(words.aiFailure(failure))
                        }
                    self.draft.withLock { $0?.stage = stage }
                    self.logger.info("owner's page: the AI about \(what) ended: \(outcome)")
                },
                failed: { error in
                    self.logger.error("owner's page: the AI's answer about \(what) was not counted: \(error)")
                    self.draft.withLock { $0?.stage = .failed("\(error)") }
                })
        }
        if !started { draft.withLock { $0?.stage = .failed(words("page.problem.stopping")) } }
        return true
    }

    /// A meal by its numbers alone, saved at once: no AI, nothing spent.
    func quickAdd(_ visitor: Visitor) throws -> WebReply {
        let person = try loggingPerson(visitor)
        let analysis: MealAnalysis
        do {
            (analysis, _) = try meals.readMealForm(
                visitor.form, from: MealAnalysis(title: "", totals: .zero, items: []))
        } catch {
            return try logPage(visitor, status: 400, echo: FormEcho(visitor.form, error))
        }
        return try save(analysis, photo: nil, for: person.id, how: "quick add")
    }

    /// Saves a logged meal for `person` today; the station hears of today's meals (its jar, its totals).
    func save(_ analysis: MealAnalysis, photo: ProcessedPhoto?, for person: PersonID, how: String) throws -> WebReply {
        let (moment, day) = (now(), try today())
        let photo =
            photo
            ?? ProcessedPhoto(
                id: PhotoID.new(at: moment, in: timeZone), photoPath: "", thumbnailPath: "", takenAt: moment)
        let meal = Meal(photo: photo, day: day, analysis: analysis, person: person)
        try store.writingAndWaiting { store throws(StoreError) in try store.saveMeal(meal) }
        logger.info(
            "owner's page: meal \(photo.id) logged by \(how) for \(person)",
            metadata: ["kcal": "\(analysis.totals.calories)"])
        try meals.mealsChanged(on: day)
        return .redirect("/?saved=logged&person=\(person.rawValue)")
    }
}
