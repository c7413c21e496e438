import SnapText

/// The settings the owner may change on the page (and some at the station's menu) over the config file's,
/// and the one rule that says which value is in force: **the owner's value over the config's, unless the
/// config locks it** (`web.locked`). `SettingsRule.inForce(_:)` is that rule; the state machine, the
/// shell's live settings and every page ask it, and nothing else resolves a setting.
///
/// To add a setting the owner can change (docs/architecture.md, "Adding a setting"): its stored override
/// and its `Key` (the config key it overrides) in `RuntimeSettings`, its value in `SettingsInForce` and
/// one line in `SettingsRule.inForce`, here; the config key (StationConfig.swift, StationConfig+Reading.swift);
/// the config's value in `StationConfig.settingsRule` (StationConfig+Settings.swift); the page's field
/// (SettingsPage.swift). The compiler names the switches over `Key` that need it; `StationConfigSettingsTests`
/// fail until the config side knows the key.

/// What the owner changed on the page over the config file's defaults (stored in SQLite as JSON); nil
/// keeps the config's value.
public struct RuntimeSettings: Sendable, Hashable, Codable {
    public var dietaryPreferences: Set<DietaryPreference>?
    public var filter: PhotoFilter?
    /// 0 turns the filter off.
    public var intensity: Double?
    public var flash: Bool?
    public var countdownSeconds: Int?
    /// The mode now, and after a restart.
    public var mode: StationMode?
    /// The camera in use, an index into the config's cameras (`camera.backend` first, then `camera.others`).
    public var camera: Int?
    /// The groups the station shares with, in the mode button's order: the page's Group section sets
    /// them as the owner makes, joins and leaves groups.
    public var groups: [String]?
    /// The language of the display, the page and the AI's answers.
    public var language: Language?
    /// The daily goals: kcal, protein, carbs and fats, each 0 for none.
    public var goals: Macros?

    public init(
        dietaryPreferences: Set<DietaryPreference>? = nil, filter: PhotoFilter? = nil, intensity: Double? = nil,
        flash: Bool? = nil, countdownSeconds: Int? = nil, mode: StationMode? = nil, camera: Int? = nil,
        groups: [String]? = nil, language: Language? = nil, goals: Macros? = nil
    ) {
        self.goals = goals
        self.language = language
        self.camera = camera
        self.groups = groups
        self.dietaryPreferences = dietaryPreferences
        self.filter = filter
        self.intensity = intensity
        self.flash = flash
        self.countdownSeconds = countdownSeconds
        self.mode = mode
    }

    /// The config keys a setting overrides, as `web.locked` names them.
    public enum Key: String, Sendable, CaseIterable {
        case dietary = "ai.dietary"
        case filter = "processing.filter"
        case intensity = "processing.intensity"
        case flash = "countdown.flash"
        case countdown = "countdown.seconds"
        case mode = "station.default_mode"
        case camera = "camera.backend"
        case groups = "group.name"
        case language = "station.language"
        /// The whole `[goals]` table: the four goals are set together.
        case goals
    }

    public static let keys = Key.allCases.map(\.rawValue)

    /// These settings without the values of `keys` (the config's come back for them).
    public func clearing(_ keys: Set<Key>) -> RuntimeSettings {
        var kept = self
        for key in keys {
            switch key {
            case .dietary: kept.dietaryPreferences = nil
            case .filter: kept.filter = nil
            case .intensity: kept.intensity = nil
            case .flash: kept.flash = nil
            case .countdown: kept.countdownSeconds = nil
            case .mode: kept.mode = nil
            case .camera: kept.camera = nil
            case .groups: kept.groups = nil
            case .language: kept.language = nil
            case .goals: kept.goals = nil
            }
        }
        return kept
    }

    /// One setting changed at the station itself (its menu), stored over the owner's others.
    public enum Change: Sendable, Hashable {
        case flash(Bool)
        case camera(Int)
    }

    /// These settings with `change` made.
    public func applying(_ change: Change) -> RuntimeSettings {
        var changed = self
        switch change {
        case .flash(let on): changed.flash = on
        case .camera(let index): changed.camera = index
        }
        return changed
    }

    /// A line for the log: what differs from the config.
    public var summary: String {
        var parts: [String] = []
        if let dietaryPreferences {
            parts.append("dietary \(dietaryPreferences.map(\.rawValue).sorted().joined(separator: "+"))")
        }
        if let filter { parts.append("filter \(filter.rawValue)") }
        if let intensity { parts.append("intensity \(intensity)") }
        if let flash { parts.append("flash \(flash ? "on" : "off")") }
        if let countdownSeconds { parts.append("countdown \(countdownSeconds) s") }
        if let mode { parts.append("mode \(mode.rawValue)") }
        if let camera { parts.append("camera \(camera + 1)") }
        if let groups { parts.append(groups.isEmpty ? "no group" : "groups \(groups.joined(separator: ", "))") }
        if let language { parts.append("language \(language.rawValue)") }
        if let goals {
            parts.append("goals \(goals.calories) kcal P \(goals.protein) C \(goals.carbs) F \(goals.fats)")
        }
        return parts.isEmpty ? "the config's" : parts.joined(separator: ", ")
    }
}

