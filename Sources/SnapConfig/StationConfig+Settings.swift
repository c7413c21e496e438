import Foundation
import SnapCore

extension StationConfig {
    /// The zone the daily limits follow.
    public var resolvedTimeZone: TimeZone {
        station.timeZone.isEmpty ? .current : TimeZone(identifier: station.timeZone) ?? .current
    }

    /// What the state machine needs from the config. `aiConfigured` says whether an API key was found.
    public func stationSettings(aiConfigured: Bool) -> StationSettings {
        var settings = StationSettings(
            timeZone: resolvedTimeZone, defaultMode: station.defaultMode,
            groups: group.names, countdownSeconds: countdown.seconds,
            flash: countdown.flash && gpio.ledLine != nil, groupReviewSeconds: group.reviewSeconds,
            mealAutoSaveSeconds: ai.autoSaveSeconds, aiConfigured: aiConfigured, aiDailyLimit: ai.dailyLimit,
            dietaryPreferences: Set(ai.dietary),
            idleAfter: display.idleSeconds > 0 ? .seconds(display.idleSeconds) : nil,
            slideDuration: .seconds(display.slideSeconds), ownersPage: web.enabled,
            jarDays: jar.enabled ? jar.days.count : 0)
        settings.cameraNames = camera.all.map(\.name)
        settings.nightHours = NightHours(display.nightHours)
        settings.hasFlash = gpio.ledLine != nil && gpio.backend != .none
        settings.lockedSettings = Set(web.locked.compactMap(RuntimeSettings.Key.init(rawValue:)))
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
