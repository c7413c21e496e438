/// What the owner changed on the page over the config file's defaults (stored in SQLite); nil keeps the
/// config's value. The config can lock each (`web.locked`), and the page then shows it as locked.
///
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

    public init(
        dietaryPreferences: Set<DietaryPreference>? = nil, filter: PhotoFilter? = nil, intensity: Double? = nil,
        flash: Bool? = nil, countdownSeconds: Int? = nil, mode: StationMode? = nil, camera: Int? = nil
    ) {
        self.camera = camera
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
    }

    public static let keys = Key.allCases.map(\.rawValue)

    /// These settings without the ones the config locks (a lock added after the owner changed a setting
    /// gives the config's value back).
    public func without(_ locked: Set<Key>) -> RuntimeSettings {
        var kept = self
        for key in locked {
            switch key {
            case .dietary: kept.dietaryPreferences = nil
            case .filter: kept.filter = nil
            case .intensity: kept.intensity = nil
            case .flash: kept.flash = nil
            case .countdown: kept.countdownSeconds = nil
            case .mode: kept.mode = nil
            case .camera: kept.camera = nil
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
        return parts.isEmpty ? "the config's" : parts.joined(separator: ", ")
    }
}
