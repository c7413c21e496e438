/// The pull resistor on a button's GPIO line, as the config names it.
public enum LineBias: String, Sendable, Hashable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
    /// Whatever the board or a device-tree overlay set.
    case asIs = "as-is"
}
