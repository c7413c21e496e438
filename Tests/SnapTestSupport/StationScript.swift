import Foundation
import SnapCore

/// Drives a `StationMachine` the way the shell does, so tests read like scripts: press, wait, look.
///
/// It keeps the pending timers the machine asked for and fires them in deadline order as the clock
/// advances, and remembers every action and the last screen shown.
public struct StationScript: Sendable {
    public var machine: StationMachine
    public var clock: ManualClock
    public private(set) var actions: [Action] = []
    public private(set) var timers: [TimerID: Duration] = [:]
    public private(set) var flashOn = false
    /// What the machine last asked of the camera.
    public private(set) var cameraOn = false

    public init(settings: StationSettings, snapshot: StationSnapshot = StationSnapshot(), startingAt local: String) {
        machine = StationMachine(settings: settings, snapshot: snapshot)
        clock = ManualClock(local: local, in: settings.timeZone)
        apply(machine.start(now: clock.now))
    }

    /// The last screen the machine showed.
    public var screen: Screen? {
        actions.reversed().lazy.compactMap { action -> Screen? in
            if case .show(let screen) = action { return screen }
            return nil
        }.first
    }

    /// Sends one event now; returns the actions it produced.
    @discardableResult
    public mutating func send(_ event: Event) -> [Action] {
        let produced = machine.handle(event, now: clock.now)
        apply(produced)
        return produced
    }

    @discardableResult
    public mutating func press(_ gesture: ButtonGesture = .press) -> [Action] {
        send(.button(gesture))
    }

    /// Advances the clock, firing due timers at their deadlines; returns everything they produced.
    @discardableResult
    public mutating func advance(seconds: Double) -> [Action] {
        let end = clock.now.uptime + .milliseconds(Int64(seconds * 1000))
        var produced: [Action] = []
        while let (id, deadline) = timers.min(by: { $0.value < $1.value }), deadline <= end {
            clock.advance(by: deadline - clock.now.uptime)
            timers[id] = nil
            let result = machine.handle(.timerFired(id), now: clock.now)
            apply(result)
            produced += result
        }
        clock.advance(by: end - clock.now.uptime)
        return produced
    }

    public mutating func setWall(local: String) {
        clock.setWall(local: local, in: machine.settings.timeZone)
    }

    private mutating func apply(_ produced: [Action]) {
        actions += produced
        for action in produced {
            switch action {
            case .startTimer(let id, let deadline): timers[id] = deadline
            case .cancelTimer(let id): timers[id] = nil
            case .setFlash(let on): flashOn = on
            case .setCamera(let on): cameraOn = on
            default: break
            }
        }
    }
}
