/// The jar's sticker whose details show on the ready screen, and since when (uptime).
public struct JarFocus: Sendable, Hashable {
    public var sticker: Int
    public var since: Duration
}

extension StationMachine {
    /// How long a sticker's details stay up without a press.
    public static let jarDetailTime = Duration.seconds(15)

    /// Whether the ready screen shows the jar: meal mode, with the jar on.
    var showsJar: Bool { mode == .meal && settings.jarDays > 0 }

    /// The first day whose meals are in the jar, or today when the jar is off.
    func jarFirstDay(_ now: Instant) -> LocalDay {
        today(now).adding(days: -(max(1, settings.jarDays) - 1))
    }

    /// The days of meals the machine keeps: the jar's, and at least the week its screen shows.
    func keptFirstDay(_ now: Instant) -> LocalDay {
        min(jarFirstDay(now), today(now).adding(days: -(Self.weekDays - 1)))
    }

    /// The days the week's screen shows, today last.
    public static let weekDays = 7

    /// The jar's stickers, oldest first.
    func jarContents(now: Instant) -> JarContents? {
        guard showsJar else { return nil }
        let first = jarFirstDay(now)
        let stickers = meals.filter { $0.day >= first }.map { meal in
            var sticker = JarSticker(meal)
            if household.isShared { sticker.person = household.person(meal.person) }
            return sticker
        }
        let highlighted = jarFocus.flatMap { $0.sticker < stickers.count ? $0.sticker : nil }
        return JarContents(stickers: stickers, highlighted: highlighted, days: settings.jarDays)
    }

    /// The mode button on the jar: the next sticker's details; after the last one, the next mode.
    /// A press while details show: the next sticker; after the last one, the details close.
    /// Returns nil when the jar has nothing to say about the gesture.
    mutating func jarGesture(_ gesture: ButtonGesture, now: Instant) -> [Action]? {
        guard case .ready = phase, let jar = jarContents(now: now), !jar.stickers.isEmpty else { return nil }
        switch (gesture, jarFocus?.sticker) {
        case (.mode, nil):
            return showDetail(0, now: now)
        case (.mode, let index?) where index + 1 < jar.stickers.count,
            (.press, let index?) where index + 1 < jar.stickers.count:
            return showDetail(index + 1, now: now)
        case (.mode, _?):
            phase = .ready()
            return toggleMode(now: now, throughMenu: true)
        case (.press, _?):
            return transition(to: .ready(), now: now)
        // A press with no details showing takes the photo; a hold is the shutter's.
        case (.press, nil), (.hold, _), (.pairHold, _):
            return nil
        }
    }

    private mutating func showDetail(_ index: Int, now: Instant) -> [Action] {
        transition(to: .ready(jar: JarFocus(sticker: index, since: now.uptime)), now: now)
    }

    /// The sticker whose details show, on the ready screen.
    var jarFocus: JarFocus? {
        if case .ready(let focus) = phase { focus } else { nil }
    }

    /// The ready screen's timer: the details close after `jarDetailTime`.
    var jarDetailDeadline: Duration? { jarFocus.map { $0.since + Self.jarDetailTime } }
}
