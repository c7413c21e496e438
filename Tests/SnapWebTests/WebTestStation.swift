import Foundation
import Logging
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapTestSupport
import Synchronization

@testable import SnapWeb

/// The station as the page sees it, for tests: what it was sent, and a screen and capture to show. The
/// owner's settings go through a real `StationMachine`, which stores them as the station's loop does
/// (`.storeSettings`): the page's settings are what the machine made of its changes.
final class RecordingLink: StationLink {
    private let state = Lock<(events: [Event], screen: Screen?, capture: PixelImage?)>(([], nil, nil))
    private let machine: Lock<StationMachine>
    private let store: StationStore
    /// What the machine asked of the station, in order.
    let handled = Lock<[Action]>([])
    /// Called with each event, as the station's loop would handle it.
    let onEvent: Lock<(@Sendable (Event) -> Void)?> = Lock(nil)

    init(settings: StationSettings, store: StationStore) throws {
        self.store = store
        var machine = StationMachine(settings: settings, owner: try store.runtimeSettings())
        _ = machine.start(now: Instant(uptime: .zero, wall: Date()))
        self.machine = Lock(machine)
    }

    func send(_ event: Event) {
        state.withLock { $0.events.append(event) }
        onEvent.withLock { $0 }?(event)
    }

    func deliver(_ event: Event) async -> StationStatus? {
        send(event)
        station(event)
        return status()
    }

    /// Hands `event` to the station's machine, as its loop does, and stores the owner's settings it asks to.
    @discardableResult
    func station(_ event: Event) -> [Action] {
        let actions = machine.withLock { $0.handle(event, now: Instant(uptime: .zero, wall: Date())) }
        handled.withLock { $0 += actions }
        for case .storeSettings(let owner) in actions {
            try? store.writingAndWaiting { store throws(StoreError) in try store.saveRuntimeSettings(owner) }
        }
        return actions
    }

    /// The screen the station's machine shows now.
    var stationScreen: Screen { machine.withLock { $0.screen(now: Instant(uptime: .zero, wall: Date())) } }

    func status() -> StationStatus {
        let (owner, inForce, started) = machine.withLock { ($0.owner, $0.inForce, $0.started) }
        return StationStatus(
            screen: state.withLock { $0.screen }, mode: .meal, group: nil,
            devices: [
                .init(kind: .camera, backend: "simulated", problem: nil),
                .init(kind: .display, backend: "drm", problem: "no display is connected to card1"),
            ], startedAt: Date(timeIntervalSinceNow: -3_725), owner: owner, inForce: inForce, started: started)
    }

    func lastCapture() -> PixelImage? { state.withLock { $0.capture } }

    var events: [Event] { state.withLock { $0.events } }
    func show(_ screen: Screen?) { state.withLock { $0.screen = screen } }
    func keep(_ capture: PixelImage) { state.withLock { $0.capture = capture } }
}

/// A page over a real SQLite store in a temporary folder, with a clock the test moves.
final class WebTestStation: Sendable {
    let folder = TemporaryDirectory("web")
    let store: StationStore
    let link: RecordingLink
    let desk = PairingDesk()
    let clock = TestClock()
    let app: WebApp
    let config: StationConfig
    /// The page's jobs, running as the station's service group runs them, until the test ends (unless the
    /// test runs them itself: `runsJobs`).
    let jobs = PageJobs(logger: Logger(label: "web-test"), clock: SystemClock())
    private let running: Task<Void, any Error>?

    init(
        locked: [String] = [], secure: Bool = false, groups: [String] = ["Friends"],
        otherCameras: [StationConfig.Camera.Other] = [], ledWired: Bool = true,
        directory: (any GroupDirectory)? = nil, name: String = "SnapStation", corrector: (any MealCorrector)? = nil,
        planner: (any MealPlanner)? = nil, updater: (any StationUpdater)? = nil,
        trier: (any AIServiceTrier)? = nil, accounts: (any GroupAccounts)? = nil,
        noticeTrier: (any NoticeTrier)? = nil, brokerTrier: (any BrokerTrier)? = nil,
        broker: BrokerStatus? = nil, kitchen: TestKitchen? = nil, runsJobs: Bool = true,
        configure: (inout StationConfig) -> Void = { _ in }
    ) throws {
        var config = StationConfig()
        if !ledWired { config.gpio.ledLine = nil }
        config.camera.others = otherCameras
        config.station.timeZone = "UTC"
        config.storage.dir = folder.path
        config.web.locked = locked
        config.group.names = groups
        config.station.name = name
        configure(&config)
        self.config = config
        store = try StationStore(directory: folder.path)
        kitchen?.attach(store)
        link = try RecordingLink(settings: config.stationSettings(aiConfigured: false), store: store)
        let clock = clock
        var brokerStatus: (@Sendable () -> BrokerStatus)?
        if let broker { brokerStatus = { broker } }
        app = WebApp(
            config: config, store: store, link: link, desk: desk, logger: Logger(label: "web-test"), secure: secure,
            directory: directory, corrector: corrector, planner: planner, updater: updater, trier: trier,
            accounts: accounts, noticeTrier: noticeTrier, broker: brokerStatus,
            brokerTrier: brokerTrier, jobs: jobs, kitchen: kitchen,
            now: { clock.now })
        running = runsJobs ? Task { [jobs] in try await jobs.run() } : nil
    }

