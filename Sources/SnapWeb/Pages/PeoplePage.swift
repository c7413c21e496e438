import Foundation
import SnapCore
import SnapStore
import SnapText

/// The people who share the station: each with a name, a colour and their own goals, added, changed and
/// removed here. The owner (the first person) is always there; their goals are the station's (Settings).
struct PeopleRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    let store: StationStore

    func addRoutes(to router: inout PageRouter) {
        router.get("people") { try .reply(peoplePage($0.paired, message: nil)) }
        router.post("people", page: addPerson)
        router.post("people/:id", named: person(savePerson))
        router.get("people/:id/remove", named: person(removePage))
        router.post("people/:id/remove", named: person(removePerson))
    }

    private func person(_ handler: @escaping @Sendable (Person, Visitor) throws -> WebReply)
        -> @Sendable (String, Visitor) throws -> WebReply
    {
        { [self] raw, visitor in
            let words = self.words
            guard let number = Int(raw), let person = try store.household().person(PersonID(rawValue: number)) else {
                throw WebProblem.notFound(words("page.people.missing"), words)
            }
            return try handler(person, visitor)
        }
    }

    /// The list, each person's form, and the form that adds one. `echo` (with `echoed`, the person whose
    /// form it was; nil for the new one) draws a form again as it was sent when it failed.
    func peoplePage(
        _ visitor: Visitor, message: String?, status: Int = 200, echo: FormEcho = FormEcho(), echoed: PersonID? = nil
    ) throws -> WebReply {
        let words = self.words
        let household = try store.household()
        let saved = visitor.form["saved"].map { _ in words("page.people.saved") }
        // Each person's analyses today, the station's limit being the household's (`ai.daily_limit`).
        let uses = try store.personAIUses(on: try store.stationDay(in: timeZone).today(at: now()))
        let forms = household.people.map { person -> HTML in
            let form = echoed == person.id ? echo : FormEcho()
            let owner = person.id == .first
            return """
                <form method="post" action="/people/\(person.id.rawValue)" class="person">\(csrfField(visitor))
                <fieldset><legend><span class="swatch person-\(person.colour.rawValue)"></span> \(words.person(person))</legend>
                \(fields(person, form, words))
                <p class="used"><small>\(words("page.people.ai_used", count: uses[person.id] ?? 0))</small></p>
                \(owner ? "<small>\(words("page.people.owner_goals"))</small>" as HTML : "")
                <div class="buttons"><button type="submit">\(words("page.people.save"))</button>\
                \(owner ? "" : " <a href=\"/people/\(person.id.rawValue)/remove\">\(words("page.people.remove"))</a>" as HTML)</div>
                </fieldset></form>
                """
        }
        let full = household.people.count >= StationStore.mostPeople
        let new = Person(id: PersonID(rawValue: 0), name: "", colour: household.unusedColour)
        let adding: HTML =
            full
            ? "<p>\(words("page.people.full", ["count": words.integer(StationStore.mostPeople)]))</p>"
            : """
            <form method="post" action="/people" class="person">\(csrfField(visitor))
            <fieldset><legend>\(words("page.people.add"))</legend>
            \(fields(new, echoed == nil ? echo : FormEcho(), words))
            <div class="buttons"><button type="submit">\(words("page.people.add_button"))</button></div>
            </fieldset></form>
            """
        return page(
            words("page.people.title"), status: status,
            """
            \(notice(message, problem: status >= 400))\(echo.summary(words))\(notice(saved))
            <p>\(words("page.people.intro"))</p>
            \(forms)
            \(adding)
            """)
    }

    /// A person's fields: name, colour, their goals (not the owner's: those are Settings') and their share
    /// of the day's analyses.
    private func fields(_ person: Person, _ echo: FormEcho, _ words: Words) -> HTML {
        let colours = PersonColour.allCases.map { colour -> HTML in
            "<option value=\"\(colour.rawValue)\"\(echo.selected("colour", colour.rawValue, person.colour.rawValue))>\(words("page.colour.\(colour.rawValue)"))</option>"
        }
        let goals: [HTML] =
            person.id == .first
            ? []
            : SettingsForm.goalFields.map { field -> HTML in
                let value = person.goals.map { "\($0[keyPath: field.value])" } ?? "0"
                return """
                    <label>\(words(field.label)) <input name="\(field.name)"\(echo.attributes(field.name)) type="number" min="0" \
                    max="\(field.range.upperBound)" value="\(echo.value(field.name, value))"> \(field.name == "goal_kcal" ? "kcal" : "g")</label>\
                    \(echo.message(field.name))
                    """
            }
        return """
            <label>\(words("page.people.name")) <input name="name"\(echo.attributes("name")) maxlength="\(PersonName.limit)" \
            autocomplete="off" value="\(echo.value("name", person.name))"\(person.id == .first ? "" : " required" as HTML)></label>\(echo.message("name"))
            <label>\(words("page.people.colour")) <select name="colour"\(echo.attributes("colour"))>\(colours)</select></label>\(echo.message("colour"))
            \(goals)
            <label>\(words("page.people.ai_share")) <input name="ai_share"\(echo.attributes("ai_share")) type="number" min="0" \
            max="1000" value="\(echo.value("ai_share", person.aiShare.map(String.init) ?? ""))"></label>\(echo.message("ai_share"))
            <small>\(words("page.people.ai_share_hint"))</small>
            """
    }

    /// The person the form describes, over `person`; a problem names each wrong field.
    private func read(_ form: Form, over person: Person) throws(FormProblem) -> Person {
        let words = self.words
        var reading = FormReading()
        var read = person
        read.name = reading.read("") { () throws(FormProblem) in
            let typed = form["name"] ?? ""
            // The owner may stay unnamed ("Person 1"); everyone else has a name.
            if person.id == .first && typed.trimmingCharacters(in: .whitespaces).isEmpty { return "" }
            guard let name = PersonName.parse(typed) else {
                throw FormProblem(
                    words("page.people.problem.name", ["count": words.integer(PersonName.limit)]), field: "name")
            }
            return name
        }
        read.colour = reading.read(person.colour) { () throws(FormProblem) in
            guard let colour = PersonColour(rawValue: form["colour"] ?? "") else {
                throw FormProblem(words("page.people.problem.colour"), field: "colour")
            }
            return colour
        }
        if person.id != .first {
            var goals = Macros.zero
            for field in SettingsForm.goalFields {
                goals[keyPath: field.value] = reading.read(0) { () throws(FormProblem) in
                    (form[field.name] ?? "").isEmpty
                        ? 0 : try form.int(field.name, label: words(field.label), in: field.range)
                }
            }
            read.goals = goals.hasAny ? goals : nil
        }
        read.aiShare = reading.read(nil) { () throws(FormProblem) -> Int? in
            (form["ai_share"] ?? "").isEmpty
                ? nil : try form.int("ai_share", label: words("page.people.ai_share"), in: 0...1_000)
        }
        try reading.check()
        return read
    }

    func addPerson(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let person: Person
        do throws(FormProblem) {
            person = try read(visitor.form, over: Person(id: PersonID(rawValue: 0), name: "", colour: .orange))
        } catch {
            return try peoplePage(visitor, message: nil, status: 400, echo: FormEcho(visitor.form, error))
        }
        let added = try store.writingAndWaiting { store throws(StoreError) in
            try store.addPerson(name: person.name, colour: person.colour, goals: person.goals, aiShare: person.aiShare)
        }
        guard case .success(let id) = added else {
            return try peoplePage(
                visitor, message: words("page.people.full", ["count": words.integer(StationStore.mostPeople)]),
                status: 409)
        }
        logger.info("owner's page: \(id) added to the household")
        try householdChanged()
        return .redirect("/people?saved=1")
    }

    func savePerson(_ person: Person, _ visitor: Visitor) throws -> WebReply {
        let changed: Person
        do throws(FormProblem) {
            changed = try read(visitor.form, over: person)
        } catch {
            return try peoplePage(
                visitor, message: nil, status: 400, echo: FormEcho(visitor.form, error), echoed: person.id)
        }
        let failure = try store.writingAndWaiting { store throws(StoreError) in try store.updatePerson(changed) }
        guard failure == nil else {
            let words = self.words
            throw WebProblem.notFound(words("page.people.missing"), words)
        }
        logger.info("owner's page: \(person.id) changed")
        try householdChanged()
        return .redirect("/people?saved=1")
    }

    func removePage(_ person: Person, _ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let owner = try store.household().people[0]
        return page(
            words("page.people.remove_title", ["name": words.person(person)]),
            """
            <p>\(words("page.people.remove_text", ["owner": words.person(owner)]))</p>
            <form method="post" action="/people/\(person.id.rawValue)/remove">\(csrfField(visitor))
            <button type="submit" class="danger">\(words("page.people.remove_button"))</button> \
            <a href="/people">\(words("page.people.keep"))</a></form>
            """)
    }

    func removePerson(_ person: Person, _ visitor: Visitor) throws -> WebReply {
        let removed = try store.writingAndWaiting { store throws(StoreError) in try store.removePerson(person.id) }
        guard case .success(let moved) = removed else {
            let words = self.words
            throw WebProblem.notFound(words("page.people.missing"), words)
        }
        logger.info("owner's page: \(person.id) removed, \(moved) meals now the owner's")
        try householdChanged()
        return .redirect("/people?saved=1")
    }

    /// The station names the people as the store now holds them.
    private func householdChanged() throws {
        frame.link.send(.householdChanged(try store.household()))
    }
}
