import Foundation
import Logging
import ServiceLifecycle
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore
import SnapText

/// The station in the home's hub: its entities by Home Assistant's MQTT discovery (`HomeDiscovery`) and
/// their states, over the one connection to the broker (`MQTTLink`), from `[mqtt]`.
///
/// The loop tells it each event it handled (`note`); it then reads what the entities show (the day's
/// totals from the store, the goals in force, the AI's analyses left, the group's photos of the last 48 h,
/// the problems, the update waiting) and publishes what changed, within a moment of a meal being saved.
/// It also reads them every 30 s, for what changes without an event (the day, a photo expiring, the disk
/// filling). A person's entities appear with them (the household's while one person uses the station); a
/// config the station no longer makes is removed at the broker as Home Assistant documents (an empty
/// retained payload), also one left from before a restart.
public final class HomeService: Service, Sendable {
    private let link: MQTTLink
    private let discovery: HomeDiscovery
    private let store: StationStore
    private let live: LiveSettings
    private let bus: EventBus
    private let timeZone: TimeZone
    private let dailyLimit: Int?
    private let displaySide: Int
    private let storage: (full: UInt64, low: UInt64)
    private let logger: Logger
    /// The 30 s republishing pass, the day the figures are for, and the link's backoff are on this clock.
    private let clock: any ShellClock
    private let pokes: AsyncStream<Void>
    private let poke: AsyncStream<Void>.Continuation
    private let state = Lock(Seen())

    /// What the loop and the broker told, and what went out.
    private struct Seen {
        var devices: [DeviceKind: String] = [:]
        var update: UpdateNote?
        var ready = false
        var ai: AIFailure?
        var group: UploadFailure?
        var countdownButton = false
        /// The payloads sent, by topic: only a change goes out.
        var sent: [String: [UInt8]] = [:]
        /// Configs the broker holds for this station that it no longer makes.
        var stale: Set<String> = []
        /// The last shared photo fitted to the display, made once for each photo.
        var photo: (id: PhotoID, jpeg: [UInt8]?)?
    }

    /// `dailyLimit`: `ai.daily_limit`, nil without an AI service. `storage`: the free bytes under which
    /// the disk is full (captures refused) and nearly full.
    public init(
        settings: MQTTLink.Settings, discovery: HomeDiscovery, store: StationStore, live: LiveSettings, bus: EventBus,
        timeZone: TimeZone, dailyLimit: Int?, displaySide: Int, storage: (full: UInt64, low: UInt64),
        countdownButton: Bool, logger: Logger, clock: any ShellClock
    ) {
        var settings = settings
        settings.will = (discovery.availability, "offline")
        settings.subscriptions =
            [discovery.birthTopic, discovery.ownConfigs] + (countdownButton ? [discovery.pressTopic] : [])
        (pokes, poke) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.discovery = discovery
        self.store = store
        self.live = live
        self.bus = bus
        self.timeZone = timeZone
        self.dailyLimit = dailyLimit
        self.displaySide = displaySide
        self.storage = storage
        self.logger = logger
        self.clock = clock
        state.withLock { $0.countdownButton = countdownButton }
        let heard = Heard()
        self.link = MQTTLink(settings, clock: clock, logger: logger) { topic, payload, retained in
            heard.service?.heard(topic, payload, retained: retained)
        }
        heard.service = self
    }

    /// Where the link's messages go: the service, once made.
    private final class Heard: @unchecked Sendable {
        weak var service: HomeService?
    }

    /// How the connection to the broker stands, for the owner's page.
    public var status: BrokerStatus { Self.status(of: link.state, version: link.version) }

    /// A link's state in the page's terms.
    static func status(of state: MQTTLink.State, version: MQTTSettings.Version) -> BrokerStatus {
        switch state {
        case .connecting, .stopped: .connecting
        case .connected: .connected
        case .refused(.credentials): .refusedCredentials
        case .refused(.version): .refused("MQTT \(version.rawValue)")
        case .refused(.other(_, let words)): .refused(words)
        case .unreachable(let why): .unreachable(why)
        }
    }

    /// The loop handled `event` (nil: the machine started): the problems it tells are noted, and the
    /// states read again.
    func note(_ event: Event?, machine: StationMachine) {
        state.withLock { seen in
            seen.devices = machine.missingDevices
            seen.update = machine.update
            if case .ready = machine.phase { seen.ready = true } else { seen.ready = false }
            switch event {
            case .analysisFailed(_, let failure)? where Notice.tells(failure): seen.ai = failure
            case .analysed?: seen.ai = nil
            case .uploadFailed(_, let failure)?: seen.group = failure
            case .uploaded?: seen.group = nil
            default: break
            }
        }
        // After the writes the event asked for (the store's one queue keeps their order): a meal saved is
        // read back with its numbers.
        store.enqueue({ [poke] _ in poke.yield() }, failed: { _ in })
    }

