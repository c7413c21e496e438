import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// The first visit's walk-through: where the first phone paired with a new station goes (`PairingRoom`),
/// one step a page, each saved as it is sent and each one skipped with a link, all done again later in
/// Settings. A step's settings go to the state machine as `SettingsChange.part`; those the station takes
/// only as it starts (the time zone, the AI service, an AI key) wait for the walk-through's end, which
/// restarts the station once where one changed, so that the page stays up between the steps.
struct WelcomeRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    let store: StationStore
    let rule: SettingsRule
    /// `camera.id`, which the settings' form names.
    let cameraID: String
    /// The AI key's file and the try of the AI service, as the Keys page has them.
    let keys: KeysRoom
    /// An AI key entered during the walk-through: its end restarts the station to use it.
    let keyEntered = RoomState(false)

    func addRoutes(to router: inout PageRouter) {
        router.get("welcome") { try after { .reply(stepPage(.language, $0.paired)) }($0) }
        router.post("welcome/done", steps: finish)
        router.get("welcome/:step") { try after { try .reply(stepPage(step($0["step"]), $0.paired)) }($0) }
        router.post("welcome/:step") { try after { try save(try step($0["step"]), $0.paired) }($0) }
    }

    /// A step of the walk-through while it is under way; once it ended, its steps are the settings pages,
    /// whose rules hold (a key goes with its address, the owner's alone): a step's page or form opens them,
    /// saving nothing.
    private func after(_ step: @escaping @Sendable (PageRequest) throws -> PageStep) -> PageRouter.Handler {
        { [store] request in
            guard (try? store.isMarked(.welcomed)) != true else {
                return .reply(.redirect(request.request.path.hasSuffix("/ai") ? "/settings#ai" : "/settings"))
            }
            return try step(request)
        }
    }
}

/// The walk-through's steps, in order: the settings each one asks for.
enum WelcomeStep: String, CaseIterable, Sendable {
    case language, household, ai, group

    var keys: [RuntimeSettings.Key] {
        switch self {
        case .language: [.language, .timeZone]
        case .household: [.dietary, .goals]
        case .ai: [.aiService]
        case .group: []
        }
    }

    var number: Int { (Self.allCases.firstIndex(of: self) ?? 0) + 1 }

    /// The step after this one; nil after the last.
    var next: WelcomeStep? { number < Self.allCases.count ? Self.allCases[number] : nil }

    /// The catalog's keys of its title and its text.
    var words: (title: String, text: String) {
        switch self {
        case .language: ("page.welcome.language.title", "page.welcome.language.text")
        case .household: ("page.welcome.household.title", "page.welcome.household.text")
        case .ai: ("page.welcome.ai.title", "page.welcome.ai.text")
        case .group: ("page.welcome.group.title", "page.welcome.group.text")
        }
    }
}

extension WelcomeRoom {
    private func step(_ name: String) throws -> WelcomeStep {
        guard let step = WelcomeStep(rawValue: name) else {
            throw WebProblem.notFound(words("page.welcome.unknown"), words)
        }
        return step
    }

    private func settingsForm(_ echo: FormEcho) -> SettingsForm {
        var form = SettingsForm(rule: rule, words: words, station: link.status(), cameraID: cameraID)
        form.echo = echo
        form.offersPhoneZone = true
        return form
    }

    /// A step's page: its fields with the values in force (or as a failed form sent them), the button that
    /// saves it and goes on, the link that skips it, and the form that ends the walk-through here.
    func stepPage(
        _ step: WelcomeStep, _ visitor: Visitor, echo: FormEcho = FormEcho(prefix: ""), said: HTML = "",
        status: Int = 200
    ) -> WebReply {
        let words = self.words
        let form = settingsForm(echo)
        let fields: HTML
        switch step {
        case .language:
            fields = """
                <fieldset><legend>\(words("page.settings.language_legend"))</legend>\(form.fields(.language))</fieldset>
                <p><small>\(words("page.welcome.restore")) <a href="/backup">\(words("page.welcome.restore_link"))</a></small></p>
                """
        case .household:
            fields = """
                <fieldset><legend>\(words("page.settings.dietary"))</legend>\(form.fields(.dietary))</fieldset>
                <fieldset><legend>\(words("page.settings.goals"))</legend>\(form.fields(.goals))</fieldset>
                """
        case .ai:
            fields =
                "<fieldset><legend>\(words("page.settings.ai_legend"))</legend>\(form.fields(.ai))\(keyField(echo))</fieldset>"
        case .group: fields = groupText()
        }
        let skip: HTML =
            step.next.map { "<a href=\"/welcome/\($0.rawValue)\">\(words("page.welcome.skip_step"))</a>" } ?? ""
        let action: HTML =
            step == .group
            ? "<form method=\"post\" action=\"/welcome/done\">\(csrfField(visitor))\(fields)<div class=\"buttons\"><button type=\"submit\">\(words("page.welcome.finish"))</button></div></form>"
            : """
            <form method="post" action="/welcome/\(step.rawValue)" class="settings">\(csrfField(visitor))
            \(fields)
            <div class="buttons"><button type="submit">\(words(step == .ai ? "page.welcome.try" : "page.welcome.next"))</button> \(skip)</div>
            </form>
            """
        let end: HTML =
            step == .group
            ? ""
            : """
            <form method="post" action="/welcome/done" class="inline">\(csrfField(visitor))\
            <button type="submit" class="secondary">\(words("page.welcome.skip_all"))</button></form>
            """
        return page(
            words(step.words.title), status: status,
            """
            <p class="step">\(words("page.welcome.step", ["n": words.integer(step.number), "count": words.integer(WelcomeStep.allCases.count)]))</p>
            \(echo.summary(words))\(said)
            <p>\(words(step.words.text))</p>
            \(action)
            <p><small>\(words("page.welcome.later"))</small></p>
            \(end)
            """)
    }

