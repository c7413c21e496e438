import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapText

/// The keys entered instead of a shell: the AI service's key, the group's password, the station's account
/// on the group's server (its room, beside its pages as the walk-through's is).
struct KeysRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    /// Where each key comes from (`key_source`), and which the station uses.
    let config: StationConfig
    let keys: EnteredKeys
    /// Tries the AI service with the key in force (nil where the station has no AI service to try).
    let trier: (any AIServiceTrier)?
    /// Makes or signs in to the station's account on the group's server (nil without a Supabase project).
    let accounts: (any GroupAccounts)?
    /// How the connection to the home's MQTT broker stands (nil without `[mqtt]`).
    let broker: (@Sendable () -> BrokerStatus)?

    func addRoutes(to router: inout PageRouter) {
        router.get("keys") { .reply(keysPage($0.paired)) }
        router.post("keys/group/account", steps: account)
        router.post("keys/:name") { try keepKey($0.parameters.values.first ?? "", $0.paired) }
        router.post("keys/:name/forget", named: forgetKey)
        router.post("keys/ai/try", steps: tryService)
    }
}

/// The keys the owner enters instead of a shell (`EnteredKeys`): the AI service's key and the group's
/// password, each replaced or removed here. A key is never shown again, nor logged: the page says whether
/// one is in force, where it comes from, and its last four characters. The station's clients read their
/// keys as it starts, so a change restarts it at its next calm moment (`Event.startChanged`).
extension KeysRoom {
    func keysPage(
        _ visitor: Visitor, said: String? = nil, problem: (name: EnteredKeys.Name, text: String)? = nil,
        trial: AIServiceTrial? = nil, account: AccountAnswer? = nil
    ) -> WebReply {
        let words = self.words
        // Each key's field is marked as every form's is (`FormEcho`), but never filled again: a key is not
        // sent back.
        func fieldEcho(_ name: EnteredKeys.Name) -> FormEcho {
            guard let problem, problem.name == name else { return FormEcho(prefix: "\(name.rawValue)-") }
            return FormEcho(visitor.form, FormProblem(problem.text, field: "key"), prefix: "\(name.rawValue)-")
        }
        let sections = shown.map { name -> HTML in
            let (title, text) =
                switch name {
                case .ai: (words("page.keys.ai"), words("page.keys.ai_text"))
                case .group: (words("page.keys.group"), words("page.keys.group_text"))
                case .mqtt:
                    (words("page.keys.mqtt"), words("page.keys.mqtt_text", ["broker": config.mqtt.broker.address]))
                }
            let echo = fieldEcho(name)
            let found = config.key(name, for: address(name), entered: keys)
            var status: HTML
            switch found {
            case (_, .config(let source))?:
                // The installer's key wins: no form to enter one that would not be used.
                let line = words("page.keys.config", ["source": source.description])
                let tried: HTML = name == .ai ? tryForm(visitor, trial) : name == .mqtt ? brokerNotice : ""
                return "<section class=\"key\"><h2>\(title)</h2><p>\(text)</p><p>\(line)</p>\(tried)</section>"
            case (let key, .entered)?: status = "<p>\(words("page.keys.entered", ["last": String(key.suffix(4))]))</p>"
            case nil: status = "<p>\(words("page.keys.none"))</p>"
            }
            // A key kept for another address than the one in force now: not sent there, and asked for again.
            if found == nil, let kept = keys.destination(of: name) {
                status =
                    "<p>\(words("page.keys.elsewhere", ["kept": kept.description, "address": address(name) ?? ""]))</p>"
            }
            let forget: HTML =
                found == nil && keys.key(name) == nil
                ? ""
                : """
                <form method="post" action="/keys/\(name.rawValue)/forget" class="inline">\(csrfField(visitor))\
                <button type="submit" class="secondary">\(words("page.keys.forget"))</button></form>
                """
            let form: HTML = """
                <form method="post" action="/keys/\(name.rawValue)">\(csrfField(visitor))
                <label for="\(name.rawValue)-key">\(words("page.keys.new"))</label>
                <input type="password"\(echo.attributes("key")) name="key" autocomplete="off" spellcheck="false" required>\
                \(echo.message("key"))
                <div class="buttons"><button type="submit">\(words("page.keys.save"))</button></div></form>\(forget)
                """
            let more: HTML =
                switch name {
                case .ai: tryForm(visitor, trial)
                case .group: accountForm(visitor, account)
                case .mqtt: brokerNotice
                }
            return "<section class=\"key\"><h2>\(title)</h2><p>\(text)</p>\(status)\(form)\(more)</section>"
        }
        return page(
            words("page.keys.title"), status: problem == nil ? 200 : 400,
            """
            \(notice(said))\(problem.map { fieldEcho($0.name).summary(words, title: words("page.keys.not_kept")) })
            <p>\(words("page.keys.text"))</p>
            \(sections)
            """)
    }

