import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapWeb
import Synchronization

/// What the owner's page sees of the running station: the loop keeps it current (the screen shown, the
/// mode, the devices), and the page's events go into the bus like any port's.
public final class StationBoard: StationLink {
    private struct State {
        var screen: Screen?
        var mode: StationMode
        var group: String?
        var problems: [DeviceKind: String] = [:]
        var lastCapture: PixelImage?
    }

    private let bus: EventBus
    private let backends: [DeviceKind: String]
    private let startedAt = Date()
    private let state: Lock<State>

    public init(bus: EventBus, config: StationConfig) {
        self.bus = bus
        self.backends = [
            .camera: config.camera.backend.rawValue, .buttons: config.gpio.backend.rawValue,
            .flash: config.gpio.backend == .gpiod && config.gpio.ledLine == nil
                ? "not wired" : config.gpio.backend.rawValue,
            .display: config.display.backend.rawValue,
        ]
        self.state = Lock(State(mode: config.station.defaultMode))
    }

    public func send(_ event: Event) { bus.send(event) }

    public func status() -> StationStatus {
        state.withLock { state in
            StationStatus(
                screen: state.screen, mode: state.mode, group: state.group,
                devices: DeviceKind.allCases.map {
                    StationStatus.Device(kind: $0, backend: backends[$0] ?? "-", problem: state.problems[$0])
                }, startedAt: startedAt)
        }
    }

    public func lastCapture() -> PixelImage? { state.withLock { $0.lastCapture } }

    func showing(_ screen: Screen) { state.withLock { $0.screen = screen } }

    func note(mode: StationMode, group: String?, problems: [DeviceKind: String]) {
        state.withLock { state in
            state.mode = mode
            state.group = group
            state.problems = problems
        }
    }

    /// Keeps a small copy of a capture, upright and before its filter, for the settings page's preview.
    func keep(capture: PixelImage) { state.withLock { $0.lastCapture = capture } }
}
