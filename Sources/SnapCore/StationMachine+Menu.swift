/// The settings menu at the end of the mode button's round: what the owner can change at the station
/// without the page. A change takes effect at once and is stored like the page's.
extension StationMachine {
    enum MenuEntry: Sendable, Hashable {
        case camera, flash
    }

    /// How long the menu stays without a touch.
    static let menuTimeout = Duration.seconds(20)

    /// The camera and the flash where the rule offers them, as the page does (a choice of cameras, an
    /// LED wired, not locked by `web.locked`). With nothing to offer there is no menu.
    var menuEntries: [MenuEntry] {
        (settings.owner.offers(.camera) ? [.camera] : []) + (settings.owner.offers(.flash) ? [.flash] : [])
    }

    func menuEntry(_ entry: MenuEntry) -> MenuScreen.Entry {
        switch entry {
        case .camera:
            .camera(settings.owner.cameras[inForce.camera])
        case .flash:
            .flash(on: inForce.flash)
        }
    }

    /// The week's screen: the mode button goes on to the menu (or, with none, to the first mode); a press
    /// or a hold goes back to rest.
    mutating func weekGesture(_ gesture: ButtonGesture, now: Instant) -> [Action] {
        switch gesture {
        case .mode where !menuEntries.isEmpty:
            return openMenu(now: now)
        case .mode:
            let was = mode
            mode = .meal
            groupIndex = 0
            return enterResting(now: now, also: was == .meal ? [] : [.log(.info, "mode switched to meal")])
        case .press, .hold, .pairHold:
            return enterResting(now: now)
        }
    }

    mutating func openMenu(now: Instant) -> [Action] {
        transition(to: .menu(entry: 0), now: now, also: [.log(.info, "settings menu opened")])
    }

    /// A press changes the chosen entry; the mode button chooses the next one, and after the last goes on
    /// to the first mode (meal), as the round goes on; a hold closes the menu.
    mutating func menuGesture(_ gesture: ButtonGesture, entry: Int, now: Instant) -> [Action] {
        let entries = menuEntries
        switch gesture {
        case .press where entry < entries.count:
            let change: SettingsChange
            var actions: [Action] = []
            switch entries[entry] {
            case .camera:
                let next = (inForce.camera + 1) % settings.owner.cameras.count
                change = .camera(next)
                actions = [.useCamera(next), .log(.info, "camera: \(settings.owner.cameras[next])")]
            case .flash:
                change = .flash(!inForce.flash)
                actions = [.log(.info, "flash turned \(inForce.flash ? "off" : "on") at the station")]
            }
            return transition(to: .menu(entry: entry), now: now, also: [keep(change)] + actions)
        case .mode where entry + 1 < entries.count:
            return transition(to: .menu(entry: entry + 1), now: now)
        case .mode:
            mode = .meal
            groupIndex = 0
            return enterResting(now: now, also: [.log(.info, "mode switched to meal")])
        case .hold, .pairHold:
            return enterResting(now: now, also: [.log(.info, "settings menu closed")])
        case .press:
            return []
        }
    }
}
