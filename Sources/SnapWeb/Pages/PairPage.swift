import Foundation
import SnapCore
import SnapStore
import SnapText

extension PairingRoom {
    /// The pairing gate; after a wrong code, the code's field is empty again and tied to why, and the
    /// browser's name as typed (`name`) stays.
    func pairPage(message: String?, status: Int, name: String = "") -> WebReply {
        let words = self.words
        let refused = status >= 400 && message != nil
        let marks: HTML = refused ? " aria-invalid=\"true\" aria-describedby=\"pair-problem\"" : ""
        let said: HTML =
            refused ? "<p class=\"problem\" role=\"alert\" id=\"pair-problem\">\(message ?? "")</p>" : notice(message)
        return page(
            words("page.pair.title"), paired: false, status: status,
            """
            \(said)
            <p>\(words("page.pair.text"))</p>
            <form method="post" action="/pair" class="pair">
            <label>\(words("page.pair.code")) <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12" required autofocus\(marks)></label>
            <label>\(words("page.pair.name")) <input name="name" maxlength="40" placeholder="\(Self.browserName(nil, words))" value="\(name)"></label>
            <button type="submit">\(words("page.pair.button"))</button>
            </form>
            """)
    }

    /// Checks the code; a right one pairs the browser: a new session, stored hashed, its cookie set.
    func pair(_ request: WebRequest) throws -> WebReply {
        let words = self.words
        guard request.body.count <= 4096,
            let form = try? Form(parsing: String(decoding: request.body, as: UTF8.self), words: words)
        else { throw WebProblem(400, words("page.problem.broken_form.title"), words("page.pair.type_code")) }
        let time = now()
        switch desk.redeem(form["code"] ?? "", client: request.client, now: time) {
        case .wrong:
            logger.notice("owner's page: a wrong pairing code from \(request.client)")
            // The same words whether a code is open or not: nobody learns when one is.
            return pairPage(
                message: words("page.pair.wrong"), status: 401, name: String((form["name"] ?? "").prefix(40)))
        case .wait(let seconds):
            var reply = pairPage(
                message: words("page.pair.wait", count: seconds), status: 429,
                name: String((form["name"] ?? "").prefix(40)))
            reply.headers.append(("Retry-After", "\(seconds)"))
            return reply
        case .paired(let invited, let person):
            let typed =
                (try? form.text("name", label: words("page.pair.field.name"), maxLength: 40, allowEmpty: true)) ?? ""
            let name = typed.isEmpty ? Self.browserName(request.header("user-agent"), words) : typed
            let token = Secrets.token()
            let (hash, csrf) = (Secrets.sha256(token), Secrets.token())
            // The first browser paired at the station is the owner's (and, where no owner's browser is paired
            // any more, the next one); every other, and every phone the owner invited, a member's.
            let role = try store.writingAndWaiting { [lifetime = sessionLifetime] store throws(StoreError) in
                let owned = try store.sessions().contains {
                    $0.role == .owner && time.timeIntervalSince($0.lastSeen) <= WebApp.sessionIdle
                        && time.timeIntervalSince($0.created) <= lifetime
                }
                let role: WebSession.Role = invited || owned ? .member : .owner
                try store.createSession(
                    WebSession(
                        tokenHash: hash, csrf: csrf, name: name, created: time, lastSeen: time, role: role,
                        person: role == .member ? person : nil))
                return role
            }
            link.send(.paired(name))
            logger.notice("owner's page: paired \(name) (\(role == .owner ? "the owner's" : "a household member's"))")
            // The owner's first phone of a new station goes through the walk-through; a phone paired after it
            // ended (finished or skipped), or a member's, goes to Today.
            let welcomed = (try? store.isMarked(.welcomed)) ?? true
            var reply = WebReply.redirect(welcomed || role == .member ? "/" : "/welcome")
            reply.headers.append(("Set-Cookie", cookie(token, maxAge: Int(sessionLifetime))))
            return reply
        }
    }

    func signOut(_ visitor: Visitor) throws -> WebReply {
        let hash = visitor.session.tokenHash
        let left = try store.writingAndWaiting { store throws(StoreError) in
            try store.forgetSessions(hash: hash)
            return try store.sessions().count
        }
        link.send(.browsersForgotten(left: left))
        var reply = WebReply.redirect("/pair")
        reply.headers.append(("Set-Cookie", cookie("", maxAge: 0)))
        return reply
    }