    /// The AI key's field where the owner may enter one (not where the installer's is in force).
    private func keyField(_ echo: FormEcho) -> HTML {
        let words = self.words
        switch keys.config.key(.ai, for: keys.address(.ai), entered: keys.keys) {
        case (_, .config(let source))?: return "<p>\(words("page.keys.config", ["source": source.description]))</p>"
        case (let key, .entered)?:
            return keyInput(echo, words("page.welcome.key_kept", ["last": String(key.suffix(4))]))
        case nil: return keyInput(echo, words("page.welcome.key_none"))
        }
    }

    private func keyInput(_ echo: FormEcho, _ note: String) -> HTML {
        """
        <label>\(words("page.welcome.key")) <input type="password"\(echo.attributes("ai_key")) name="ai_key" \
        autocomplete="off" spellcheck="false"></label>\(echo.message("ai_key"))<small class="hint">\(note)</small>
        """
    }

    /// The group's step: where groups are made and joined, or that the installer's folder is the group.
    private func groupText() -> HTML {
        let words = self.words
        guard keys.config.group.backend == .supabase else { return "<p>\(words("page.welcome.group.folder"))</p>" }
        let password: HTML =
            keys.config.key(.group, entered: keys.keys) == nil
            ? "<p>\(words("page.welcome.group.password")) <a href=\"/keys\">\(words("page.keys.link"))</a></p>" : ""
        return "\(password)<p><a href=\"/group\">\(words("page.welcome.group.link"))</a></p>"
    }

    /// Saves a step's settings (only its own: `SettingsChange.part`) and goes on to the next step; a wrong
    /// field shows the step again as it was sent. The AI step keeps the key entered and tries the service
    /// at once, and stays to show its answer.
    func save(_ step: WelcomeStep, _ visitor: Visitor) throws -> PageStep {
        let form = visitor.form
        var reading = FormReading()
        let chosen = reading.read(RuntimeSettings()) { () throws(FormProblem) in
            try settingsForm(FormEcho(prefix: "")).read(form, only: step.keys)
        }
        let key = (form["ai_key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        reading.read(()) { () throws(FormProblem) in
            guard step == .ai, !key.isEmpty, !EnteredKeys.isValid(key) else { return }
            throw FormProblem(words("page.keys.invalid"), field: "ai_key")
        }
        do throws(FormProblem) {
            try reading.check()
        } catch {
            return .reply(stepPage(step, visitor, echo: FormEcho(form, error, prefix: ""), status: 400))
        }
        return changing(.part(chosen, keys: Set(step.keys))) { status in
            self.logger.info("owner's page: the walk-through's \(step.rawValue) step: \(status.owner.summary)")
            guard step == .ai else { return .reply(.redirect("/welcome/\(step.next?.rawValue ?? "group")")) }
            return try self.keepKey(key, visitor)
        }
    }

    /// The AI step's end: the key entered kept (never shown again), then the service in force tried, and
    /// the step shown again with its answer and the way on.
    private func keepKey(_ key: String, _ visitor: Visitor) throws -> PageStep {
        if !key.isEmpty {
            do throws(FileError) {
                // The key goes with the address saved with it, and nowhere else.
                try keys.keys.keep(key, for: .ai, to: KeyDestination(inForce.aiService.baseURL))
            } catch {
                logger.error("owner's page: the AI key was not changed: \(error)")
                let problem = FormProblem(words("page.keys.failed", ["error": "\(error)"]), field: "ai_key")
                return .reply(stepPage(.ai, visitor, echo: FormEcho(visitor.form, problem, prefix: ""), status: 500))
            }
            keyEntered.withLock { $0 = true }
            logger.notice("owner's page: ai: a key entered in the walk-through for \(inForce.aiService.baseURL)")
        }
        let service = inForce.aiService
        guard let trier = keys.trier else { return .reply(triedPage(visitor, .failed(.notConfigured))) }
        return .after {
            let trial = await trier.tryService(service)
            return { .reply(self.triedPage(visitor, trial)) }
        }
    }

    private func triedPage(_ visitor: Visitor, _ trial: AIServiceTrial) -> WebReply {
        let next = "<p><a href=\"/welcome/group\">\(words("page.welcome.go_on"))</a></p>" as HTML
        return stepPage(.ai, visitor, said: "\(notice(words("page.welcome.saved")))\(trialNotice(trial))\(next)")
    }

    /// Ends the walk-through, finished or skipped: a phone paired later goes to Today. Where the time zone,
    /// the AI service or the AI key changed, the station restarts to use them, and the page says so and
    /// opens Today once it is back.
    func finish(_ visitor: Visitor) throws -> PageStep {
        let time = now()
        try store.writingAndWaiting { store throws(StoreError) in try store.setMark(.welcomed, at: time) }
        let status = link.status()
        let changed = status.inForce.startsDifferently(from: status.started).map(\.rawValue)
        let key = keyEntered.withLock { entered in
            defer { entered = false }
            return entered
        }
        logger.notice("owner's page: the walk-through ended")
        guard !changed.isEmpty || key else { return .reply(.redirect("/")) }
        logger.notice(
            "owner's page: the walk-through changed \((changed + (key ? ["the AI key"] : [])).joined(separator: ", "))")
        link.send(.startChanged)
        return .reply(
            page(
                words("page.welcome.done"), refresh: 10, refreshTo: "/",
                "\(notice(words("page.welcome.restarting")))<p><a href=\"/\">\(words("page.nav.today"))</a></p>"))
    }
}