    /// Keeps the key the form sends for `name`, or says why not with nothing changed; an AI key is tried
    /// at once (`tryService`).
    func keepKey(_ name: String, _ visitor: Visitor) throws -> PageStep {
        let name = try known(name)
        let key = (visitor.form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard EnteredKeys.isValid(key) else {
            return .reply(keysPage(visitor, problem: (name, words("page.keys.invalid"))))
        }
        var kept = false
        let destination = address(name).flatMap(KeyDestination.init)
        let page = change(
            name, visitor, "a key entered for \(destination?.description ?? "the group's server")",
            said: "page.keys.saved"
        ) {
            () throws(FileError) in
            try keys.keep(key, for: name, to: destination)
            kept = true
        }
        guard kept, name == .ai, config.key(.ai, for: address(.ai), entered: keys)?.origin == .entered else {
            return .reply(page)
        }
        return tried(visitor, said: words("page.keys.saved"))
    }

    /// Tries the AI service with the key in force, and shows what it answered.
    func tryService(_ visitor: Visitor) throws -> PageStep { tried(visitor, said: nil) }

    private func tried(_ visitor: Visitor, said: String?) -> PageStep {
        guard let trier else { return .reply(keysPage(visitor, said: said, trial: .failed(.notConfigured))) }
        return .after {
            let trial = await trier.tryService(nil)
            return { .reply(self.keysPage(visitor, said: said, trial: trial)) }
        }
    }

    /// The AI service's try: what it answered last (on this page), and the button that asks again.
    private func tryForm(_ visitor: Visitor, _ trial: AIServiceTrial?) -> HTML {
        let words = self.words
        return """
            <div class="trial">\(trialNotice(trial))<form method="post" action="/keys/ai/try" class="inline">\(csrfField(visitor))\
            <button type="submit" class="secondary">\(words("page.keys.try"))</button></form> \
            <small>\(words("page.keys.trial.text"))</small></div>
            """
    }

    /// Removes the key entered for `name`.
    func forgetKey(_ name: String, _ visitor: Visitor) throws -> WebReply {
        let name = try known(name)
        return change(name, visitor, "the key entered removed", said: "page.keys.forgotten") {
            () throws(FileError) in try keys.forget(name)
        }
    }

    /// Makes a change to `name`'s key file, logs it as `done` (never the key), and tells the station; or says
    /// why it could not.
    private func change(
        _ name: EnteredKeys.Name, _ visitor: Visitor, _ done: String, said: String,
        _ write: () throws(FileError) -> Void
    ) -> WebReply {
        do {
            try write()
        } catch {
            logger.error("owner's page: the \(name.rawValue) key was not changed: \(error)")
            return keysPage(visitor, problem: (name, words("page.keys.failed", ["error": "\(error)"])))
        }
        logger.notice("owner's page: \(name.rawValue): \(done)")
        frame.link.send(.startChanged)
        return keysPage(visitor, said: words(said))
    }

    /// The address `name`'s key goes to now: the AI service and the broker in force (which the page may
    /// have changed since the station started); nil for the group's password (the config's server).
    func address(_ name: EnteredKeys.Name) -> String? {
        switch name {
        case .ai: inForce.aiService.baseURL
        case .group: nil
        case .mqtt: inForce.mqtt.address
        }
    }

    /// The keys this station uses: the group's password only where a Supabase account signs in with one,
    /// the broker's where `[mqtt]` names a broker and a user.
    var shown: [EnteredKeys.Name] {
        (config.group.backend == .supabase ? [.ai, .group] : [.ai])
            + (config.mqtt.broker.broker != nil && !config.mqtt.broker.username.isEmpty ? [.mqtt] : [])
    }

    /// How the connection to the broker stands now; a password changed here is used after the restart.
    private var brokerNotice: HTML {
        let words = self.words
        switch broker?() {
        case .connected?: return notice(words("page.keys.mqtt.connected"))
        case .connecting?: return notice(words("page.keys.mqtt.connecting"))
        case .refusedCredentials?: return notice(words("page.keys.mqtt.refused"), problem: true)
        case .refused(let reason)?: return notice(words("page.keys.mqtt.other", ["reason": reason]), problem: true)
        case .unreachable(let reason)?:
            return notice(words("page.keys.mqtt.unreachable", ["reason": reason]), problem: true)
        case nil: return ""
        }
    }

    private func known(_ name: String) throws -> EnteredKeys.Name {
        guard let known = EnteredKeys.Name(rawValue: name), shown.contains(known) else {
            throw WebProblem.notFound(words("page.keys.unknown"), words)
        }
        return known
    }
}

extension PageRoom {
    /// What the AI service answered when tried, for the Keys page and the walk-through: it works, or which
    /// models it offers instead, or its own words, or why it was not reached.
    func trialNotice(_ trial: AIServiceTrial?) -> HTML {
        let words = self.words
        switch trial {
        case .works(let model, true, _)?: return notice(words("page.keys.trial.works", ["model": model]))
        case .works(let model, false, let others)? where others.isEmpty:
            return notice(words("page.keys.trial.no_models", ["model": model]), problem: true)
        case .works(let model, false, let others)?:
            return notice(
                words("page.keys.trial.no_model", ["model": model, "models": others.joined(separator: ", ")]),
                problem: true)
        case .refused(let status, let said)?:
            return notice(
                words("page.keys.trial.refused", ["words": said, "status": String(status)]), problem: true)
        case .failed(let failure)?:
            return notice(words("page.keys.trial.failed", ["reason": words.aiFailure(failure)]), problem: true)
        case nil: return ""
        }
    }
}
