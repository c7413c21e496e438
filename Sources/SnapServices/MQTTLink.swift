internal import CMosquitto
import Foundation
import Logging
import SnapCore
import SnapFiles

/// The station's one connection to the home's MQTT broker, over libmosquitto, owned by one thread of its
/// own as every C resource of the station is: the client is made, connected, read, written and freed
/// there, in an event loop of its own (poll on the broker's socket and an eventfd that wakes it;
/// mosquitto.h's "external event loop" calls `mosquitto_loop_read`, `_write` and `_misc`).
///
/// What the station publishes is a table of the latest message per topic, retained at the broker: a
/// new state replaces the one before whether or not it went out, and every connection publishes the
/// whole table again. So nothing grows while the broker is away: a minute or a week without it costs
/// one table (the entities' configs and states, a few kB, and the last group photo). The will (the
/// availability topic's "offline") tells the broker's subscribers when the station is gone without a
/// word; a stop says "offline" itself. Messages go out at QoS 0: the table is sent again after any loss.
///
/// A connection that fails or ends is tried again after 1, 2, 4 … 60 s. What happened last is `state`,
/// for the page and the log (a refused password is said once, not at each try).
public final class MQTTLink: Sendable {
    public enum State: Sendable, Hashable {
        case connecting
        case connected
        /// The broker answered and refused: the name or password, or another reason in its code.
        case refused(Refusal)
        /// The broker could not be reached, or the connection broke: in the system's words.
        case unreachable(String)
        case stopped
    }

    public enum Refusal: Sendable, Hashable {
        /// A wrong username or password, or a name the broker does not let in.
        case credentials
        /// The broker does not speak the protocol version asked.
        case version
        /// Another refusal: the CONNACK's code, and libmosquitto's words for it.
        case other(Int, String)
    }

    /// What the link needs to connect.
    public struct Settings: Sendable {
        public var broker: MQTTSettings.Broker
        public var username: String
        public var password: String?
        public var version: MQTTSettings.Version
        /// The certificate authorities to trust for `mqtts`: a PEM file; "" for the system's.
        public var caFile: String
        public var clientID: String
        /// The will: a retained message the broker publishes when the station is gone without a word.
        public var will: (topic: String, payload: String)?
        /// The topics the station listens to (the button's command, Home Assistant's birth message).
        public var subscriptions: [String]
        /// The keep-alive the broker holds the station to.
        public var keepAlive: Int32

        public init(
            broker: MQTTSettings.Broker, username: String = "", password: String? = nil,
            version: MQTTSettings.Version = .v5, caFile: String = "", clientID: String,
            will: (topic: String, payload: String)? = nil, subscriptions: [String] = [], keepAlive: Int32 = 30
        ) {
            self.broker = broker
            self.username = username
            self.password = password
            self.version = version
            self.caFile = caFile
            self.clientID = clientID
            self.will = will
            self.subscriptions = subscriptions
            self.keepAlive = keepAlive
        }
    }

    private struct Table {
        /// The latest payload of each topic, and whether it went out since it changed.
        var messages: [String: (payload: [UInt8], sent: Bool)] = [:]
        var state = State.connecting
        var stopping = false
    }

    private let settings: Settings
    private let logger: Logger
    private let received: @Sendable (String, [UInt8], Bool) -> Void
    private let changed: @Sendable (State) -> Void
    private let table = Lock(Table())
    private let wake: Int32
    private let clock: any ShellClock

    /// The waits between tries.
    static let backoff: [Duration] = [1, 2, 4, 8, 16, 32, 60].map { .seconds($0) }

    /// `received`: a message on one of the subscribed topics (its topic, payload, and whether the broker
    /// kept it from before: MQTT's retain flag, which a command must not be obeyed on), on the link's
    /// thread (hand it on, do not wait there). `changed`: the state, each time it changes. The waits
    /// between tries are counted on `clock`.
    public init(
        _ settings: Settings, clock: any ShellClock = SystemClock(), logger: Logger,
        received: @escaping @Sendable (String, [UInt8], Bool) -> Void = { _, _, _ in },
        changed: @escaping @Sendable (State) -> Void = { _ in }
    ) {
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.received = received
        self.changed = changed
        self.wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    deinit { close(wake) }

    public var state: State { table.withLock { $0.state } }

    /// The protocol version the link speaks.
    public var version: MQTTSettings.Version { settings.version }

    /// Starts the link's thread; it connects and keeps connecting until `stop`.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "mqtt"
        thread.start()
    }

    /// Keeps `payload` as `topic`'s latest (retained) message and sends it when connected. An empty
    /// payload removes the topic's retained message at the broker (and, for a discovery config, the
    /// entity in Home Assistant).
    public func publish(_ topic: String, _ payload: [UInt8]) {
        let changed = table.withLock { table -> Bool in
            if let old = table.messages[topic], old.payload == payload { return false }
            table.messages[topic] = (payload, false)
            return true
        }
        if changed { poke() }
    }

    public func publish(_ topic: String, _ text: String) { publish(topic, Array(text.utf8)) }

