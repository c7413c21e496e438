/// Turns the raw edges of one button into presses and holds.
///
/// A hold fires as soon as the button has been down for `longPress`, while it is still held, so the
/// person sees the effect without letting go; the release after a hold is then swallowed. Edges closer
/// than `debounce` to the last accepted edge are contact bounce and are dropped (drivers with kernel
/// debounce pass zero).
public struct PressRecognizer: Sendable {
    public var longPress: Duration
    public var debounce: Duration
    private var downSince: Duration?
    private var holdFired = false
    private var lastEdge: Duration?

    public init(longPress: Duration, debounce: Duration) {
        self.longPress = longPress
        self.debounce = debounce
    }

    /// When `poll(at:)` should next be called to fire a hold, if the button is down.
    public var holdDeadline: Duration? {
        guard let downSince, !holdFired else { return nil }
        return downSince + longPress
    }

    /// Feeds one edge (`down` true when pressed) at `time`; returns the gesture it completes.
    public mutating func edge(down: Bool, at time: Duration) -> ButtonGesture? {
        if let lastEdge, time - lastEdge < debounce { return nil }
        lastEdge = time
        if down {
            guard downSince == nil else { return nil }
            downSince = time
            holdFired = false
            return nil
        }
        guard let since = downSince else { return nil }
        downSince = nil
        if holdFired { return nil }
        return time - since >= longPress ? .hold : .press
    }

    /// Fires the hold once the button has been down long enough.
    public mutating func poll(at time: Duration) -> ButtonGesture? {
        guard let deadline = holdDeadline, time >= deadline else { return nil }
        holdFired = true
        return .hold
    }
}
