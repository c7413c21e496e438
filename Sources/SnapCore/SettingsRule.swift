import SnapText

/// The value of every owner-changeable setting as it is in force.
public struct SettingsInForce: Sendable, Hashable {
    public var dietaryPreferences: Set<DietaryPreference> = []
    public var filter = PhotoFilter.sepia
    /// 0 leaves the photo as it is.
    public var intensity = 0.0
    /// The flash LED lights for the last second of the countdown and the shot.
    public var flash = true
    public var countdownSeconds = 3
    /// The mode the station starts in (the mode button changes the mode of the moment, not this).
    public var mode = StationMode.group
    /// An index into `SettingsRule.cameras`.
    public var camera = 0
    /// The groups the station shares with, in the mode button's order; none turns group mode off.
    public var groups = ["Friends"]
    /// The language of the display, the page and the AI's answers.
    public var language = Language.en
    /// The daily goals (kcal, protein, carbs, fats), each 0 for none.
    public var goals = Macros.zero
    /// The hours the flash stays off and the display dims.
    public var quietHours = QuietHours.never
    /// The station's time zone, an IANA name; "" for the system's.
    public var timeZone = ""
    /// The AI service asked about meals.
    public var aiService = AIService.openAI
    /// The email the station signs in to the group's server with; "" for none (a token, or no account).
    public var groupEmail = ""
    /// Where the station's notices go, and which: none by default.
    public var notices = NoticeSettings.none
    /// The home's MQTT broker: none by default.
    public var mqtt = MQTTSettings.none

    /// The most groups one station belongs to (the mode button cycles through them).
    public static let maxGroups = 8
    /// The countdown's seconds the config and the page accept.
    public static let countdownRange = 0...10
    /// The filter's intensity the config and the page accept.
    public static let intensityRange = 0.0...1.0
    /// The daily kcal goal the config and the page accept (0: none).
    public static let kcalGoalRange = 0...20_000
    /// A daily protein, carbs or fats goal in grams the config and the page accept (0: none).
    public static let gramsGoalRange = 0...2_000

    /// The values given over the defaults above, set through the settings' table as the rule sets the
    /// owner's.
    public init(
        dietaryPreferences: Set<DietaryPreference>? = nil, filter: PhotoFilter? = nil, intensity: Double? = nil,
        flash: Bool? = nil, countdownSeconds: Int? = nil, mode: StationMode? = nil, camera: Int? = nil,
        groups: [String]? = nil, language: Language? = nil, goals: Macros? = nil, quietHours: QuietHours? = nil,
        timeZone: String? = nil, aiService: AIService? = nil, groupEmail: String? = nil,
        notices: NoticeSettings? = nil, mqtt: MQTTSettings? = nil
    ) {
        let given = RuntimeSettings(
            dietaryPreferences: dietaryPreferences, filter: filter, intensity: intensity, flash: flash,
            countdownSeconds: countdownSeconds, mode: mode, camera: camera, groups: groups, language: language,
            goals: goals, quietHours: quietHours, timeZone: timeZone, aiService: aiService, groupEmail: groupEmail,
            notices: notices, mqtt: mqtt)
        for key in RuntimeSettings.Key.allCases { key.field.resolve(given, into: &self) }
    }

    /// The modes the station has: meal always, group while it is in a group.
    public var modes: [StationMode] { StationMode.available(groups: groups) }

    /// The filter a photo gets: none at intensity 0.
    public var photoFilter: PhotoFilter? { intensity > 0 ? filter : nil }

    /// Whether the station keeps quiet at `minute` after local midnight: no flash, a dimmed display.
    public func isQuiet(minute: Int) -> Bool { quietHours.contains(minute: minute) }

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
        for key in RuntimeSettings.Key.allCases { key.field.resolve(owner, into: &value) }
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
        case .dietary, .filter, .intensity, .countdown, .mode, .groups, .language, .goals, .quietHours, .timeZone,
            .aiService, .groupEmail, .notices, .mqtt:
            return true
        }
    }
}
