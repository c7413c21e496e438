import SnapText

/// The settings the owner may change on the page (and some at the station's menu) over the config file's,
/// and the one rule that says which value is in force: **the owner's value over the config's, unless the
/// config locks it** (`web.locked`). `SettingsRule.inForce(_:)` is that rule; the state machine, the
/// shell's live settings and every page ask it, and nothing else resolves a setting.
///
/// The state machine is the only writer of the owner's settings: the page and the menu send a
/// `SettingsChange`, the machine makes it over the settings it holds and stores the result
/// (`.storeSettings`), and the page reads the values back from the station's status. Two changes made at
/// once (the flash at the menu while the page joins a group) are made one after the other, both kept.
///
/// Each setting is one row of `RuntimeSettings.Key.field`: where the owner's value is kept, where it is
/// in force, how the log says it. Clearing, the rule, the log's summary and the page's form are loops
/// over the keys. To add a setting, see docs/architecture.md, "Adding a setting the owner can change".

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
    /// The hours the station keeps quiet: no flash, a dimmed display.
    public var quietHours: QuietHours?
    /// The station's time zone, an IANA name ("" for the system's): its days, its midnight, its clock.
    /// Taken as the station starts (`Key.takesEffectAtStart`).
    public var timeZone: String?
    /// The AI service's address and model. Taken as the station starts.
    public var aiService: AIService?
    /// The email of the station's own account on the group's server, made or signed in to on the page (its
    /// password is an entered key). Taken as the station starts.
    public var groupEmail: String?
    /// Where the station's notices go and which it sends (the whole `[notify]` table).
    public var notices: NoticeSettings?
    /// The home's MQTT broker (the address, user, version and the hub's countdown button of `[mqtt]`).
    /// Taken as the station starts.
    public var mqtt: MQTTSettings?

    public init(
        dietaryPreferences: Set<DietaryPreference>? = nil, filter: PhotoFilter? = nil, intensity: Double? = nil,
        flash: Bool? = nil, countdownSeconds: Int? = nil, mode: StationMode? = nil, camera: Int? = nil,
        groups: [String]? = nil, language: Language? = nil, goals: Macros? = nil, quietHours: QuietHours? = nil,
        timeZone: String? = nil, aiService: AIService? = nil, groupEmail: String? = nil,
        notices: NoticeSettings? = nil, mqtt: MQTTSettings? = nil
    ) {
        self.notices = notices
        self.mqtt = mqtt
        self.groupEmail = groupEmail
        self.timeZone = timeZone
        self.aiService = aiService
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
        self.quietHours = quietHours
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
        case quietHours = "station.quiet_hours"
        case timeZone = "station.time_zone"
        /// The address and the model together (`ai.base_url`, `ai.model`): a model belongs to its service.
        case aiService = "ai.base_url"
        case groupEmail = "group.email"
        /// The whole `[notify]` table: the address, its format, the kinds off and the reminder together.
        case notices = "notify"
        /// The broker's address, user, version and the countdown button together (`[mqtt]`).
        case mqtt

        /// Whether the station takes the setting only as it starts: a change restarts it at its next calm
        /// moment (the time zone its days and timers are counted in, the AI service its client is made for).
        public var takesEffectAtStart: Bool {
            switch self {
            case .timeZone, .aiService, .groupEmail, .mqtt: true
            case .dietary, .filter, .intensity, .flash, .countdown, .mode, .camera, .groups, .language, .goals,
                .quietHours, .notices:
                false
            }
        }

        /// Whether `settings` has a value of the owner's for this setting.
        public func isSet(in settings: RuntimeSettings) -> Bool { field.isSet(in: settings) }

        /// The setting's row: where the owner's value is kept, where it is in force, and what the log says
        /// of it. The one switch a new setting adds a line to.
        var field: any OwnerSetting {
            switch self {
            case .dietary:
                SettingField(\.dietaryPreferences, \.dietaryPreferences) {
                    "dietary \($0.map(\.rawValue).sorted().joined(separator: "+"))"
                }
            case .filter: SettingField(\.filter, \.filter) { "filter \($0.rawValue)" }
            case .intensity: SettingField(\.intensity, \.intensity) { "intensity \($0)" }
            case .flash: SettingField(\.flash, \.flash) { "flash \($0 ? "on" : "off")" }
            case .countdown: SettingField(\.countdownSeconds, \.countdownSeconds) { "countdown \($0) s" }
            case .mode: SettingField(\.mode, \.mode) { "mode \($0.rawValue)" }
            case .camera: SettingField(\.camera, \.camera) { "camera \($0 + 1)" }
            case .groups:
                SettingField(\.groups, \.groups) { $0.isEmpty ? "no group" : "groups \($0.joined(separator: ", "))" }
            case .language: SettingField(\.language, \.language) { "language \($0.rawValue)" }
            case .goals:
                SettingField(\.goals, \.goals) {
                    "goals \($0.calories) kcal P \($0.protein) C \($0.carbs) F \($0.fats)"
                }
            case .quietHours:
                SettingField(\.quietHours, \.quietHours) { "quiet hours \($0.hours.map(\.description) ?? "none")" }
            case .timeZone: SettingField(\.timeZone, \.timeZone) { "time zone \($0.isEmpty ? "the system's" : $0)" }
            case .aiService: SettingField(\.aiService, \.aiService) { "AI service \($0.baseURL) (\($0.model))" }
            case .groupEmail: SettingField(\.groupEmail, \.groupEmail) { "group account \($0)" }
            case .notices:
                SettingField(\.notices, \.notices) {
                    $0.address.isEmpty ? "no notices" : "notices by \($0.format.rawValue), \($0.off.count) kind(s) off"
                }
            case .mqtt:
                SettingField(\.mqtt, \.mqtt) {
                    $0.address.isEmpty ? "no MQTT broker" : "MQTT broker \($0.address) (\($0.version.rawValue))"
                }
            }
        }
    }

    public static let keys = Key.allCases.map(\.rawValue)

    /// These settings without the values of `keys` (the config's come back for them).
    public func clearing(_ keys: Set<Key>) -> RuntimeSettings {
        var kept = self
        for key in keys { key.field.clear(&kept) }
        return kept
    }

    /// These settings with every value `other` sets over them.
    public func overlaid(by other: RuntimeSettings) -> RuntimeSettings {
        var settings = self
        for key in Key.allCases where key.field.isSet(in: other) { key.field.copy(from: other, into: &settings) }
        return settings
    }

    /// A line for the log: what differs from the config.
    public var summary: String {
        let parts = Key.allCases.compactMap { $0.field.logged(self) }
        return parts.isEmpty ? "the config's" : parts.joined(separator: ", ")
    }
}

