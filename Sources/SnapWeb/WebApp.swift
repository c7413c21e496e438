import Foundation
import Logging
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import SnapText
import Synchronization

/// The owner's page: every route, the pairing gate in front of them, and the checks on every form.
///
/// Every page is made on the page's own thread (`pageThread`), so a page of 500 meals never holds a
/// thread the station's loop needs; its long work runs in `PageJobs`, inside the station's services. It
/// reads the store directly, writes through the store's thread, and tells the station of a change by an
/// event, like any other port.
public final class WebApp: Sendable {
    public static let sessionCookie = "snapstation_session"
    /// A paired browser stays paired this long without a visit; and never longer than `web.session_days`
    /// from its pairing (`sessionLifetime`).
    public static let sessionIdle: TimeInterval = 30 * 86_400

    let config: StationConfig
    let store: StationStore
    let link: any StationLink
    let desk: PairingDesk
    let logger: Logger
    let now: @Sendable () -> Date
    /// Served over TLS: the cookie is `Secure`.
    let secure: Bool
    let timeZone: TimeZone
    /// The owner's settings' rule with the config's side (`StationConfig.settingsRule`).
    let rule: SettingsRule
    /// Where the Group section makes, joins and leaves groups (the Supabase backend); nil where the
    /// config's names are the groups (the folder backend).
    let directory: (any GroupDirectory)?
    /// The names and addresses a request's Host may be.
    let names: StationNames
    /// Where a meal's correction goes (the station's analyser); nil without an AI service.
    let corrector: (any MealCorrector)?
    /// The corrections asked and not yet shown on their meal's page.
    let corrections = Lock<[PhotoID: Correction]>([:])
    /// Where the shopping list's planned meals are asked about (the station's analyser); nil without an AI
    /// service.
    let planner: (any MealPlanner)?
    /// The planned meal being asked about, or how the last one ended until the page showed it.
    let planning = Lock<Planning?>(nil)
    /// The station's two system slots (RAUC); nil where the page offers no updates (tests).
    let updater: (any StationUpdater)?
    /// The update being installed from the page, or how the last one ended.
    let installation = Lock<Installation?>(nil)
    /// The page's long work: corrections, planned meals, installs and the group's calls. A service of the
    /// station's `ServiceGroup` (`Station.run`), so SIGTERM cancels what it runs.
    let jobs: PageJobs
    /// The page's own thread: every page is made there, so a page of 500 meals never holds a thread of the
    /// pool the station's loop needs (`SerialThread`).
    let pageThread = SerialThread(name: "web")
    /// The words of the request being answered, read from the owner's settings once as it comes in; a
    /// reply made off the page's thread (a request too large to read, a correction's answer) speaks the
    /// last request's.
    private let spoken = Lock(Words())

    public init(
        config: StationConfig, store: StationStore, link: any StationLink, desk: PairingDesk, logger: Logger,
        secure: Bool = false, directory: (any GroupDirectory)? = nil, names: StationNames? = nil,
        corrector: (any MealCorrector)? = nil, planner: (any MealPlanner)? = nil,
        updater: (any StationUpdater)? = nil, jobs: PageJobs, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.jobs = jobs
        self.updater = updater
        self.corrector = corrector
        self.planner = planner
        self.config = config
        self.names = names ?? StationNames(config: config)
        self.directory = directory
        self.store = store
        self.link = link
        self.desk = desk
        self.logger = logger
        self.secure = secure
        self.now = now
        self.timeZone = config.resolvedTimeZone
        self.rule = config.settingsRule
    }

    /// The page's words, in the station's language as the owner's settings held it when the request came
    /// in: one read of the settings a request, however many texts its page writes.
    var words: Words { spoken.withLock { $0 } }

    /// The owner's settings in force, as the state machine (their only writer) holds them now.
    var inForce: SettingsInForce { link.status().inForce }

    /// The browser this request came from, once its session is known.
    struct Visitor: Sendable {
        var session: WebSession
        /// The form a POST carried, read and checked against the session's CSRF token (a GET's query
        /// otherwise), its problems said in the page's language.
        var form: Form
    }