    public func run() async throws {
        link.start()
        defer { link.stop() }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        self.poke.yield()
                        try? await self.clock.sleep(for: .seconds(30))
                    }
                }
                group.addTask {
                    for await _ in self.pokes { self.publish() }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// A message on a subscribed topic, on the link's thread. A press the broker kept (retained: sent once
    /// with the retain flag, and given again at every reconnect) is no press: only one sent now starts the
    /// countdown.
    private func heard(_ topic: String, _ payload: [UInt8], retained: Bool) {
        if topic == discovery.pressTopic {
            guard !retained else {
                logger.notice("home: a retained message on the countdown button's topic ignored")
                return
            }
            let ready = state.withLock { $0.ready && $0.countdownButton }
            guard String(decoding: payload, as: UTF8.self) == HomeDiscovery.press else { return }
            if ready {
                logger.notice("home: the countdown started from the home's hub")
                bus.send(.button(.press))
            } else {
                logger.info("home: the countdown button was pressed while the station is busy; nothing done")
            }
        } else if topic == discovery.birthTopic {
            // Home Assistant started again: everything goes out anew.
            guard String(decoding: payload, as: UTF8.self) == "online" else { return }
            state.withLock { $0.sent = [:] }
            poke.yield()
        } else if !payload.isEmpty {
            // One of the station's configs as the broker holds it: removed below unless still made.
            state.withLock { _ = $0.stale.insert(topic) }
            poke.yield()
        }
    }

    /// Reads what the entities show and publishes what changed.
    private func publish() {
        guard let snapshot = snapshot() else { return }
        let words = Words(live.language)
        let configs = discovery.configs(snapshot, words: words)
        var messages = configs.merging(discovery.states(snapshot, words: words)) { first, _ in first }
        messages[discovery.availability] = Array("online".utf8)
        let news = state.withLock { seen -> [(String, [UInt8])] in
            for topic in seen.stale where configs[topic] == nil { messages[topic] = [] }
            seen.stale = []
            let news = messages.filter { seen.sent[$0.key] != $0.value }
            for (topic, payload) in news { seen.sent[topic] = payload }
            return news.sorted { $0.key < $1.key }
        }
        // Configs first, so that a state finds its entity.
        for (topic, payload) in news where topic.hasSuffix("/config") { link.publish(topic, payload) }
        for (topic, payload) in news where !topic.hasSuffix("/config") { link.publish(topic, payload) }
    }

    private func snapshot() -> HomeDiscovery.Snapshot? {
        let seen = state.withLock { $0 }
        let words = Words(live.language)
        do {
            let now = clock.wall
            let today = try store.stationDay(in: timeZone).today(at: now)
            let meals = try store.mealSummaries(on: today)
            let totals = meals.reduce(Macros.zero) { $0 + $1.totals }
            let received = try store.receivedPhotos(now: now)
            var problems: [String: String] = [:]
            for (kind, problem) in seen.devices { problems[kind.rawValue] = "\(words.device(kind)): \(problem)" }
            if let ai = seen.ai { problems["ai"] = words.aiFailure(ai) }
            if let group = seen.group { problems["group"] = words("home.problem.group", ["reason": "\(group)"]) }
            if let free = try? FreeSpace.available(at: store.directory) {
                if free < storage.full {
                    problems["storage"] = words("notice.storage.message")
                } else if free < storage.low {
                    problems["storage"] = words("notice.storage_low.message")
                }
            }
            let waiting: String? =
                switch seen.update {
                case .restarting(let version)?: version
                default: nil
                }
            // One person: the household's entities, as before there were people. Several: each person's own
            // (their meals, their goals; the owner's are the station's), the household's then removed.
            let household = try store.household()
            let people: [HomeDiscovery.Snapshot.Person] =
                household.isShared
                ? household.people.map { person in
                    .init(
                        id: "person\(person.id.rawValue)", name: words.person(person),
                        today: meals.filter { $0.person == person.id }.reduce(Macros.zero) { $0 + $1.totals },
                        goals: household.goals(of: person.id, station: live.goals))
                }
                : [.init(id: "household", name: words("home.household"), today: totals, goals: live.goals)]
            return HomeDiscovery.Snapshot(
                people: people,
                dayStarted: Calendar.gregorian(in: timeZone).date(
                    from: DateComponents(year: today.year, month: today.month, day: today.day)) ?? now,
                aiLeft: try dailyLimit.map { max(0, $0 - (try store.aiUses(on: today))) },
                lastMeal: meals.last?.title, groupPhotos: received.count, lastShared: received.last?.member,
                problems: problems, waitingVersion: waiting, photo: received.last.flatMap { displaySized($0, seen) },
                countdownButton: seen.countdownButton)
        } catch {
            logger.warning("home: the station's state could not be read: \(error)")
            return nil
        }
    }

    /// The shared photo fitted to the display, as JPEG; nil when it cannot be read.
    private func displaySized(_ photo: SharedPhoto, _ seen: Seen) -> [UInt8]? {
        if let made = seen.photo, made.id == photo.id { return made.jpeg }
        let jpeg = FileManager.default.contents(atPath: store.inboxPath(for: photo.id, group: photo.group)).flatMap {
            data -> [UInt8]? in
            guard let image = try? JPEG.decode(Array(data), minimumLongestSide: displaySide) else { return nil }
            return try? JPEG.encode(image.downscaled(toFit: displaySide), quality: 80)
        }
        state.withLock { $0.photo = (photo.id, jpeg) }
        return jpeg
    }
}
