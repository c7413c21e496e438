import Foundation
import SnapCore
import SnapStore
import SnapText

/// A planned meal asked of the AI in the page's jobs, and its answer kept as a draft for the owner to review.
extension PlansRoom {
    /// Asks the AI what the meal in the form needs, in the page's jobs (it may take half a minute):
    /// the planning page says it is asking and reloads itself until the answer is kept as a draft.
    /// Fields that are missing or out of range, an AI without a key or with no analysis left today, each
    /// say so with what was typed kept.
    func askForPlan(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let form = visitor.form
        var reading = FormReading()
        let name = reading.read("") {
            () throws(FormProblem) in
            try form.text(
                "plan_name", label: words("page.plan.field.name"), maxLength: PlanRequest.nameLength.upperBound)
        }
        let portions = reading.read(1) {
            () throws(FormProblem) in
            try form.int("plan_portions", label: words("page.plan.field.portions"), in: PlanRequest.portionRange)
        }
        let times = reading.read(1) {
            () throws(FormProblem) in
            try form.int("plan_times", label: words("page.plan.field.times"), in: PlanRequest.timesRange)
        }
        do {
            try reading.check()
        } catch {
            // Said at the form, not at the top of the page a screen or two above it.
            return try shoppingPage(visitor, message: nil, status: 400, planEcho: FormEcho(form, error))
        }
        let request = PlanRequest(
            name: name, portions: portions, units: form["plan_units"] == "us" ? .us : .metric, timesAWeek: times)
        guard let planner else {
            return try shoppingPage(visitor, message: words("ai.not_configured"), status: 409, typed: request)
        }
        let day = try today()
        guard try !budget(on: day).isSpent else {
            return try shoppingPage(visitor, message: words("page.plan.used_up"), status: 409, typed: request)
        }
        let asking = planning.withLock { planning -> Bool in
            if case .asking? = planning { return false }
            planning = .asking(request)
            return true
        }
        guard asking else { return .redirect("/shopping/plan") }
        let moment = now()
        let started = jobs.start("the planned meal \"\(request.name)\"") { [self] in
            let outcome: Result<MealPlan, AIFailure>
            do throws(AIFailure) {
                outcome = .success(try await planner.plan(request))
            } catch {
                outcome = .failure(error)
            }
            // The store's own thread keeps the answer: a task must not block the pool on a write.
            store.enqueue(
                { store throws(StoreError) in
                    let ended = try self.keep(outcome, of: request, day: day, at: moment, in: store)
                    self.planning.withLock { $0 = ended }
                    self.logger.info("owner's page: the planned meal \"\(request.name)\" ended: \(ended)")
                },
                failed: { error in
                    self.logger.error("owner's page: the planned meal \"\(request.name)\" was not kept: \(error)")
                    self.planning.withLock { $0 = .failed(reason: "\(error)", request) }
                })
        }
        if !started { planning.withLock { $0 = .failed(reason: words("page.problem.stopping"), request) } }
        return .redirect("/shopping/plan")
    }

    /// On the store's thread: the answer kept as a draft (its amounts for the week, in the list's words for
    /// the units) with the analysis it used counted, or why there is none.
    private func keep(
        _ outcome: Result<MealPlan, AIFailure>, of request: PlanRequest, day: LocalDay, at moment: Date,
        in store: StationStore
    ) throws(StoreError) -> Planning {
        let words = self.words
        switch outcome {
        case .failure(let failure):
            try countIfAnswered(failure, on: day, in: store)
            // A refusal in the words of a plan: the station's own are about a photo.
            let reason = if case .refused = failure { words("page.plan.declined") } else { words.aiFailure(failure) }
            return .failed(reason: reason, request)
        case .success(let plan):
            let lines = plan.week(for: request).map {
                Ingredient(name: $0.name, amount: $0.amount, unit: words.unit($0.unit))
            }
            let id = try store.addPlanDraft(
                request, title: plan.title, contains: plan.contains, lines: lines, usedOn: day, at: moment)
            link.send(.answeredForThePage(day: day))
            return .answered(id)
        }
    }
}

/// The planned meal the page asked the AI about, until the page has shown how it ended.
enum Planning: Sendable, CustomStringConvertible {
    case asking(PlanRequest)
    /// Kept as the draft with this id.
    case answered(Int64)
    /// Why nothing came, in the page's words, and what was typed, to give back.
    case failed(reason: String, PlanRequest)

    var description: String {
        switch self {
        case .asking: "asking"
        case .answered(let id): "kept as draft \(id)"
        case .failed(let reason, _): "no plan: \(reason)"
        }
    }
}