/// One row of the settings' table, whatever its value's type.
protocol OwnerSetting {
    func clear(_ owner: inout RuntimeSettings)
    /// Whether `owner` has a value of its own for the setting.
    func isSet(in owner: RuntimeSettings) -> Bool
    /// `owner`'s value (or none) where `part` has it.
    func copy(from part: RuntimeSettings, into owner: inout RuntimeSettings)
    /// Whether the setting's value in force differs between `one` and `other`.
    func differs(_ one: SettingsInForce, _ other: SettingsInForce) -> Bool
    /// The owner's value, where set, over `value`'s.
    func resolve(_ owner: RuntimeSettings, into value: inout SettingsInForce)
    func logged(_ owner: RuntimeSettings) -> String?
}

/// A setting kept at `owner` (nil: the config's) and in force at `inForce`.
struct SettingField<Value: Equatable>: OwnerSetting {
    let owner: WritableKeyPath<RuntimeSettings, Value?>
    let inForce: WritableKeyPath<SettingsInForce, Value>
    let log: (Value) -> String

    init(
        _ owner: WritableKeyPath<RuntimeSettings, Value?>, _ inForce: WritableKeyPath<SettingsInForce, Value>,
        log: @escaping (Value) -> String
    ) {
        self.owner = owner
        self.inForce = inForce
        self.log = log
    }

    func clear(_ settings: inout RuntimeSettings) { settings[keyPath: owner] = nil }
    func isSet(in settings: RuntimeSettings) -> Bool { settings[keyPath: owner] != nil }
    func copy(from part: RuntimeSettings, into settings: inout RuntimeSettings) {
        settings[keyPath: owner] = part[keyPath: owner]
    }
    func differs(_ one: SettingsInForce, _ other: SettingsInForce) -> Bool {
        one[keyPath: inForce] != other[keyPath: inForce]
    }
    func resolve(_ settings: RuntimeSettings, into value: inout SettingsInForce) {
        if let set = settings[keyPath: owner] { value[keyPath: inForce] = set }
    }
    func logged(_ settings: RuntimeSettings) -> String? { settings[keyPath: owner].map(log) }
}