    /// Tells the link's thread to say "offline" on the will's topic, disconnect and end; `state` is
    /// `.stopped` once it has. Nothing waits for it: a process that exits first leaves the broker to
    /// publish the will, the same "offline".
    public func stop() {
        table.withLock { $0.stopping = true }
        poke()
    }

    /// Connects once with `settings` and says how it went: connected (then disconnects), refused or
    /// unreachable; unreachable after `timeout` of `clock` without an answer. The page's "Save and try".
    public static func trial(
        _ settings: Settings, timeout: Duration = .seconds(10), clock: any ShellClock, logger: Logger
    ) async -> State {
        var trying = settings
        trying.will = nil
        trying.subscriptions = []
        let once = Once()
        let link = MQTTLink(trying, clock: clock, logger: logger) { _, _, _ in
        } changed: { state in
            switch state {
            case .connected, .refused, .unreachable: once.resume(state)
            case .connecting, .stopped: break
            }
        }
        let answer = await withTimeout(timeout, on: clock) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<State, Never>) in
                    once.wait(continuation)
                    link.start()
                }
            } onCancel: {
                once.resume(.stopped)
            }
        }
        link.stop()
        return answer ?? .unreachable("no answer in \(timeout.components.seconds) s")
    }

    /// The trial's answer, given once: to the waiting task, or kept for it when it comes before the wait.
    private final class Once: Sendable {
        private let state = Lock<(waiting: CheckedContinuation<State, Never>?, answer: State?)>((nil, nil))
        func wait(_ continuation: CheckedContinuation<State, Never>) {
            let answer = state.withLock { state -> State? in
                if state.answer == nil { state.waiting = continuation }
                return state.answer
            }
            if let answer { continuation.resume(returning: answer) }
        }
        func resume(_ answer: State) {
            let waiting = state.withLock { state -> CheckedContinuation<State, Never>? in
                guard state.answer == nil else { return nil }
                state.answer = answer
                return state.waiting.take()
            }
            waiting?.resume(returning: answer)
        }
    }

    private func poke() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    private func set(_ state: State) {
        let old = table.withLock { table -> State in
            defer { table.state = state }
            return table.state
        }
        guard old != state else { return }
        switch state {
        case .connected: logger.notice("mqtt: connected to \(settings.broker.host):\(settings.broker.port)")
        case .refused(let why): logger.warning("mqtt: \(settings.broker.host) refused the station: \(why)")
        case .unreachable(let why): logger.warning("mqtt: \(settings.broker.host) not reached: \(why)")
        case .connecting, .stopped: break
        }
        changed(state)
    }

    // MARK: The link's thread

    /// The client's callbacks find the link through libmosquitto's user data.
    private final class Context {
        unowned let link: MQTTLink
        var answered: Int32?
        init(_ link: MQTTLink) { self.link = link }
    }

    private func run() {
        _ = Self.initialize
        let context = Context(self)
        let client = mosquitto_new(settings.clientID, true, Unmanaged.passUnretained(context).toOpaque())
        guard let client else {
            set(.unreachable("libmosquitto could not make a client"))
            return
        }
        defer {
            mosquitto_destroy(client)
            set(.stopped)
        }
        if let problem = configure(client) {
            set(.unreachable(problem))
            return
        }
        var waits = Self.backoff[...]
        var first = true
        while !stopping {
            context.answered = nil
            var rc =
                first
                ? mosquitto_connect_async(client, settings.broker.host, Int32(settings.broker.port), settings.keepAlive)
                : mosquitto_reconnect_async(client)
            first = false
            var wasConnected = false
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                (rc, wasConnected) = pump(client, context)
            }
            if stopping { break }
            // Said by the CONNACK, or in the system's words.
            if let code = context.answered, code != 0 {
                set(.refused(Self.refusal(code, version: settings.version)))
            } else {
                set(.unreachable(Self.words(rc)))
            }
            // A connection that was up starts the waits again.
            if wasConnected { waits = Self.backoff[...] }
            let wait = waits.count > 1 ? waits.removeFirst() : (waits.first ?? .seconds(60))
            logger.debug("mqtt: trying \(settings.broker.host) again in \(wait.components.seconds) s")
            sleep(wait)
        }
    }

    private var stopping: Bool { table.withLock { $0.stopping } }

    private static let initialize: Void = { _ = mosquitto_lib_init() }()

    private func configure(_ client: OpaquePointer) -> String? {
        _ = mosquitto_int_option(
            client, MOSQ_OPT_PROTOCOL_VERSION,
            settings.version == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311)
        if !settings.username.isEmpty {
            guard mosquitto_username_pw_set(client, settings.username, settings.password) == 0 else {
                return "the username is not one MQTT takes"
            }
        }
        if let will = settings.will {
            let bytes = Array(will.payload.utf8)
            _ = mosquitto_will_set(client, will.topic, Int32(bytes.count), bytes, 1, true)
        }
        if settings.broker.tls {
            // The broker's certificate is checked against the CAs and its name against the host.
            let rc =
                settings.caFile.isEmpty
                ? mosquitto_tls_set(client, nil, "/etc/ssl/certs", nil, nil, nil)
                : mosquitto_tls_set(client, settings.caFile, nil, nil, nil, nil)
            guard rc == 0 else { return "the CA file \(settings.caFile) cannot be read" }
            _ = mosquitto_tls_opts_set(client, 1, nil, nil)
        }
        mosquitto_connect_callback_set(client) { _, user, code in
            guard let user else { return }
            let context = Unmanaged<Context>.fromOpaque(user).takeUnretainedValue()
            context.answered = code
        }
        mosquitto_message_callback_set(client) { _, user, message in
            guard let user, let message else { return }
            let context = Unmanaged<Context>.fromOpaque(user).takeUnretainedValue()
            let topic = String(cString: message.pointee.topic)
            let payload = Array(
                UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen)))
            context.link.received(topic, payload, message.pointee.retain)
        }
        return nil
    }

    /// Runs one connection until it ends or the link stops: the broker's socket and the wake-up polled,
    /// the table's news sent once connected. libmosquitto's code for how it ended, and whether it was
    /// connected.
    private func pump(_ client: OpaquePointer, _ context: Context) -> (Int32, Bool) {
        var connected = false
        var lastMisc = ContinuousClock.now
        while true {
            if !connected, context.answered == 0 {
                connected = true
                set(.connected)
                // A new session: the subscriptions again, and the whole table.
                for topic in settings.subscriptions { _ = mosquitto_subscribe(client, nil, topic, 0) }
                table.withLock { table in
                    for topic in table.messages.keys { table.messages[topic]?.sent = false }
                }
            }
            if context.answered.map({ $0 != 0 }) == true { return (MOSQ_ERR_CONN_REFUSED.rawValue, false) }
            if stopping {
                if connected, let will = settings.will {
                    let bytes = Array(will.payload.utf8)
                    _ = mosquitto_publish(client, nil, will.topic, Int32(bytes.count), bytes, 0, true)
                    _ = mosquitto_loop_write(client, 1)
                }
                _ = mosquitto_disconnect(client)
                _ = mosquitto_loop_write(client, 1)
                return (MOSQ_ERR_SUCCESS.rawValue, connected)
            }
            if connected { send(client) }
            let socket = mosquitto_socket(client)
            guard socket >= 0 else { return (MOSQ_ERR_NO_CONN.rawValue, connected) }
            var fds = [
                pollfd(
                    fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(client) ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, 2, 1000)
            if fds[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
            var rc = MOSQ_ERR_SUCCESS.rawValue
            if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { rc = mosquitto_loop_read(client, 1) }
            if rc == MOSQ_ERR_SUCCESS.rawValue, fds[0].revents & Int16(POLLOUT) != 0 || mosquitto_want_write(client) {
                rc = mosquitto_loop_write(client, 1)
            }
            if rc == MOSQ_ERR_SUCCESS.rawValue, ContinuousClock.now - lastMisc >= .seconds(1) {
                lastMisc = ContinuousClock.now
                rc = mosquitto_loop_misc(client)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue { return (rc, connected) }
        }
    }

    /// Publishes what changed since it last went out.
    private func send(_ client: OpaquePointer) {
        let news = table.withLock { table -> [(String, [UInt8])] in
            var news: [(String, [UInt8])] = []
            for (topic, message) in table.messages where !message.sent {
                news.append((topic, message.payload))
                table.messages[topic]?.sent = true
            }
            // A removal, once it went out, is forgotten: the table holds what exists.
            table.messages = table.messages.filter { !$0.value.payload.isEmpty }
            return news
        }
        for (topic, payload) in news {
            _ = mosquitto_publish(client, nil, topic, Int32(payload.count), payload, 0, true)
        }
    }

    /// Waits `duration` of the link's clock, or until the link stops. The thread waits on its wake
    /// descriptor, which a task on the clock writes at the deadline (the clock's sleep is async, and a
    /// held one moves only when a test advances it); a publish or a stop writes it too. The task holds the
    /// link, so the descriptor outlives it.
    private func sleep(_ duration: Duration) {
        let deadline = clock.uptime + duration
        let timer = Task { [self] in
            guard (try? await clock.sleep(untilUptime: deadline)) != nil else { return }
            poke()
        }
        defer { timer.cancel() }
        while !stopping, clock.uptime < deadline {
            var fd = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, -1) > 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
        }
    }

    static func refusal(_ code: Int32, version: MQTTSettings.Version) -> Refusal {
        switch (version, code) {
        // MQTT 3.1.1, 3.2.2.3: 4 bad user name or password, 5 not authorized. MQTT 5, 3.2.2.2: 0x86, 0x87.
        case (.v311, 4), (.v311, 5), (.v5, 0x86), (.v5, 0x87): return .credentials
        case (.v311, 1), (.v5, 0x84): return .version
        default:
            let words =
                version == .v5
                ? String(cString: mosquitto_reason_string(code)) : String(cString: mosquitto_connack_string(code))
            return .other(Int(code), words)
        }
    }

    /// libmosquitto's code in words: the system's for a socket's error.
    static func words(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(code))
    }
}
