import Foundation
import SnapConfig
import SnapCore
import SnapImaging
import SnapServices
import SnapWeb
import Synchronization

/// The settings the shell's services read while the station runs: the config's, with the owner's over
/// them (the state machine keeps its own copy of the ones it uses).
public final class LiveSettings: Sendable {
    private let owner: Mutex<RuntimeSettings>
    private let basePipeline: PhotoPipeline
    private let baseFilter: PhotoFilter
    private let baseIntensity: Double
    private let baseDietary: [DietaryPreference]

    public init(config: StationConfig, pipeline: PhotoPipeline, owner: RuntimeSettings = RuntimeSettings()) {
        self.owner = Mutex(owner)
        self.basePipeline = pipeline
        self.baseFilter = config.processing.filter
        self.baseIntensity = config.processing.intensity
        self.baseDietary = config.ai.dietary
    }

    public func update(_ settings: RuntimeSettings) { owner.withLock { $0 = settings } }

    /// The photo pipeline with the owner's filter and intensity.
    public var pipeline: PhotoPipeline {
        let settings = owner.withLock { $0 }
        var pipeline = basePipeline
        pipeline.intensity = settings.intensity ?? baseIntensity
        pipeline.filter = pipeline.intensity > 0 ? (settings.filter ?? baseFilter) : nil
        return pipeline
    }

    public var dietary: [DietaryPreference] {
        owner.withLock { $0.dietaryPreferences.map { $0.sorted { $0.rawValue < $1.rawValue } } } ?? baseDietary
    }
}

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
    private let state: Mutex<State>

    public init(bus: EventBus, config: StationConfig) {
        self.bus = bus
        self.backends = [
            .camera: config.camera.backend.rawValue, .buttons: config.gpio.backend.rawValue,
            .flash: config.gpio.backend == .gpiod && config.gpio.ledLine == nil
                ? "not wired" : config.gpio.backend.rawValue,
            .display: config.display.backend.rawValue,
        ]
        self.state = Mutex(State(mode: config.station.defaultMode))
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