/// A change to the owner's settings, as the page or the menu asks it. The state machine makes it over the
/// settings it holds (`RuntimeSettings.changed(by:)`), so a change names only what it changes.
public enum SettingsChange: Sendable, Hashable {
    /// The settings page's form: the owner's value for every setting on it (nil: the config's), and the
    /// mode to be in now (the config's too: the mode button may have left it). The groups and the group
    /// account are not on the form: they are memberships and an account on the group's server, not
    /// preferences, and stay as they are.
    case form(RuntimeSettings, mode: StationMode?)
    /// The flash turned on or off at the station's menu.
    case flash(Bool)
    /// Another camera chosen at the station's menu.
    case camera(Int)
    /// The station made or joined `group` on the page: it shares with it after the others.
    case joined(String)
    /// The station left `group` on the page.
    case left(String)
    /// A step of the first visit's walk-through: the owner's value (nil: the config's) for `keys`, the
    /// others as they are. A setting taken at start waits for the walk-through's end (`Event.startChanged`).
    case part(RuntimeSettings, keys: Set<RuntimeSettings.Key>)
}

extension RuntimeSettings {
    /// These settings with `change` made; `groups` are the groups in force (the config's, unless the
    /// owner's page changed them), which a join or a leave starts from; never more than
    /// `SettingsInForce.maxGroups`.
    public func changed(by change: SettingsChange, groups: [String]) -> RuntimeSettings {
        var changed = self
        switch change {
        case .form(let form, _):
            changed = form
            changed.groups = self.groups
            changed.groupEmail = self.groupEmail
        case .flash(let on): changed.flash = on
        case .camera(let index): changed.camera = index
        case .joined(let group):
            changed.groups = Array(
                (groups.contains(group) ? groups : groups + [group]).prefix(SettingsInForce.maxGroups))
        case .left(let group): changed.groups = groups.filter { $0 != group }
        case .part(let part, let keys):
            for key in keys where key != .groups { key.field.copy(from: part, into: &changed) }
        }
        return changed
    }
}

extension SettingsInForce {
    /// The settings taken at start (`Key.takesEffectAtStart`) that differ between these and `other`.
    public func startsDifferently(from other: SettingsInForce) -> [RuntimeSettings.Key] {
        RuntimeSettings.Key.allCases.filter { $0.takesEffectAtStart && $0.field.differs(self, other) }
    }
}

/// The AI service the station asks: an OpenAI-compatible API's address and the model asked there.
public struct AIService: Sendable, Hashable, Codable {
    /// Where the API is, up to its version: "https://api.openai.com/v1", "http://192.168.1.20:8080/v1".
    public var baseURL: String
    public var model: String

    public init(baseURL: String, model: String) {
        self.baseURL = baseURL
        self.model = model
    }

    /// OpenAI's API with the station's default model (the config's defaults).
    public static let openAI = AIService(baseURL: "https://api.openai.com/v1", model: "gpt-4o-mini")
}

/// The hours the station keeps quiet, as local clock times ("22:00-07:00"): the flash stays off and the
/// display dims. None by default.
public struct QuietHours: Sendable, Hashable, TextCoded, CustomStringConvertible {
    public var hours: NightHours?

    /// No quiet hours.
    public static let never = QuietHours(hours: nil)

    public init(hours: NightHours?) { self.hours = hours }

    /// "HH:MM-HH:MM", or "" for none; nil for anything else.
    public init?(_ text: String) { self.init(parsing: text) }

    public init?(parsing text: String) {
        if text.isEmpty {
            self = .never
        } else if let hours = NightHours(text) {
            self.hours = hours
        } else {
            return nil
        }
    }

    /// Whether `minute` (after local midnight) is quiet.
    public func contains(minute: Int) -> Bool { hours?.contains(minute: minute) ?? false }

    public var description: String { hours?.description ?? "" }

    public var text: String { description }
    public static let textMeaning = "a span of local hours such as \"22:00-07:00\", or \"\""
}
