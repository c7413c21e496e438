import Foundation
import SnapCore
import SnapImaging

/// What the owner's page needs of the running station, and nothing more: it sends events like any
/// other port (the state machine decides), and reads a snapshot of what the station shows. The page
/// reads and writes the store itself, except the owner's settings: the state machine is their only
/// writer, and the page reads them in the snapshot.
public protocol StationLink: Sendable {
    /// Hands an event to the station's loop (the edit of a meal, a pairing).
    func send(_ event: Event)
    /// Hands an event to the station's loop and waits until the loop handled it (what the machine asked
    /// of the store is then queued on the store's thread): a settings change made, a review decided. The
    /// status after it; nil when the station stopped before it did.
    func deliver(_ event: Event) async -> StationStatus?
    /// What the station shows and knows now.
    func status() -> StationStatus
    /// The last photo taken, upright and small and before its filter: the settings page's preview.
    func lastCapture() -> PixelImage?
}

extension StationLink {
    /// Hands a change of the owner's settings to the state machine (their only writer) and waits until it
    /// made it: the status then has the settings in force.
    public func change(_ change: SettingsChange) async -> StationStatus? { await deliver(.settingsChanged(change)) }
}

/// A snapshot of the running station for the page.
public struct StationStatus: Sendable {
    /// One device as the station sees it.
    public struct Device: Sendable, Hashable {
        public var kind: DeviceKind
        public var backend: String
        /// Nil while it works; why not, when it does not.
        public var problem: String?

        public init(kind: DeviceKind, backend: String, problem: String?) {
            self.kind = kind
            self.backend = backend
            self.problem = problem
        }
    }

    /// The screen on the display now (nil before the first).
    public var screen: Screen?
    public var mode: StationMode
    /// In group mode, the group the next photo goes to.
    public var group: String?
    public var devices: [Device]
    public var startedAt: Date
    /// The owner's settings over the config's, as the state machine holds (and stored) them.
    public var owner: RuntimeSettings
    /// The settings in force (`SettingsRule.inForce(owner)`).
    public var inForce: SettingsInForce
    /// The settings in force as the station started (`StationMachine.started`): a time zone or AI service
    /// other than these waits for a restart.
    public var started: SettingsInForce

    public init(
        screen: Screen?, mode: StationMode, group: String?, devices: [Device], startedAt: Date,
        owner: RuntimeSettings, inForce: SettingsInForce, started: SettingsInForce? = nil
    ) {
        self.owner = owner
        self.inForce = inForce
        self.started = started ?? inForce
        self.screen = screen
        self.mode = mode
        self.group = group
        self.devices = devices
        self.startedAt = startedAt
    }
}
