import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapWeb
import Synchronization

/// What the owner's page sees of the running station: the loop keeps it current (the screen shown, the
/// mode, the devices, the owner's settings), and the page's events go into the bus like any port's.
public final class StationBoard: StationLink {
    private struct State {
        var screen: Screen?
        var mode: StationMode
        var group: String?
        var problems: [DeviceKind: String] = [:]
        var lastCapture: PixelImage?
        var owner = RuntimeSettings()
        var inForce: SettingsInForce
        /// The settings in force as the station started (`StationMachine.started`).
        let started: SettingsInForce
        /// The page's events sent into the bus, numbered: the bus keeps their order, so the loop has
        /// handled the n-th once it handled a number n or above.
        var sent = 0
        var waiting: [(ticket: Int, resume: CheckedContinuation<Bool, Never>)] = []
        var stopped = false
    }

    private let bus: EventBus
    private let backends: [DeviceKind: String]
    private let startedAt = Date()
    private let state: Lock<State>

    /// `owner`: the owner's settings as stored, until the loop says what the machine holds.
    public init(bus: EventBus, config: StationConfig, owner: RuntimeSettings = RuntimeSettings()) {
        self.bus = bus
        self.backends = [
            .camera: config.camera.backend.rawValue, .buttons: config.gpio.backend.rawValue,
            .flash: config.gpio.backend == .gpiod && config.gpio.ledLine == nil
                ? "not wired" : config.gpio.backend.rawValue,
            .display: config.display.backend.rawValue,
        ]
        let inForce = config.settingsRule.inForce(owner)
        self.state = Lock(State(mode: inForce.mode, owner: owner, inForce: inForce, started: inForce))
    }

    public func send(_ event: Event) { _ = post(event) }

    public func deliver(_ event: Event) async -> StationStatus? {
        let handled = await withCheckedContinuation { (resume: CheckedContinuation<Bool, Never>) in
            state.withLock { state in
                guard !state.stopped else { return resume.resume(returning: false) }
                state.waiting.append((post(event, &state), resume))
            }
        }
        return handled ? status() : nil
    }

    /// Sends `event` with the page's next number, under the lock: the numbers and the bus agree on the order.
    private func post(_ event: Event) -> Int { state.withLock { post(event, &$0) } }

    private func post(_ event: Event, _ state: inout State) -> Int {
        state.sent += 1
        bus.send(event, ticket: state.sent)
        return state.sent
    }

    public func status() -> StationStatus {
        state.withLock { state in
            StationStatus(
                screen: state.screen, mode: state.mode, group: state.group,
                devices: DeviceKind.allCases.map {
                    StationStatus.Device(kind: $0, backend: backends[$0] ?? "-", problem: state.problems[$0])
                }, startedAt: startedAt, owner: state.owner, inForce: state.inForce, started: state.started)
        }
    }

    public func lastCapture() -> PixelImage? { state.withLock { $0.lastCapture } }

    func showing(_ screen: Screen) { state.withLock { $0.screen = screen } }

    /// What the machine holds after it handled the page's event numbered `ticket` (nil: at start, or an
    /// event of another port's); the page waiting for it goes on.
    func note(_ machine: StationMachine, ticket: Int? = nil) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.mode = machine.mode
            state.group = machine.activeGroup
            state.problems = machine.missingDevices
            state.owner = machine.owner
            state.inForce = machine.inForce
            guard let ticket else { return [] }
            defer { state.waiting.removeAll { $0.ticket <= ticket } }
            return state.waiting.filter { $0.ticket <= ticket }.map(\.resume)
        }
        for page in ready { page.resume(returning: true) }
    }

    /// The changes pages wait for.
    var pendingChanges: Int { state.withLock { $0.waiting.count } }

    /// The loop ended: a change still waiting will not be made.
    func stopped() {
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiting = [] }
            return state.waiting.map(\.resume)
        }
        for page in waiting { page.resume(returning: false) }
    }

    /// Keeps a small copy of a capture, upright and before its filter, for the settings page's preview.
    func keep(capture: PixelImage) { state.withLock { $0.lastCapture = capture } }
}
