import Foundation
import SnapCore
import SnapStore

extension WebApp {
    /// The meal result the station shows now, to save edited or discard from here.
    func reviewPage(_ visitor: Visitor) throws -> WebReply {
        guard case .mealResult(let result)? = link.status().screen else {
            return page(
                "Nothing to review",
                """
                <p>The station shows no meal result now. A result shows here while it is on the station's screen;
                saved meals are edited from <a href="/">Today</a>.</p>
                """)
        }
        let id = result.photo.id.rawValue
        return page(
            "Review “\(result.analysis.title)”",
            """
            <p>The station saves this result by itself in \(result.autoSaveIn) s unless you save or discard it here
            (saved meals can still be edited).</p>
            <div class="pictures"><img class="photo" src="/photo/\(id).jpg" alt="The photo"></div>
            \(mealForm(action: "/review", analysis: result.analysis, totalsByHand: false, visitor,
                hidden: "<input type=\"hidden\" name=\"photo\" value=\"\(id)\">",
                buttons: "<button type=\"submit\" name=\"decision\" value=\"save\">Save</button> <button type=\"submit\" name=\"decision\" value=\"discard\" class=\"danger\">Discard</button>"))
            """)
    }

    /// Saves the result edited, or discards it. The station decides (it may have saved it by itself a
    /// moment ago): the page sends its decision, waits for the store to settle, and then makes the
    /// stored meal what the owner sent, so nothing typed is lost either way.
    func submitReview(_ visitor: Visitor) throws -> WebReply {
        let form = visitor.form
        let id = PhotoID(form["photo"] ?? "")
        let discard = form["decision"] == "discard"
        let shown: MealAnalysis? =
            if case .mealResult(let result)? = link.status().screen, result.photo.id == id { result.analysis } else {
                nil
            }
        let original = try shown ?? store.storedMeal(id)?.meal.analysis
        guard let original else {
            throw WebProblem.notFound("This result is gone: the station discarded it. Nothing was saved.")
        }
        if discard {
            if shown != nil { link.send(.reviewSubmitted(id, nil)) }
            // Saved by the station before the decision arrived: deleted, as the owner asked.
            if let saved = try waitForMeal(id, present: false), let day = try store.storedMeal(saved)?.meal.day {
                try store.writingAndWaiting { store throws(StoreError) in _ = try store.deleteMeal(saved) }
                try mealsChanged(on: day)
            }
            logger.info("owner's page: result \(id) discarded")
            return .redirect("/?saved=deleted")
        }
        let edited: MealAnalysis
        let byHand: Bool
        do {
            (edited, byHand) = try readMealForm(form, from: original)
        } catch {
            return page(
                "Not saved", status: 400,
                """
                <p class="problem" role="alert">Not saved: \(error.message).</p>
                <p><a href="/review">Back to the result</a></p>
                """)
        }
        if shown != nil { link.send(.reviewSubmitted(id, edited)) }
        guard try waitForMeal(id, present: true) != nil, let stored = try store.storedMeal(id) else {
            throw WebProblem(
                503, "Not saved yet", "The station did not save the meal within 3 seconds; look at Today in a moment.")
        }
        if stored.meal.analysis != edited || stored.totalsSetByOwner != byHand {
            let result = try store.writingAndWaiting { store throws(StoreError) in
                try store.editMeal(id, edited, totalsSetByOwner: byHand, version: stored.version)
            }
            if case .failure(let failure) = result {
                throw WebProblem(409, "Not saved", "The meal changed while it was saved (\(failure)); edit it again.")
            }
            try mealsChanged(on: stored.meal.day)
        }
        logger.info("owner's page: result \(id) saved", metadata: ["kcal": "\(edited.totals.calories)"])
        return .redirect("/meal/\(id.rawValue)?saved=1")
    }

    /// Waits up to 3 s for the meal `id` to be stored (`present`), or returns at once with it if it is
    /// already; nil when it is not stored.
    private func waitForMeal(_ id: PhotoID, present: Bool) throws -> PhotoID? {
        let deadline = Date().addingTimeInterval(present ? 3 : 0.5)
        while true {
            if try store.storedMeal(id) != nil { return id }
            if Date() >= deadline { return nil }
            usleep(30_000)
        }
    }
}
