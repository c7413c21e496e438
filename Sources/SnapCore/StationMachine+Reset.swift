extension StationMachine {
    /// How long the station's question waits for the long hold before it keeps everything.
    public static let resetSeconds = 30

    /// The owner's page asked to erase the station: from a calm screen the station asks on its own screen,
    /// where only the long hold (5 s) erases it. Over a photo on its way, a menu or the pairing screen it
    /// does not ask, and the page says the station is busy (it reads the screen the station shows).
    mutating func resetAsked(now: Instant) -> [Action] {
        guard phase.isCalm else {
            return [.log(.notice, "factory reset asked on the owner's page while the station was busy: not asked")]
        }
        return transition(
            to: .confirmReset(secondsLeft: Self.resetSeconds), now: now,
            also: [.log(.notice, "factory reset asked on the owner's page: waiting for the long hold at the station")])
    }

    /// The buttons on the reset's screens; nil on every other screen. Only the long hold erases (the hold
    /// it makes on its way does nothing); a press or the mode button keeps everything. While the station
    /// erases, nothing a button does changes it.
    mutating func resetGesture(_ gesture: ButtonGesture, now: Instant) -> [Action]? {
        if case .erasing = phase { return [] }
        guard case .confirmReset = phase else { return nil }
        switch gesture {
        case .pairHold:
            return transition(
                to: .erasing, now: now,
                also: [.factoryReset(groups: inForce.groups), .log(.notice, "factory reset confirmed at the station")])
        case .hold:
            return []
        case .press, .mode:
            return enterResting(now: now, also: [.log(.notice, "factory reset not confirmed at the station: kept")])
        }
    }

    /// A second of the question went by; at the end, nobody confirmed it and everything is kept.
    mutating func resetTick(now: Instant) -> [Action] {
        guard case .confirmReset(let left) = phase else { return [] }
        guard left > 1 else {
            return enterResting(now: now, also: [.log(.notice, "factory reset not confirmed in time: kept")])
        }
        return transition(to: .confirmReset(secondsLeft: left - 1), now: now)
    }
}
