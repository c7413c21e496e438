/// Turns the raw edges of one button into presses and holds.
///
/// A hold fires as soon as the button has been down for `longPress`, while it is still held, so the
/// person sees the effect without letting go; the release after a hold is then swallowed. Kept down for
/// `pairHold` (5 s), the same press also makes a `.pairHold`: the gesture that shows the pairing screen
/// of the owner's page, which nobody makes by accident. Edges closer than `debounce` to the last
/// accepted edge are contact bounce and are dropped (drivers with kernel debounce pass zero).
public struct PressRecognizer: Sendable {
    public var longPress: Duration
    public var debounce: Duration
    public var pairHold: Duration
    private var downSince: Duration?
    private var holdFired = false
    private var pairFired = false
    private var lastEdge: Duration?

    public init(longPress: Duration, debounce: Duration, pairHold: Duration = .seconds(5)) {
        self.longPress = longPress
        self.debounce = debounce
        self.pairHold = pairHold
    }

    /// When `poll(at:)` should next be called to fire a hold, if the button is down.
    public var holdDeadline: Duration? {
        guard let downSince else { return nil }
        if !holdFired { return downSince + longPress }
        return pairFired ? nil : downSince + pairHold
    }

    /// Feeds one edge (`down` true when pressed) at `time`; returns the gesture it completes.
    public mutating func edge(down: Bool, at time: Duration) -> ButtonGesture? {
        if let lastEdge, time - lastEdge < debounce { return nil }
        lastEdge = time
        if down {
            guard downSince == nil else { return nil }
            downSince = time
            holdFired = false
            pairFired = false
            return nil
        }
        guard let since = downSince else { return nil }
        downSince = nil
        if holdFired { return nil }
        return time - since >= longPress ? .hold : .press
    }

    /// Fires the hold once the button has been down long enough, and the pairing hold after it.
    public mutating func poll(at time: Duration) -> ButtonGesture? {
        guard let deadline = holdDeadline, time >= deadline else { return nil }
        if !holdFired {
            holdFired = true
            return .hold
        }
        pairFired = true
        return .pairHold
    }
}
