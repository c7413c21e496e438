import SnapCore
import Testing

@Suite("SettingsRule: the owner's value over the config's, unless the config locks it")
struct OwnerSettingsTests {
    let config = SettingsInForce(
        dietaryPreferences: [.vegan], filter: .sepia, intensity: 0.5, flash: true, countdownSeconds: 3, mode: .group,
        camera: 0)
    let owner = RuntimeSettings(
        dietaryPreferences: [.glutenFree], filter: .mono, intensity: 0, flash: false, countdownSeconds: 7,
        mode: .meal, camera: 1, groups: ["Climbers"], language: .it,
        goals: Macros(calories: 1800, protein: 100, carbs: 0, fats: 0), quietHours: QuietHours("22:30-06:45"),
        timeZone: "Asia/Tokyo", aiService: AIService(baseURL: "http://192.168.1.20:8080/v1", model: "llava"),
        groupEmail: "kitchen@example.com",
        notices: NoticeSettings(address: "https://ntfy.sh/kitchen-7f3a", off: [.shared], reminder: 19 * 60),
        mqtt: MQTTSettings(address: "mqtt://homeassistant.local", username: "kitchen"))

    @Test("should put every value the owner set over the config's")
    func ownerWins() {
        let rule = SettingsRule(defaults: config, cameras: ["CSI", "USB"])
        #expect(rule.inForce(RuntimeSettings()) == config)
        #expect(
            rule.inForce(owner)
                == SettingsInForce(
                    dietaryPreferences: [.glutenFree], filter: .mono, intensity: 0, flash: false, countdownSeconds: 7,
                    mode: .meal, camera: 1, groups: ["Climbers"], language: .it,
                    goals: Macros(calories: 1800, protein: 100, carbs: 0, fats: 0),
                    quietHours: QuietHours("22:30-06:45")!, timeZone: "Asia/Tokyo",
                    aiService: AIService(baseURL: "http://192.168.1.20:8080/v1", model: "llava"),
                    groupEmail: "kitchen@example.com",
                    notices: NoticeSettings(address: "https://ntfy.sh/kitchen-7f3a", off: [.shared], reminder: 19 * 60),
                    mqtt: MQTTSettings(address: "mqtt://homeassistant.local", username: "kitchen"))
        )
    }

    @Test("should change only a walk-through step's settings, and name those taken at start that differ")
    func parts() {
        let part = RuntimeSettings(filter: .vivid, language: .de, timeZone: "Europe/Berlin")
        let changed = owner.changed(by: .part(part, keys: [.language, .timeZone, .aiService]), groups: ["Climbers"])
        #expect(changed.language == .de && changed.timeZone == "Europe/Berlin", "the step's own")
        #expect(changed.aiService == nil, "a step's setting left at the config's is the config's again")
        #expect(changed.filter == owner.filter && changed.goals == owner.goals, "the others as they were")
        #expect(changed.groups == owner.groups)
        let rule = SettingsRule(defaults: config, cameras: ["CSI", "USB"])
        #expect(rule.inForce(changed).startsDifferently(from: rule.inForce(owner)) == [.timeZone, .aiService])
        #expect(rule.inForce(changed).startsDifferently(from: rule.inForce(changed)).isEmpty)
        #expect(
            RuntimeSettings.Key.allCases.filter(\.takesEffectAtStart) == [.timeZone, .aiService, .groupEmail, .mqtt])
    }

    @Test("should give the config's value back for every locked key, and keep none of them")
    func locksWin() {
        for key in RuntimeSettings.Key.allCases {
            let rule = SettingsRule(defaults: config, locked: [key], cameras: ["CSI", "USB"])
            #expect(rule.kept(owner) == owner.clearing([key]) && rule.kept(owner) != owner, "\(key)")
            #expect(
                rule.inForce(owner)
                    == SettingsRule(defaults: config, cameras: ["CSI", "USB"]).inForce(rule.kept(owner)))
            #expect(!rule.offers(key), "\(key)")
        }
    }

    @Test("should fall back where the station lacks the value: a camera gone, no LED, no group")
    func whatTheStationHas() {
        let rule = SettingsRule(defaults: config, cameras: ["CSI"], flashWired: false)
        let value = rule.inForce(RuntimeSettings(flash: true, mode: .group, camera: 3, groups: []))
        #expect(value.camera == 0 && !value.flash && value.mode == .meal && value.modes == [.meal])
        #expect(!rule.offers(.camera) && !rule.offers(.flash) && rule.offers(.countdown))
    }

    @Test("should offer group mode once the owner joins a first group over a config without one")
    func firstGroupOnThePage() {
        var none = config
        none.groups = []
        let rule = SettingsRule(defaults: none)
        #expect(rule.inForce(RuntimeSettings()).modes == [.meal])
        let joined = rule.inForce(RuntimeSettings(mode: .group, groups: ["Family"]))
        #expect(joined.modes == [.meal, .group] && joined.mode == .group && joined.groups == ["Family"])
    }

    @Test("should leave the photo unfiltered at intensity 0")
    func intensityZero() {
        #expect(SettingsInForce(filter: .vivid, intensity: 0).photoFilter == nil)
        #expect(SettingsInForce(filter: .vivid, intensity: 0.1).photoFilter == .vivid)
    }
}