/// The value of every owner-changeable setting as it is in force.
public struct SettingsInForce: Sendable, Hashable {
    public var dietaryPreferences: Set<DietaryPreference>
    public var filter: PhotoFilter
    /// 0 leaves the photo as it is.
    public var intensity: Double
    /// The flash LED lights for the last second of the countdown and the shot.
    public var flash: Bool
    public var countdownSeconds: Int
    /// The mode the station starts in (the mode button changes the mode of the moment, not this).
    public var mode: StationMode
    /// An index into `SettingsRule.cameras`.
    public var camera: Int
    /// The groups the station shares with, in the mode button's order; none turns group mode off.
    public var groups: [String]
    /// The language of the display, the page and the AI's answers.
    public var language: Language
    /// The daily goals (kcal, protein, carbs, fats), each 0 for none.
    public var goals: Macros

    /// The countdown's seconds the config and the page accept.
    public static let countdownRange = 0...10
    /// The filter's intensity the config and the page accept.
    public static let intensityRange = 0.0...1.0
    /// The daily kcal goal the config and the page accept (0: none).
    public static let kcalGoalRange = 0...20_000
    /// A daily protein, carbs or fats goal in grams the config and the page accept (0: none).
    public static let gramsGoalRange = 0...2_000

    public init(
        dietaryPreferences: Set<DietaryPreference> = [], filter: PhotoFilter = .sepia, intensity: Double = 0,
        flash: Bool = true, countdownSeconds: Int = 3, mode: StationMode = .group, camera: Int = 0,
        groups: [String] = ["Friends"], language: Language = .en, goals: Macros = .zero
    ) {
        self.goals = goals
        self.language = language
        self.groups = groups
        self.dietaryPreferences = dietaryPreferences
        self.filter = filter
        self.intensity = intensity
        self.flash = flash
        self.countdownSeconds = countdownSeconds
        self.mode = mode
        self.camera = camera
    }

    /// The modes the station has: meal always, group while it is in a group.
    public var modes: [StationMode] { StationMode.available(groups: groups) }

    /// The filter a photo gets: none at intensity 0.
    public var photoFilter: PhotoFilter? { intensity > 0 ? filter : nil }

    /// The dietary preferences in a fixed order (for a request, a page).
    public var sortedDietary: [DietaryPreference] { dietaryPreferences.sorted { $0.rawValue < $1.rawValue } }
}

/// The one rule for the owner's settings, with what it needs from the config: the config's values, the
/// locks, and what the station has to choose from.
public struct SettingsRule: Sendable, Hashable {
    /// The config file's values.
    public var defaults: SettingsInForce
    /// The settings the config locks (`web.locked`): neither the page nor the menu changes them.
    public var locked: Set<RuntimeSettings.Key>
    /// The cameras the camera setting chooses from, by what the owner sees ("CSI camera", "USB camera").
    public var cameras: [String]
    /// A flash LED is wired (`gpio.led_line`): the flash is a setting only then, and off without it.
    public var flashWired: Bool

    public init(
        defaults: SettingsInForce = SettingsInForce(), locked: Set<RuntimeSettings.Key> = [],
        cameras: [String] = ["Camera"], flashWired: Bool = true
    ) {
        self.defaults = defaults
        self.locked = locked
        self.cameras = cameras
        self.flashWired = flashWired
    }

    /// The settings in force: the owner's value where set and not locked, the config's otherwise; a value
    /// the station cannot have (a camera or a mode it lacks, the flash without an LED) falls back.
    public func inForce(_ owner: RuntimeSettings) -> SettingsInForce {
        let owner = kept(owner)
        var value = defaults
        if let dietary = owner.dietaryPreferences { value.dietaryPreferences = dietary }
        if let filter = owner.filter { value.filter = filter }
        if let intensity = owner.intensity { value.intensity = intensity }
        if let flash = owner.flash { value.flash = flash }
        if let seconds = owner.countdownSeconds { value.countdownSeconds = seconds }
        if let mode = owner.mode { value.mode = mode }
        if let camera = owner.camera { value.camera = camera }
        if let groups = owner.groups { value.groups = groups }
        if let language = owner.language { value.language = language }
        if let goals = owner.goals { value.goals = goals }
        value.flash = value.flash && flashWired
        value.camera = min(max(0, value.camera), max(0, cameras.count - 1))
        if !value.modes.contains(value.mode) { value.mode = .meal }
        return value
    }

    /// What the store keeps of the owner's settings: a locked one is the config's again (a lock added
    /// after the owner changed a setting gives the config's value back).
    public func kept(_ owner: RuntimeSettings) -> RuntimeSettings { owner.clearing(locked) }

    /// Whether the page and the menu offer `key`: not locked, and with something to choose.
    public func offers(_ key: RuntimeSettings.Key) -> Bool {
        guard !locked.contains(key) else { return false }
        switch key {
        case .camera: return cameras.count > 1
        case .flash: return flashWired
        case .dietary, .filter, .intensity, .countdown, .mode, .groups, .language, .goals: return true
        }
    }
}
