import Foundation
import Logging
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import SnapText
import Synchronization

/// The owner's page: the rooms (`PageRoom`: pairing, meals, history, corrections, review, plans and the
/// shopping list, settings, the group, status, the update, backups, keys, the reset, the first visit's
/// walk-through), each with its own routes and what it uses,
/// behind one gate (`PageGate`: host, origin, session, the form's token).
///
/// Every page is made on the page's own thread (`pageThread`), so a page of 500 meals never holds a
/// thread the station's loop needs; its long work runs in `PageJobs`, inside the station's services. The
/// rooms read the store directly, write through the store's thread, and tell the station of a change by
/// an event, like any other port.
public final class WebApp: Sendable {
    public static let sessionCookie = "snapstation_session"
    /// A paired browser stays paired this long without a visit; and never longer than `web.session_days`
    /// from its pairing (`PageGate.sessionLifetime`).
    public static let sessionIdle: TimeInterval = 30 * 86_400

    let config: StationConfig
    let logger: Logger
    /// Served over TLS: browsers are told to keep to https.
    let secure: Bool
    /// What every page is written with: its words, its layout, the clock.
    let frame: PageFrame
    let gate: PageGate
    let router: PageRouter
    /// The update's room: the server streams a bundle's upload to it.
    let update: UpdateRoom
    /// The backups' room: the server streams a backup to restore to it.
    let backup: BackupRoom
    /// The room that logs a meal without the camera: the server streams a phone's photo to it.
    let log: LogRoom
    /// The page's own thread: every page is made there, so a page of 500 meals never holds a thread of the
    /// pool the station's loop needs (`SerialThread`).
    let pageThread = SerialThread(name: "web")

    public init(
        config: StationConfig, store: StationStore, link: any StationLink, desk: PairingDesk, logger: Logger,
        secure: Bool = false, directory: (any GroupDirectory)? = nil, names: StationNames? = nil,
        corrector: (any MealCorrector)? = nil, planner: (any MealPlanner)? = nil,
        updater: (any StationUpdater)? = nil, trier: (any AIServiceTrier)? = nil,
        accounts: (any GroupAccounts)? = nil, noticeTrier: (any NoticeTrier)? = nil,
        broker: (@Sendable () -> BrokerStatus)? = nil, brokerTrier: (any BrokerTrier)? = nil, jobs: PageJobs,
        kitchen: (any PageMeals)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.config = config
        self.logger = logger
        self.secure = secure
        var frame = PageFrame(
            stationName: config.station.name, link: link, logger: logger, now: now,
            timeZone: config.resolvedTimeZone)
        frame.stateFolder = store.directory
        self.frame = frame
        let rule = config.settingsRule
        let days = PageDays(store: store, timeZone: frame.timeZone, dailyLimit: config.ai.dailyLimit, now: now)
        let sessionLifetime = TimeInterval(config.web.sessionDays) * 86_400
        let pairing = PairingRoom(
            frame: frame, store: store, desk: desk, link: link, secure: secure, sessionLifetime: sessionLifetime)
        let retention = config.storage.retentionHours
        let corrections = CorrectionsRoom(
            frame: frame, store: store, days: days, corrector: corrector, jobs: jobs, retentionHours: retention)
        let meals = MealsRoom(
            frame: frame, store: store, days: days, rule: rule, corrections: corrections, retentionHours: retention)
        update = UpdateRoom(
            frame: frame, updater: updater, jobs: jobs, bundleFolder: config.storage.dir + "/updates/bundles",
            usbFolder: config.update.usbFolder, maxBundleMB: config.update.maxBundleMB)
        backup = BackupRoom(frame: frame, store: store)
        log = LogRoom(
            frame: frame, store: store, days: days, meals: meals, kitchen: kitchen, jobs: jobs,
            incoming: config.storage.dir + "/incoming")
        let keys = KeysRoom(
            frame: frame, config: config, keys: config.enteredKeys, trier: trier, accounts: accounts, broker: broker)
        let rooms: [any PageRoom] = [
            pairing, meals, HistoryRoom(frame: frame, store: store, days: days), corrections,
            ReviewRoom(frame: frame, store: store, days: days, meals: meals),
            PlansRoom(frame: frame, store: store, days: days, planner: planner, jobs: jobs),
            SettingsRoom(
                frame: frame, store: store, rule: rule, cameraID: config.camera.id, filter: config.processing.filter,
                noticeTrier: noticeTrier, brokerTrier: brokerTrier),
            GroupRoom(
                frame: frame, store: store, days: days, rule: rule, retentionHours: retention, directory: directory,
                jobs: jobs),
            StatusRoom(frame: frame, store: store, days: days, updater: updater, storageDir: config.storage.dir),
            update, backup, log, keys, ResetRoom(frame: frame), PeopleRoom(frame: frame, store: store),
            WelcomeRoom(frame: frame, store: store, rule: rule, cameraID: config.camera.id, keys: keys),
        ]
        var router = PageRouter()
        for room in rooms {
            if room.isOwners { router.owners { room.addRoutes(to: &$0) } } else { room.addRoutes(to: &router) }
        }
        self.router = router
        gate = PageGate(
            names: names ?? StationNames(config: config), store: store, frame: frame,
            sessionLifetime: sessionLifetime, unpaired: { pairing.pairPage(message: $0, status: $1) })
    }

    /// The page's words, in the station's language as the owner's settings held it when the request came
    /// in: one read of the settings a request, however many texts its page writes.
    var words: Words { frame.words }

    /// The answer to `request`. Every page is made on the page's own thread (`pageThread`), never on the
    /// pool's; a route that needs the group's server first (`PageStep.after`) has that call made in the
    /// page's jobs (`PageJobs`), awaited by the request's task, and its page made on the page's thread again.
    public func respond(_ request: WebRequest) async -> WebReply {
        var (step, words) = await onPageThread(request, words: nil) { try self.gate.pass(request, to: self.router) }
        while case .after(let work) = step {
            let next = await work()
            (step, words) = await onPageThread(request, words: words) { try next() }
        }
        guard case .reply(var reply) = step else { return .text("", status: 500) }
        if request.method == .head {
            reply.body = []
            reply.stream = nil
        }
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
            let said = words ?? Words(frame.link.status().inForce.language)
            frame.spoken.withLock { $0 = said }
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

    func problemPage(_ problem: WebProblem, request: WebRequest) -> WebReply {
        let words = self.words
        // Only a live session sees the station's navigation and what its screen shows.
        let paired = ((try? gate.liveSession(of: request)) ?? nil) != nil
        return frame.page(
            problem.title, paired: paired, status: problem.status,
            """
            <p class="problem" role="alert">\(frame.withoutPaths(problem.message))</p>
            <p><a href="\(paired ? "/" : "/pair")">\(words("page.problem.back"))</a></p>
            """)
    }
}