    deinit { running?.cancel() }

    var now: Date { clock.now }
    var today: LocalDay { LocalDay(containing: now, in: TimeZone(identifier: "UTC")!) }
    func advance(_ seconds: TimeInterval) { clock.advance(seconds) }

    func get(_ target: String, cookie: String? = nil, headers: [String: String] = [:]) async -> WebReply {
        var headers = Self.withHost(headers)
        if let cookie { headers["Cookie"] = cookie }
        return await app.respond(WebRequest(method: .get, target: target, headers: headers))
    }

    /// The headers with the Host a browser at the station's address sends, unless they name one.
    static func withHost(_ headers: [String: String]) -> [String: String] {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "host" }) { headers["Host"] = "127.0.0.1:8080" }
        return headers
    }

    func post(
        _ target: String, _ fields: [(String, String)], cookie: String? = nil, headers: [String: String] = [:],
        client: String = "192.168.1.50"
    ) async -> WebReply {
        var headers = Self.withHost(headers)
        headers["Content-Type"] = headers["Content-Type"] ?? "application/x-www-form-urlencoded"
        if let cookie { headers["Cookie"] = cookie }
        return await app.respond(
            WebRequest(method: .post, target: target, body: Self.encode(fields), headers: headers, client: client))
    }

    static func encode(_ fields: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Array(
            fields.map {
                "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
            }.joined(separator: "&").utf8)
    }

    /// A paired browser: its cookie header and its CSRF token.
    struct Browser {
        var cookie: String
        var csrf: String
        var token: String
    }

    /// Pairs a browser at the station (the hold's code): the first is the owner's, the next a member's.
    func pair(name: String = "Test phone") async throws -> Browser {
        let pairing = desk.open(now: now)
        return try browser(from: await post("/pair", [("code", pairing.code), ("name", name)]))
    }

    /// The browser a pairing's answer paired.
    func browser(from reply: WebReply) throws -> Browser {
        guard reply.status == 303, let setCookie = reply.header("Set-Cookie"),
            let token = setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
        else { throw TestFailure("pairing failed: \(reply.status) \(reply.text)") }
        guard let session = try store.session(hash: Secrets.sha256(String(token))) else {
            throw TestFailure("no session was stored")
        }
        return Browser(cookie: "\(WebApp.sessionCookie)=\(token)", csrf: session.csrf, token: String(token))
    }

    /// Stores a photo with a real JPEG and its meal for today (or `day`), as the station would.
    @discardableResult
    func meal(
        _ id: String, title: String = "Spaghetti", items: [MealItem]? = nil, day: LocalDay? = nil,
        person: PersonID = .first
    ) throws -> Meal {
        let day = day ?? today
        let paths = store.paths(for: PhotoID(id), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID(id), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: now,
            stickerPath: paths.sticker)
        let jpeg = try JPEG.encode(TestImages.marked(width: 320, height: 240), quality: 85)
        try store.storePhoto(photo, jpeg: jpeg, thumbnail: jpeg, sticker: PNG.encode(withAlpha: TestImages.marked()))
        let items =
            items ?? [
                MealItem(
                    name: "Spaghetti", grams: 200, macros: Macros(calories: 320, protein: 11, carbs: 64, fats: 2),
                    contains: [.gluten]),
                MealItem(
                    name: "Tomato sauce", grams: 150, macros: Macros(calories: 210, protein: 3, carbs: 15, fats: 11),
                    ingredients: [
                        Ingredient(name: "Tomatoes", amount: 300, unit: "g"),
                        Ingredient(name: "Olive oil", amount: 15, unit: "ml"),
                    ]),
            ]
        let meal = Meal(
            photo: photo, day: day,
            analysis: MealAnalysis(
                title: title, totals: items.reduce(Macros.zero) { $0 + $1.macros }, items: items, funFact: "A fact."),
            person: person)
        try store.saveMeal(meal)
        return meal
    }
}

/// The page's wall clock, moved by the test.
final class TestClock: Sendable {
    private let value = Lock(Date(timeIntervalSince1970: 1_795_435_200))  // 2026-11-23 12:00 UTC
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
