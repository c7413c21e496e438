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
        /// Settings changes sent into the bus, and made by the loop: the bus keeps their order, so the
        /// n-th sent is made when `made` reaches n.
        var sent = 0
        var made = 0
        var waiting: [(change: Int, resume: CheckedContinuation<Bool, Never>)] = []
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
        self.state = Lock(State(mode: inForce.mode, owner: owner, inForce: inForce))
    }

    public func send(_ event: Event) {
        state.withLock { state in
            // Under the lock: the count and the bus agree on the order of the changes.
            if case .settingsChanged = event { state.sent += 1 }
            bus.send(event)
        }
    }

    public func change(_ change: SettingsChange) async -> StationStatus? {
        let made = await withCheckedContinuation { (resume: CheckedContinuation<Bool, Never>) in
            state.withLock { state in
                guard !state.stopped else { return resume.resume(returning: false) }
                state.sent += 1
                bus.send(.settingsChanged(change))
                state.waiting.append((state.sent, resume))
            }
        }
        return made ? status() : nil
    }

    public func status() -> StationStatus {
        state.withLock { state in
            StationStatus(
                screen: state.screen, mode: state.mode, group: state.group,
                devices: DeviceKind.allCases.map {
                    StationStatus.Device(kind: $0, backend: backends[$0] ?? "-", problem: state.problems[$0])
                }, startedAt: startedAt, owner: state.owner, inForce: state.inForce)
        }
    }

    public func lastCapture() -> PixelImage? { state.withLock { $0.lastCapture } }

    func showing(_ screen: Screen) { state.withLock { $0.screen = screen } }

    /// What the machine holds after it handled `event` (nil: at start); a settings change handled lets
    /// the page that sent it go on.
    func note(_ machine: StationMachine, handled event: Event? = nil) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.mode = machine.mode
            state.group = machine.activeGroup
            state.problems = machine.missingDevices
            state.owner = machine.owner
            state.inForce = machine.inForce
            guard case .settingsChanged? = event else { return [] }
            state.made += 1
            let made = state.made
            defer { state.waiting.removeAll { $0.change <= made } }
            return state.waiting.filter { $0.change <= made }.map(\.resume)
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