    /// Forgets one paired browser (its row on the status page), or every one but this.
    func forgetBrowser(_ visitor: Visitor) throws -> WebReply {
        let own = visitor.session.tokenHash
        let target = visitor.form["session"] ?? ""
        let (forgotten, left) = try store.writingAndWaiting { store throws(StoreError) in
            var count = 0
            if target == "others" {
                for session in try store.sessions() where session.tokenHash != own {
                    count += try store.forgetSessions(hash: session.tokenHash)
                }
            } else {
                count = try store.forgetSessions(hash: target)
            }
            return (count, try store.sessions().count)
        }
        link.send(.browsersForgotten(left: left))
        logger.notice("owner's page: \(forgotten) paired browser(s) forgotten")
        return .redirect(target == own ? "/pair" : "/status")
    }

    /// Makes another paired browser the owner's or a household member's (the form's `session` and `role`);
    /// the owner's own browser stays the owner's, so the station always has one.
    func changeRole(_ visitor: Visitor) throws -> WebReply {
        let target = visitor.form["session"] ?? ""
        guard let role = visitor.form["role"].flatMap(WebSession.Role.init(rawValue:)),
            target != visitor.session.tokenHash
        else {
            throw WebProblem(400, words("page.problem.broken_form.title"), words("page.status.role_problem"))
        }
        let changed = try store.writingAndWaiting { store throws(StoreError) in try store.setRole(role, hash: target) }
        guard changed else { throw WebProblem.notFound(words("page.status.browser_gone"), words) }
        logger.notice("owner's page: a paired browser is now \(role == .owner ? "an owner's" : "a household member's")")
        return .redirect("/status")
    }

    /// Says whose meals another paired browser logs (the form's `session` and `person`; an empty person:
    /// the phone says it on its first meal).
    func changePerson(_ visitor: Visitor) throws -> WebReply {
        let target = visitor.form["session"] ?? ""
        let person = try namedPerson(visitor.form)
        let changed = try store.writingAndWaiting { store throws(StoreError) in
            try store.setPerson(person, hash: target)
        }
        guard changed else { throw WebProblem.notFound(words("page.status.browser_gone"), words) }
        logger.notice("owner's page: a paired browser logs \(person.map { "\($0)'s" } ?? "its own person's") meals")
        return .redirect("/status")
    }

    /// The person the form's `person` names, nil for an empty one; a refusal for one not in the household.
    private func namedPerson(_ form: Form) throws -> PersonID? {
        guard let asked = form["person"], !asked.isEmpty else { return nil }
        guard let number = Int(asked), let person = try store.household().person(PersonID(rawValue: number)) else {
            throw WebProblem(400, words("page.problem.broken_form.title"), words("page.people.missing"))
        }
        return person.id
    }

    /// Opens a code for a household member's phone (`PairingDesk.invite`), for the person the form names
    /// (or one the phone says at its first meal): the page shows it with the pairing address and its QR
    /// code, for five minutes, as the station's pairing screen does.
    func invitePhone(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let pairing = desk.invite(now: now(), for: try namedPerson(visitor.form))
        logger.notice("owner's page: \(visitor.session.name) invites a household member's phone")
        let code = pairing.code.prefix(4) + " " + pairing.code.dropFirst(4)
        let address = pairing.url.isEmpty ? "/pair" : pairing.url
        return page(
            words("page.invite.title"),
            """
            <p>\(words("page.invite.text", ["address": address]))</p>
            <p class="invite-code">\(String(code))</p>
            \(pairing.url.isEmpty ? "" : HTML.qrCode(pairing.url, label: words("page.invite.qr")))
            <p>\(words("page.invite.valid", ["minutes": words.integer(Int(PairingDesk.validity / 60))]))</p>
            <p><a href="/status">\(words("page.invite.back"))</a></p>
            """)
    }

    private func cookie(_ value: String, maxAge: Int) -> String {
        "\(WebApp.sessionCookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict\(secure ? "; Secure" : "")"
    }

    /// "Firefox on Android", from a User-Agent, for the list of paired browsers (kept as it is named at
    /// pairing, in the page's language then).
    static func browserName(_ agent: String?, _ words: Words) -> String {
        let agent = agent ?? ""
        let browser =
            ["Firefox", "Edg", "OPR", "Chrome", "Safari"].first { agent.contains($0 + "/") }.map {
                ["Edg": "Edge", "OPR": "Opera"][$0] ?? $0
            } ?? words("page.pair.a_browser")
        let system =
            [
                ("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
                ("Mac OS", words("page.pair.a_mac")),
                ("Linux", "Linux"),
            ].first { agent.contains($0.0) }?.1
        return system.map { words("page.pair.browser_on", ["browser": browser, "system": $0]) } ?? browser
    }
}