    /// The answer to `request`. Every page is made on the page's own thread (`pageThread`), never on the
    /// pool's; a route that needs the group's server first (`PageStep.after`) has that call made in the
    /// page's jobs (`PageJobs`), awaited by the request's task, and its page made on the page's thread again.
    public func respond(_ request: WebRequest) async -> WebReply {
        var (step, words) = await onPageThread(request, words: nil) { try self.route(request) }
        while case .after(let work) = step {
            let next = await work()
            (step, words) = await onPageThread(request, words: words) { try next() }
        }
        guard case .reply(var reply) = step else { return .text("", status: 500) }
        if request.method == .head { reply.body = [] }
        reply.headers += Self.securityHeaders
        // Over https the browser keeps to https for this name for 180 days. Turning TLS off later leaves
        // such a browser unable to open http at that name until then (the README says so).
        if secure { reply.headers.append(("Strict-Transport-Security", "max-age=15552000")) }
        return reply
    }

    /// Runs one step of a request on the page's thread, a failure made into its problem page, and says
    /// which words it spoke. The first step (`words` nil) reads the station's language from the owner's
    /// settings; the steps after it speak the first one's, whatever another request spoke in between.
    private func onPageThread(
        _ request: WebRequest, words: Words?, _ body: @escaping @Sendable () throws -> PageStep
    ) async -> (PageStep, Words) {
        let answered = try? await pageThread.run { [self] () -> (PageStep, Words) in
            let said = words ?? Words(inForce.language)
            spoken.withLock { $0 = said }
            return (catching(request, body), said)
        }
        // The page's thread stops only with the page.
        let said = words ?? self.words
        return answered ?? (.reply(.text(said("page.problem.stopping"), status: 503)), said)
    }

    /// `body`'s step, or the problem page for what it threw.
    private func catching(_ request: WebRequest, _ body: () throws -> PageStep) -> PageStep {
        do {
            return try body()
        } catch let problem as WebProblem {
            return .reply(problemPage(problem, request: request))
        } catch let error as StoreError {
            logger.error("owner's page: \(error)")
            let words = self.words
            return .reply(
                problemPage(
                    WebProblem(
                        500, words("page.problem.store.title"),
                        words("page.problem.store.message", ["error": "\(error)"])),
                    request: request))
        } catch {
            logger.error("owner's page: \(error)")
            let words = self.words
            return .reply(
                problemPage(WebProblem(500, words("page.problem.failed.title"), "\(error)"), request: request))
        }
    }

