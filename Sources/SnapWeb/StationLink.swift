import Foundation
import SnapCore
import SnapImaging

/// What the owner's page needs of the running station, and nothing more: it sends events like any
/// other port (the state machine decides), and reads a snapshot of what the station shows. The page
/// reads and writes the store itself.
public protocol StationLink: Sendable {
    /// Hands an event to the station's loop (the edit of a meal, new settings, a pairing).
    func send(_ event: Event)
    /// What the station shows and knows now.
    func status() -> StationStatus
    /// The last photo taken, upright and small and before its filter: the settings page's preview.
    func lastCapture() -> PixelImage?
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

    public init(screen: Screen?, mode: StationMode, group: String?, devices: [Device], startedAt: Date) {
        self.screen = screen
        self.mode = mode
        self.group = group
        self.devices = devices
        self.startedAt = startedAt
    }
}
