import Foundation
import SnapConfig
import SnapCore
import Testing

/// Ties the owner's settings to the config file: every setting overrides a key the reader knows, and the
/// config's value for it is the one the rule starts from. A setting added on one side only fails here.
@Suite("StationConfig: the owner's settings' rule and the config file")
struct StationConfigSettingsTests {
    /// A value for `key`'s config key other than its default, as a TOML line, and whether the rule's
    /// defaults carry it.
    private func sample(_ key: RuntimeSettings.Key) -> (toml: String, took: (SettingsInForce) -> Bool) {
        switch key {
        case .dietary: ("[ai]\ndietary = [\"vegan\"]", { $0.dietaryPreferences == [.vegan] })
        case .filter: ("[processing]\nfilter = \"mono\"", { $0.filter == .mono })
        case .intensity: ("[processing]\nintensity = 0.4", { $0.intensity == 0.4 })
        case .flash: ("[countdown]\nflash = false", { !$0.flash })
        case .countdown: ("[countdown]\nseconds = 7", { $0.countdownSeconds == 7 })
        case .mode: ("[station]\ndefault_mode = \"meal\"", { $0.mode == .meal })
        case .camera:
            ("[camera]\nbackend = \"simulated\"\nothers = [\"v4l2:/dev/video0\"]", { $0.camera == 0 })
        case .groups: ("[group]\nname = [\"Family\", \"Climbers\"]", { $0.groups == ["Family", "Climbers"] })
        case .language: ("[station]\nlanguage = \"de\"", { $0.language == .de })
        case .goals:
            (
                "[goals]\nkcal = 2000\nprotein = 120",
                { $0.goals == Macros(calories: 2000, protein: 120, carbs: 0, fats: 0) }
            )
        case .quietHours:
            ("[station]\nquiet_hours = \"22:00-07:00\"", { $0.quietHours.description == "22:00-07:00" })
        }
    }

    @Test("should name a key (or a whole table) the config reader knows for every setting the owner can change")
    func everyKeyIsKnown() {
        let known = Set(StationConfig.knownKeys)
        for key in RuntimeSettings.Key.allCases {
            let table = known.contains { $0.hasPrefix(key.rawValue + ".") }
            #expect(
                known.contains(key.rawValue) || table, "\(key) overrides \(key.rawValue), which the reader never reads")
        }
    }

    @Test("should start every setting from the config file's value, and lock each key web.locked names")
    func defaultsComeFromTheFile() throws {
        let plain = try StationConfig(parsing: "", file: "t.toml").settingsRule
        for key in RuntimeSettings.Key.allCases {
            let (toml, took) = sample(key)
            let rule = try StationConfig(
                parsing: "\(toml)\n[web]\nlocked = [\"\(key.rawValue)\"]", file: "t.toml"
            ).settingsRule
            #expect(took(rule.defaults), "\(key): the file's value is not the rule's default")
            if key != .camera { #expect(!took(plain.defaults), "\(key): the sample is the default already") }
            #expect(rule.locked == [key] && !rule.offers(key))
        }
    }

    @Test("should offer the flash only where an LED is wired, and the cameras the config names")
    func whatTheStationHas() throws {
        let noLED = try StationConfig(parsing: "[gpio]\nbackend = \"gpiod\"\nled_line = -1", file: "t.toml")
        #expect(!noLED.settingsRule.offers(.flash))
        let two = try StationConfig(
            parsing: "[camera]\nbackend = \"simulated\"\nothers = [\"v4l2:/dev/video0\"]", file: "t.toml")
        #expect(two.settingsRule.cameras.count == 2 && two.settingsRule.offers(.camera))
        #expect(!(try StationConfig(parsing: "", file: "t.toml")).settingsRule.offers(.camera))
    }
}
