import SnapCore
import SnapStore
import SnapText

// Whose meals a paired browser logs and changes. The owner's browser logs for anyone of the household
// (the Log page's people); a household member's logs and changes one person's meals: the person the
// owner named when inviting the phone, or, for a phone paired at the station's hold, the one it says on
// its first meal (once: then only the owner changes it, on the Status page). A member sees the household's
// meals and pages, and changes none but its own.

extension WebSession {
    /// Whether this browser may log, change or remove `person`'s meals: an owner's anyone's, a household
    /// member's only its own person's (`loggingPerson`).
    func mayChange(mealsOf person: PersonID, in household: Household) -> Bool {
        role == .owner || loggingPerson(household, asked: nil)?.id == person
    }

    /// Whose meal this browser logs: a member's own person (nil until it said who it is, or once that
    /// person left the household; a household of one person's always); for an owner, the one `asked` names (the form's or the query's
    /// `person`), the household's first where none is asked, nil where `asked` names no one.
    func loggingPerson(_ household: Household, asked: String?) -> Person? {
        // A household of one: its person's.
        guard role == .owner else {
            return person.flatMap(household.person) ?? (household.isShared ? nil : household.people[0])
        }
        guard let asked, !asked.isEmpty else { return household.people[0] }
        return Int(asked).flatMap { household.person(PersonID(rawValue: $0)) }
    }
}

extension PageVisitor {
    var isOwner: Bool { session.role == .owner }

    /// `WebSession.mayChange(mealsOf:)`, or the refusal in words.
    func mustChange(mealsOf person: PersonID, in household: Household, _ words: Words) throws(WebProblem) {
        guard session.mayChange(mealsOf: person, in: household) else {
            throw WebProblem(403, words("page.problem.not_yours.title"), words("page.problem.not_yours.message"))
        }
    }
}
