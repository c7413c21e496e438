/// A question the owner's page asks that only someone at the station answers, with the long hold (5 s):
/// the factory reset, and a restore (which replaces everything the station holds). A press, the mode button
/// or nobody for `questionSeconds` keeps everything.
public enum StationQuestion: Sendable, Hashable {
    case reset
    /// Replace everything with the backup made by SnapStation `version` on `created` (its header's).
    case restore(version: String, created: LocalDay?)
}

extension StationMachine {
    /// How long the station's question waits for the long hold before it keeps everything.
    public static let questionSeconds = 30

    /// The owner's page asked `question`: from a calm screen the station asks on its own screen, where only
    /// the long hold answers yes. Over a photo on its way, a menu or the pairing screen it does not ask, and
    /// the page says the station is busy (it reads the screen the station shows).
    mutating func asked(_ question: StationQuestion, now: Instant) -> [Action] {
        let what = question.logged
        guard phase.isCalm else {
            return [.log(.notice, "\(what) asked on the owner's page while the station was busy: not asked")]
        }
        return transition(
            to: .asking(question, secondsLeft: Self.questionSeconds), now: now,
            also: [.log(.notice, "\(what) asked on the owner's page: waiting for the long hold at the station")])
    }

    /// The buttons on the question's screens; nil on every other screen. Only the long hold answers (the
    /// hold it makes on its way does nothing); a press or the mode button keeps everything. Once answered,
    /// nothing a button does changes it.
    mutating func questionGesture(_ gesture: ButtonGesture, now: Instant) -> [Action]? {
        if case .answered = phase { return [] }
        guard case .asking(let question, _) = phase else { return nil }
        switch gesture {
        case .pairHold:
            let action: Action =
                switch question {
                case .reset: .factoryReset(groups: inForce.groups)
                case .restore(let version, _): .restore(version: version)
                }
            return transition(
                to: .answered(question), now: now,
                also: [action, .log(.notice, "\(question.logged) confirmed at the station")])
        case .hold:
            return []
        case .press, .mode:
            return enterResting(
                now: now, also: [.log(.notice, "\(question.logged) not confirmed at the station: kept")])
        }
    }

    /// A second of the question went by; at the end, nobody confirmed it and everything is kept.
    mutating func questionTick(now: Instant) -> [Action] {
        guard case .asking(let question, let left) = phase else { return [] }
        guard left > 1 else {
            return enterResting(now: now, also: [.log(.notice, "\(question.logged) not confirmed in time: kept")])
        }
        return transition(to: .asking(question, secondsLeft: left - 1), now: now)
    }

    /// The confirmed restore could not be prepared: the station goes on with what it has.
    mutating func restoreNotConfirmed(now: Instant) -> [Action] {
        guard case .answered(.restore) = phase else { return [] }
        return enterResting(
            now: now, also: [.log(.notice, "the restore was not prepared: the station keeps what it has")])
    }
}

extension StationQuestion {
    /// What the log calls it.
    var logged: String {
        switch self {
        case .reset: "factory reset"
        case .restore(let version, _): "restore of the backup made by \(version)"
        }
    }
}
