import Foundation
import SnapCore
import SnapStore
import SnapText

extension StatusRoom {
    /// The paired browsers: each one's name, role and person. The owner forgets them, gives them their role
    /// and says whose meals a member's phone logs, and invites a phone; a member sees who is paired.
    func browsers(_ visitor: Visitor, _ words: Words) throws -> HTML {
        let owner = visitor.isOwner
        let household = try store.household()
        let rows = try store.sessions().map { session -> HTML in
            let own = session.tokenHash == visitor.session.tokenHash
            let seen = words(
                "page.status.paired",
                ["paired": dateAndTime(session.created, words), "seen": dateAndTime(session.lastSeen, words)])
            var role = words(session.role == .owner ? "page.status.role.owner" : "page.status.role.member")
            if session.role == .member, household.isShared {
                role +=
                    " · "
                    + (session.person.flatMap(household.person).map {
                        words("page.status.logs_for", ["name": words.person($0)])
                    } ?? words("page.status.logs_for_unsaid"))
            }
            let forms: HTML =
                !owner
                ? ""
                : """
                <form method="post" action="/status/forget" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="session" value="\(session.tokenHash)"><button type="submit">\(words("page.status.forget"))</button></form>\
                \(own ? "" : """
                <form method="post" action="/status/role" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="session" value="\(session.tokenHash)">\
                <input type="hidden" name="role" value="\(session.role == .owner ? "member" : "owner")">\
                <button type="submit" class="secondary">\(words(session.role == .owner ? "page.status.make_member" : "page.status.make_owner"))</button></form>
                """ as HTML)\
                \(session.role == .member && household.isShared ? """
                <form method="post" action="/status/person" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="session" value="\(session.tokenHash)">\
                <label>\(words("page.status.whose")) \(personChoice(household, chosen: session.person, words))</label> \
                <button type="submit" class="secondary">\(words("page.status.whose_save"))</button></form>
                """ as HTML : "")
                """
            return """
                <li>\(session.name)\(own ? " \(words("page.status.this_browser"))" as HTML : "") · \(role) <small>\(seen)</small>\(forms)</li>
                """
        }
        let ownersForms: HTML =
            !owner
            ? "<p>\(words("page.status.member_text"))</p>"
            : """
            <form method="post" action="/status/invite">\(csrfField(visitor))\
            \(household.isShared ? "<label>\(words("page.status.invite_for")) \(personChoice(household, chosen: nil, words))</label> " as HTML : "")\
            <button type="submit">\(words("page.status.invite"))</button> <small>\(words("page.status.invite_text"))</small></form>
            <form method="post" action="/status/forget">\(csrfField(visitor))<input type="hidden" name="session" value="others">\
            <button type="submit">\(words("page.status.forget_others"))</button></form>
            """
        return """
            <h2>\(words("page.status.browsers"))</h2>
            <ul class="sessions">\(rows)</ul>
            \(ownersForms)
            """
    }

    /// The household's people to choose from, and "the phone says it at its first meal".
    private func personChoice(_ household: Household, chosen: PersonID?, _ words: Words) -> HTML {
        let people = household.people.map { one -> HTML in
            "<option value=\"\(one.id.rawValue)\"\(one.id == chosen ? " selected" : "" as HTML)>\(words.person(one))</option>"
        }
        return """
            <select name="person"><option value=""\(chosen == nil ? " selected" : "" as HTML)>\(words("page.status.whose_unsaid"))</option>\(people)</select>
            """
    }
}
