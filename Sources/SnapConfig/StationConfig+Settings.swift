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
        SettingsRule(
            defaults: SettingsInForce(
                dietaryPreferences: Set(ai.dietary), filter: processing.filter, intensity: processing.intensity,
                flash: countdown.flash, countdownSeconds: countdown.seconds, mode: station.defaultMode, camera: 0,
                groups: group.names, language: station.language, goals: goals, quietHours: station.quietHours),
            locked: Set(web.locked.compactMap(RuntimeSettings.Key.init(rawValue:))),
            cameras: camera.all.map(\.name), flashWired: gpio.ledLine != nil && gpio.backend != .none)
    }

    /// What the state machine needs from the config. `aiConfigured` says whether an API key was found.
    public func stationSettings(aiConfigured: Bool) -> StationSettings {
        var settings = StationSettings(
            timeZone: resolvedTimeZone, groups: group.names, owner: settingsRule,
            groupReviewSeconds: group.reviewSeconds, mealAutoSaveSeconds: ai.autoSaveSeconds,
            aiConfigured: aiConfigured, aiDailyLimit: ai.dailyLimit,
            idleAfter: display.idleSeconds > 0 ? .seconds(display.idleSeconds) : nil,
            slideDuration: .seconds(display.slideSeconds), ownersPage: web.enabled,
            jarDays: jar.enabled ? jar.days.count : 0)
        settings.nightHours = NightHours(display.nightHours)
        return settings
    }

    /// Where the headless display writes its frames.
    public var framesDirectory: String {
        display.framesDir.isEmpty ? storage.dir + "/frames" : display.framesDir
    }

    /// Where the folder group backend writes.
    public var outboxDirectory: String {
        group.folder.isEmpty ? storage.dir + "/outbox" : group.folder
    }
}
