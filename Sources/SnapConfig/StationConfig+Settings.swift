import Foundation
import SnapCore

extension StationConfig {
    /// The zone the daily limits follow.
    public var resolvedTimeZone: TimeZone {
        station.timeZone.isEmpty ? .current : TimeZone(identifier: station.timeZone) ?? .current
    }

    /// The owner's settings' rule with the config's side of it: each setting's value in the file, the
    /// locks (`web.locked`), and the cameras and flash this station has.
    public var settingsRule: SettingsRule {
        if let fileRule { return fileRule }
        return SettingsRule(
            defaults: SettingsInForce(
                dietaryPreferences: Set(ai.dietary), filter: processing.filter, intensity: processing.intensity,
                flash: countdown.flash, countdownSeconds: countdown.seconds, mode: station.defaultMode, camera: 0,
                groups: group.names, language: station.language, goals: goals, quietHours: station.quietHours,
                timeZone: station.timeZone, aiService: AIService(baseURL: ai.baseURL, model: ai.model),
                groupEmail: group.email, notices: notify, mqtt: mqtt.broker),
            locked: Set(web.locked.compactMap(RuntimeSettings.Key.init(rawValue:))),
            cameras: camera.all.map(\.name), flashWired: gpio.ledLine != nil && gpio.backend != .none)
    }

    /// The config the station starts with: the owner's settings taken at start (`Key.takesEffectAtStart`:
    /// the time zone, the AI service, the group account's email) in force over the file's, where the config does not lock them. The
    /// settings' rule keeps the file's values as the config's side, so the page's "back to the config's"
    /// still gives the file's.
    public func starting(with owner: RuntimeSettings) -> StationConfig {
        let rule = settingsRule
        let inForce = rule.inForce(owner)
        var config = self
        config.fileRule = rule
        config.station.timeZone = inForce.timeZone
        config.ai.baseURL = inForce.aiService.baseURL
        config.ai.model = inForce.aiService.model
        config.group.email = inForce.groupEmail
        config.mqtt.broker = inForce.mqtt
        return config
    }

    /// Why `address` cannot be the AI service's (`ai.base_url`, or the page's field), or nil: the config
    /// reader and the page say the same.
    public static func aiAddressProblem(_ address: String) -> AIAddressProblem? {
        guard URL(string: address)?.scheme.map({ ["http", "https"].contains($0) }) == true,
            URL(string: address)?.host?.isEmpty == false
        else { return .notHTTP }
        // A key goes in a header: over plain http it would cross the internet in clear text. On the owner's
        // own network a local vision server is allowed over http, and then no key is sent.
        guard isSecureOrLocal(address) || isPrivateNetwork(address) else { return .clearOverInternet }
        return nil
    }

    /// What the station needs from the config. `aiConfigured` says whether an API key was found.
    public func stationSettings(aiConfigured: Bool) -> StationSettings {
        var settings = StationSettings(
            timeZone: resolvedTimeZone, groups: group.names, owner: settingsRule,
            groupReviewSeconds: group.reviewSeconds, mealAutoSaveSeconds: ai.autoSaveSeconds,
            aiConfigured: aiConfigured, aiDailyLimit: ai.dailyLimit,
            idleAfter: display.idleSeconds > 0 ? .seconds(display.idleSeconds) : nil,
            slideDuration: .seconds(display.slideSeconds), ownersPage: web.enabled,
            jarDays: jar.enabled ? jar.days.count : 0)
        settings.choiceHolds = .seconds(household.choiceMinutes * 60)
        settings.nightHours = NightHours(display.nightHours)
        return settings
    }

    /// Where the station keeps its Supabase session's refresh token (0600): made again from the password
    /// when gone, as after the owner gave the station another account on the page.
    public var supabaseSessionFile: String { storage.dir + "/supabase-session" }

    /// Where the headless display writes its frames.
    public var framesDirectory: String {
        display.framesDir.isEmpty ? storage.dir + "/frames" : display.framesDir
    }

    /// Where the folder group backend writes.
    public var outboxDirectory: String {
        group.folder.isEmpty ? storage.dir + "/outbox" : group.folder
    }
}

/// Why an address cannot be the AI service's (`StationConfig.aiAddressProblem`).
public enum AIAddressProblem: Sendable, Hashable {
    /// Not an http or https URL with a host.
    case notHTTP
    /// Plain http to a server outside the owner's network: the request and its key would cross the
    /// internet in clear text.
    case clearOverInternet
}
