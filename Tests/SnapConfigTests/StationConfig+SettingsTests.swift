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
        case .timeZone: ("[station]\ntime_zone = \"Asia/Tokyo\"", { $0.timeZone == "Asia/Tokyo" })
        case .groupEmail: ("[group]\nemail = \"kitchen@example.com\"", { $0.groupEmail == "kitchen@example.com" })
        case .aiService:
            (
                "[ai]\nbase_url = \"http://192.168.1.20:8080/v1\"\nmodel = \"llava\"",
                { $0.aiService == AIService(baseURL: "http://192.168.1.20:8080/v1", model: "llava") }
            )
        case .notices:
            (
                "[notify]\nurl = \"https://ntfy.sh/kitchen-7f3a\"\noff = [\"update\"]\nreminder = \"18:30\"",
                {
                    $0.notices
                        == NoticeSettings(
                            address: "https://ntfy.sh/kitchen-7f3a", off: [.update], reminder: 18 * 60 + 30)
                }
            )
        case .mqtt:
            (
                "[mqtt]\nurl = \"mqtts://broker.lan:8884\"\nusername = \"kitchen\"\nversion = \"3.1.1\"",
                {
                    $0.mqtt
                        == MQTTSettings(address: "mqtts://broker.lan:8884", username: "kitchen", version: .v311)
                }
            )
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

    @Test("should start with the owner's time zone and AI service over the file's, the rule keeping the file's")
    func startingWithTheOwners() throws {
        let file = try StationConfig(
            parsing: "[station]\ntime_zone = \"Europe/Berlin\"\n[ai]\nmodel = \"gpt-4o\"", file: "t.toml")
        let service = AIService(baseURL: "http://192.168.1.20:8080/v1", model: "llava")
        let owner = RuntimeSettings(language: .fr, timeZone: "Asia/Tokyo", aiService: service)
        let started = file.starting(with: owner)
        #expect(started.station.timeZone == "Asia/Tokyo" && started.resolvedTimeZone.identifier == "Asia/Tokyo")
        #expect(started.ai.baseURL == service.baseURL && started.ai.model == "llava")
        #expect(started.station.language == .en, "a setting taken at once stays the machine's to resolve")
        #expect(started.settingsRule == file.settingsRule, "the config's side is still the file's")
        #expect(started.settingsRule.defaults.timeZone == "Europe/Berlin")
        #expect(file.starting(with: RuntimeSettings()).ai == file.ai, "nothing the owner set: the file's")

        let locked = try StationConfig(
            parsing: "[station]\ntime_zone = \"Europe/Berlin\"\n[web]\nlocked = [\"station.time_zone\"]", file: "t.toml"
        )
        #expect(locked.starting(with: owner).station.timeZone == "Europe/Berlin", "the installer's lock wins")
    }

    @Test("should say why an address cannot be the AI service's, as the reader and the page both check it")
    func aiAddresses() {
        #expect(StationConfig.aiAddressProblem("https://api.openai.com/v1") == nil)
        #expect(StationConfig.aiAddressProblem("http://192.168.1.20:8080/v1") == nil)
        #expect(StationConfig.aiAddressProblem("http://127.0.0.1:11434/v1") == nil)
        #expect(StationConfig.aiAddressProblem("http://kitchen-pc.local:8080/v1") == nil)
        #expect(StationConfig.aiAddressProblem("http://example.com/v1") == .clearOverInternet)
        for wrong in ["ftp://example.com", "api.openai.com/v1", "", "https://"] {
            #expect(StationConfig.aiAddressProblem(wrong) == .notHTTP, "\(wrong)")
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