    /// Sent with every answer: no framing, no foreign scripts or styles, no sniffing, no referrer.
    static let securityHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        ),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        // "same-origin", not "no-referrer": with no referrer, browsers send `Origin: null` on the page's own forms.
        ("Referrer-Policy", "same-origin"),
    ]

    func dispatch(_ request: WebRequest, _ parts: [String], _ visitor: Visitor, _ words: Words) throws
        -> PageStep
    {
        let post = request.method == .post
        switch (post, parts.count, parts.first) {
        case (false, 0, _): return .reply(try dayPage(try today(), visitor))
        case (false, 2, "day"):
            guard let day = LocalDay(parts[1]) else {
                throw WebProblem.notFound(words("page.problem.not_a_day", ["day": parts[1]]), words)
            }
            return .reply(try dayPage(day, visitor))
        case (false, 1, "history"): return .reply(try historyPage(visitor))
        case (false, 2, "export"): return .reply(try export(parts[1], visitor))
        case (false, 2, "meal"): return .reply(try mealPage(photoID(parts[1]), visitor, message: nil))
        case (true, 2, "meal"): return .reply(try editMeal(photoID(parts[1]), visitor))
        case (false, 3, "meal") where parts[2] == "delete": return .reply(try deletePage(photoID(parts[1]), visitor))
        case (true, 3, "meal") where parts[2] == "delete": return .reply(try deleteMeal(photoID(parts[1]), visitor))
        case (true, 3, "meal") where parts[2] == "again": return .reply(try eatAgain(photoID(parts[1]), visitor))
        case (true, 3, "meal") where parts[2] == "correct": return .reply(try correctMeal(photoID(parts[1]), visitor))
        case (false, 1, "review"): return .reply(try reviewPage(visitor))
        case (true, 1, "review"): return .reply(try submitReview(visitor))
        case (true, 2, "review") where parts[1] == "correct": return .reply(try correctShown(visitor))
        case (false, 1, "shopping"): return .reply(try shoppingPage(visitor, message: nil))
        case (true, 1, "shopping"): return .reply(try saveShopping(visitor))
        case (true, 2, "shopping") where parts[1] == "add": return .reply(try addToShopping(visitor))
        case (true, 2, "shopping") where parts[1] == "clear": return .reply(try clearShopping(visitor))
        case (false, 1, "shopping.txt"): return .reply(try shoppingText())
        case (true, 2, "shopping") where parts[1] == "plan": return .reply(try askForPlan(visitor))
        case (false, 2, "shopping") where parts[1] == "plan": return .reply(try planningPage(visitor))
        case (false, 2, "plan"): return .reply(try planPage(parts[1], visitor))
        case (true, 3, "plan") where parts[2] == "confirm": return .reply(try confirmPlan(parts[1], visitor))
        case (true, 3, "plan") where parts[2] == "discard": return .reply(try discardPlan(parts[1], visitor))
        case (false, 3, "plan") where parts[2] == "delete": return .reply(try deletePlanPage(parts[1], visitor))
        case (true, 3, "plan") where parts[2] == "delete": return .reply(try deletePlan(parts[1], visitor))
        case (false, 1, "settings"): return .reply(try settingsPage(visitor, message: nil))
        case (true, 1, "settings"): return try saveSettings(visitor)
        case (false, 2, "settings") where parts[1] == "preview.jpg": return .reply(try settingsPreview(visitor))
        case (false, 1, "group"): return try groupPage(visitor)
        case (true, 2, "group") where parts[1] == "create": return try createGroup(visitor)
        case (true, 2, "group") where parts[1] == "join": return try joinGroup(visitor)
        case (true, 2, "group") where parts[1] == "invite": return try inviteToGroup(visitor)
        case (false, 2, "group") where parts[1] == "leave": return .reply(try leavePage(visitor))
        case (true, 2, "group") where parts[1] == "leave": return try leaveGroup(visitor)
        case (false, 1, "status"): return .reply(try statusPage(visitor))
        case (false, 1, "update"): return .reply(try updatePage(visitor))
        case (true, 2, "update") where parts[1] == "install": return .reply(try installBundle(visitor))
        case (false, 2, "update") where parts[1] == "downgrade": return .reply(try downgradePage(visitor))
        case (true, 2, "update") where parts[1] == "downgrade":
            return .reply(try installBundle(visitor, allowDowngrade: true))
        case (true, 2, "status") where parts[1] == "forget": return .reply(try forgetBrowser(visitor))
        case (true, 2, "status") where parts[1] == "analyse": return .reply(try analyseAgain(visitor))
        case (true, 1, "signout"): return .reply(try signOut(visitor))
        case (false, 2, "photo"): return .reply(try photoFile(parts[1], visitor))
        case (false, 2, "received"): return .reply(try receivedFile(parts[1], visitor))
        default: throw WebProblem.notFound(words("page.problem.no_page", ["path": request.path]), words)
        }
    }

    /// The station's day (`StationDay`): the wall clock's, never before a day the store already used, so
    /// the page counts a correction on the day the station is looking at, whatever the clock says.
    func today() throws(StoreError) -> LocalDay {
        try store.stationDay(in: timeZone).today(at: now())
    }

    /// The AI's answers `day` allows and has used (`ai.daily_limit`), as the station counts them.
    func budget(on day: LocalDay) throws(StoreError) -> DailyBudget {
        DailyBudget(limit: config.ai.dailyLimit, used: try store.aiUses(on: day))
    }
}
