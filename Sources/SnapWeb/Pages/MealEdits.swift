import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// What the meal's form does: an edit saved against the version it was loaded with, a meal deleted,
/// a meal eaten again today.
extension MealsRoom {
    /// Saves an edit if nobody changed the meal since the form was loaded; the station hears of it.
    func editMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let stored = try storedMeal(id)
        let form = visitor.form
        let edited: MealAnalysis
        let byHand: Bool
        let version: Int
        do {
            version = try loadedVersion(form)
            (edited, byHand) = try readMealForm(form, from: stored.meal.analysis)
        } catch {
            return try notSaved(id, visitor, error)
        }
        let result = try store.writingAndWaiting { store throws(StoreError) in
            try store.editMeal(id, edited, totalsSetByOwner: byHand, version: version)
        }
        return try saved(result, id, visitor, on: stored.meal.day) {
            logger.info("owner's page: meal \(id) edited", metadata: ["kcal": "\(edited.totals.calories)"])
        }
    }

    /// The answer to an edit made against the version the page was loaded with: the meal again (saved),
    /// or why not (deleted meanwhile, changed meanwhile). `done` logs what was made; the station hears.
    func saved(
        _ result: Result<Int, MealEditFailure>, _ id: PhotoID, _ visitor: Visitor, on day: LocalDay, done: () -> Void
    ) throws -> WebReply {
        let words = self.words
        switch result {
        case .failure(.missing):
            throw WebProblem.notFound(words("page.meal.deleted_elsewhere"), words)
        case .failure(.changed):
            return try mealPage(id, visitor, message: words("page.meal.changed_elsewhere"), status: 409)
        case .success:
            done()
            try mealsChanged(on: day)
            return .redirect("/meal/\(id.rawValue)?saved=1")
        }
    }

    /// The version of the meal the form was loaded with (an edit or a correction is made only on it).
    func loadedVersion(_ form: Form) throws(FormProblem) -> Int {
        try form.int("version", label: words("page.meal.field.version"), in: 1...Int.max)
    }

    /// The meal's page again, its form open as it was sent, each wrong field marked (`FormEcho`).
    func notSaved(_ id: PhotoID, _ visitor: Visitor, _ problem: FormProblem) throws -> WebReply {
        try mealPage(id, visitor, message: nil, status: 400, echo: FormEcho(visitor.form, problem))
    }

    func deletePage(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let meal = try storedMeal(id).meal
        return page(
            words("page.meal.delete.title", ["title": meal.analysis.title]),
            """
            <p>\(dateAndTime(meal.photo.takenAt, words)) · \(macrosLine(meal.analysis.totals, words))</p>
            <p>\(words("page.meal.delete.text"))</p>
            <form method="post" action="/meal/\(id.rawValue)/delete">\(csrfField(visitor))
            <button type="submit" class="danger">\(words("page.meal.delete.button"))</button> \
            <a href="/meal/\(id.rawValue)">\(words("page.meal.delete.keep"))</a></form>
            """)
    }

    func deleteMeal(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let day = try store.storedMeal(id)?.meal.day
        let deleted = try store.writingAndWaiting { store throws(StoreError) in try store.deleteMeal(id) }
        guard deleted, let day else {
            let words = self.words
            throw WebProblem.notFound(words("page.meal.already_deleted"), words)
        }
        logger.info("owner's page: meal \(id) deleted")
        try mealsChanged(on: day)
        return .redirect(day == (try today()) ? "/?saved=deleted" : "/day/\(day.description)?saved=deleted")
    }

    /// Logs a meal from history again today: its title and numbers, with no new photo and no analysis
    /// used. Its photo's files are copied where they are still kept (each meal owns its files, so deleting
    /// one leaves the other whole); the station hears of today's meals and drops its sticker into the jar.
    func eatAgain(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let original = try storedMeal(id).meal
        let (moment, day) = (now(), try today())
        let again = PhotoID.new(at: moment, in: timeZone)
        let paths = store.paths(for: again, day: day)
        var photo = ProcessedPhoto(id: again, photoPath: "", thumbnailPath: "", takenAt: moment)
        let jpeg = FileBytes.readIfPresent(original.photo.photoPath)
        let thumbnail = FileBytes.readIfPresent(original.photo.thumbnailPath)
        // The meal's own sticker: retention keeps it after the photo's files are gone (48 hours by default),
        // so a meal from last week still drops its sticker into the jar.
        let sticker = FileBytes.readIfPresent(try storedMeal(id).stickerPath ?? "")
        if jpeg != nil && thumbnail != nil { (photo.photoPath, photo.thumbnailPath) = (paths.photo, paths.thumbnail) }
        if sticker != nil { photo.stickerPath = paths.sticker }
        // Whose it was: eaten again by the same person.
        let meal = Meal(photo: photo, day: day, analysis: original.analysis, person: original.person)
        if jpeg == nil || thumbnail == nil, let sticker {
            // Files first, then the row, as everywhere in the store.
            try AtomicFile.createFolder((paths.sticker as NSString).deletingLastPathComponent)
            try AtomicFile.write(sticker, to: paths.sticker)
        }
        try store.writingAndWaiting { store throws(StoreError) in
            if let jpeg, let thumbnail {
                try store.storePhoto(meal.photo, jpeg: jpeg, thumbnail: thumbnail, sticker: sticker)
            }
            try store.saveMeal(meal)
        }
        logger.info("owner's page: meal \(id) logged again today as \(again)")
        try mealsChanged(on: day)
        return .redirect("/?saved=again")
    }

    /// Tells the station the day's meals as the store now holds them; the station keeps those of the days
    /// it shows (today's totals, its jar's days) and ignores the rest.
    func mealsChanged(on day: LocalDay) throws {
        link.send(.mealsChanged(day: day, try store.meals(on: day)))
    }

    /// The dietary preferences in force (the config's where the owner's settings cannot be read).
}

