import SnapText

/// The station's words shared by the display and the page, in the station's language (SnapText's
/// catalogs): macros, devices, dietary preferences and why an analysis failed.
extension Words {
    /// "HH:MM:SS", hours not wrapped at 24: the same in every language.
    public static func clock(_ duration: Duration) -> String {
        let total = max(0, Int(duration.components.seconds))
        return "\(two(total / 3600)):\(two(total / 60 % 60)):\(two(total % 60))"
    }

    /// "4:05": minutes and seconds, as the pairing code's time left reads.
    public static func clock(minutes: Int, seconds: Int) -> String { "\(minutes):\(two(seconds))" }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "Monday 3 March": a day as the page heads it and the station's questions name it.
    public func day(_ day: LocalDay) -> String {
        self.day(year: day.year, month: day.month, day: day.day, weekday: day.weekday)
    }

    /// "P 24 g · C 80 g · F 22 g", with the language's letters for protein, carbs and fats.
    public func macros(_ macros: Macros) -> String {
        self(
            "macros.line",
            ["protein": integer(macros.protein), "carbs": integer(macros.carbs), "fats": integer(macros.fats)])
    }

    /// A person's name as the station shows it: "Person 1" for one not named yet (the owner, at first).
    public func person(_ person: Person) -> String {
        person.name.isEmpty ? self("person.unnamed", ["number": integer(person.id.rawValue)]) : person.name
    }

    /// "650 kcal".
    public func kcal(_ calories: Int) -> String { self("unit.kcal", ["n": integer(calories)]) }

    /// "1070 / 2000 kcal" against a goal, "1070 kcal" without one (0).
    public func kcal(_ calories: Int, goal: Int) -> String {
        goal > 0 ? self("goal.kcal", ["done": integer(calories), "goal": integer(goal)]) : kcal(calories)
    }

    /// "P 54/120 g · C 115 g · F 37/60 g": each macro against its goal where it has one.
    public func macros(_ macros: Macros, goals: Macros) -> String {
        guard goals.protein > 0 || goals.carbs > 0 || goals.fats > 0 else { return self.macros(macros) }
        let parts: [(String, Int, Int)] = [
            ("macro.letter.protein", macros.protein, goals.protein), ("macro.letter.carbs", macros.carbs, goals.carbs),
            ("macro.letter.fats", macros.fats, goals.fats),
        ]
        return parts.map { key, done, goal in
            goal > 0
                ? self("macro.against", ["letter": self(key), "done": integer(done), "goal": integer(goal)])
                : self("macro.amount", ["letter": self(key), "n": integer(done)])
        }.joined(separator: " · ")
    }

    /// The goals set, for a summary: "2000 kcal · P 120 g"; the ones at 0 are left out.
    public func goals(_ goals: Macros) -> String {
        var parts = goals.calories > 0 ? [kcal(goals.calories)] : []
        for (key, goal) in [
            ("macro.letter.protein", goals.protein), ("macro.letter.carbs", goals.carbs),
            ("macro.letter.fats", goals.fats),
        ] where goal > 0 {
            parts.append(self("macro.amount", ["letter": self(key), "n": integer(goal)]))
        }
        return parts.joined(separator: " · ")
    }

    public func modeTitle(_ mode: StationMode, group: String?) -> String {
        switch mode {
        case .meal: self("mode.meal")
        case .group: self("mode.group", ["group": group ?? ""])
        }
    }

    /// A device as the person calls it.
    public func device(_ kind: DeviceKind) -> String {
        switch kind {
        case .camera: self("device.camera")
        case .buttons: self("device.buttons")
        case .flash: self("device.flash")
        case .display: self("device.display")
        }
    }

    /// A dietary preference as the person calls it ("gluten-free", "glutenfrei").
    public func dietary(_ preference: DietaryPreference) -> String {
        switch preference {
        case .glutenFree: self("dietary.gluten_free")
        case .lactoseFree: self("dietary.lactose_free")
        case .vegan: self("dietary.vegan")
        case .vegetarian: self("dietary.vegetarian")
        }
    }

    /// Why the AI's analysis failed, in a short sentence for the screen and the page; never a key or a URL.
    public func aiFailure(_ failure: AIFailure) -> String {
        switch failure {
        case .notConfigured: self("ai.not_configured")
        case .unauthorized: self("ai.unauthorized")
        case .rateLimited(let after):
            after.map { self("ai.busy.seconds", ["seconds": integer(Int($0.seconds.rounded(.up)))]) }
                ?? self("ai.busy")
        case .noCredit: self("ai.no_credit")
        case .modelUnavailable(let model): self("ai.model_unavailable", ["model": model])
        case .regionNotSupported: self("ai.region")
        case .cannotSeeImages: self("ai.cannot_see")
        case .photoUnreadable: self("ai.photo_unreadable")
        case .requestRefused(let reason): self("ai.request_refused", ["reason": reason])
        case .serverError(let status): self("ai.server_error", ["status": String(status)])
        case .timedOut: self("ai.timed_out")
        case .offline: self("ai.offline")
        case .connectionLost: self("ai.connection_lost")
        case .untrusted: self("ai.untrusted")
        case .refused: self("ai.refused")
        case .malformedAnswer: self("ai.malformed")
        case .badPhoto: self("ai.bad_photo")
        }
    }
}
