import Foundation
import SnapCore

extension StationConfig {
    /// The settings a backup holds, as the page's checks take them: each value kept only where the page
    /// could have set it (within its range, a group's name the config reader takes, a time zone this
    /// system knows, an email address); the ones that name where a key or a password goes (the AI service,
    /// the home's broker, the notices' address, which often carries a token) are `waiting` instead, off until
    /// the owner confirms them on the page: a backup made or changed by someone else cannot aim the station's
    /// keys and photos elsewhere.
    public static func restorable(_ settings: RuntimeSettings) -> (kept: RuntimeSettings, waiting: RuntimeSettings) {
        var kept = settings.clearing([.aiService, .mqtt, .notices])
        var waiting = RuntimeSettings()
        if let service = settings.aiService, aiAddressProblem(service.baseURL) == nil,
            (1...200).contains(service.model.count), service.model.allSatisfy(isPathSafe)
        {
            waiting.aiService = service
        }
        if let broker = settings.mqtt, broker.address.isEmpty || broker.broker != nil, broker.username.count <= 200 {
            waiting.mqtt = broker
        }
        if let notices = settings.notices,
            notices.address.isEmpty || NoticeSettings.problem(address: notices.address, format: notices.format) == nil,
            notices.reminder.map({ (0..<24 * 60).contains($0) }) != false
        {
            waiting.notices = notices
        }
        if let intensity = kept.intensity, !SettingsInForce.intensityRange.contains(intensity) { kept.intensity = nil }
        if let seconds = kept.countdownSeconds, !SettingsInForce.countdownRange.contains(seconds) {
            kept.countdownSeconds = nil
        }
        if let camera = kept.camera, !(0..<8).contains(camera) { kept.camera = nil }
        if let groups = kept.groups, groups.count > SettingsInForce.maxGroups || !groups.allSatisfy(isGroupName) {
            kept.groups = nil
        }
        if let goals = kept.goals,
            !SettingsInForce.kcalGoalRange.contains(goals.calories)
                || ![goals.protein, goals.carbs, goals.fats].allSatisfy(SettingsInForce.gramsGoalRange.contains)
        {
            kept.goals = nil
        }
        if let zone = kept.timeZone, !zone.isEmpty, TimeZone(identifier: zone) == nil { kept.timeZone = nil }
        if let email = kept.groupEmail, !email.isEmpty, !isEmail(email) { kept.groupEmail = nil }
        return (kept, waiting)
    }

    /// An address an account can have, as the page takes one: something before and after one "@", a dot
    /// after it, at most 254 characters, no spaces or control characters (the server checks the rest).
    public static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return text.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
    }
}