extension PageRoom {
    func currentPreferences() -> Set<DietaryPreference> {
        inForce.dietaryPreferences
    }
}

/// Whose meal it is, on a meal's page when more than one person shares the station.
extension MealsRoom {
    /// The line that names the meal's person, with the form that gives it to someone else; nothing with
    /// one person.
    func personForm(_ stored: StoredMeal, _ visitor: Visitor, _ words: Words) throws -> HTML {
        let household = try store.household()
        // Giving a meal to another person is the owner's.
        guard household.isShared, visitor.isOwner else { return "" }
        let id = stored.meal.photo.id
        let options = household.people.map { person -> HTML in
            "<option value=\"\(person.id.rawValue)\"\(person.id == stored.meal.person ? " selected" : "" as HTML)>\(words.person(person))</option>"
        }
        return """
            <form method="post" action="/meal/\(id.rawValue)/person" class="person-move">\(csrfField(visitor))\
            <input type="hidden" name="version" value="\(stored.version)">\
            <label>\(words("page.meal.person")) <select name="person">\(options)</select></label> \
            <button type="submit" class="secondary">\(words("page.meal.person_move"))</button></form>
            """
    }

    /// Gives the meal to the person chosen, if nobody changed it since the page was loaded.
    func movePerson(_ id: PhotoID, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let stored = try storedMeal(id)
        let version: Int
        let person: PersonID
        do {
            version = try loadedVersion(visitor.form)
            let number = try visitor.form.int("person", label: words("page.meal.person"), in: 1...Int.max)
            guard try store.household().person(PersonID(rawValue: number)) != nil else {
                throw FormProblem(words("page.people.missing"), field: "person")
            }
            person = PersonID(rawValue: number)
        } catch let problem as FormProblem {
            return try mealPage(id, visitor, message: problem.message, status: 400)
        }
        let result = try store.writingAndWaiting { store throws(StoreError) in
            try store.moveMeal(id, to: person, version: version)
        }
        return try saved(result, id, visitor, on: stored.meal.day) {
            logger.info("owner's page: meal \(id) is \(person)'s now")
        }
    }
}
