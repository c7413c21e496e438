import Foundation

extension StationMachine {
    /// The station's local day: the wall clock's day, but never earlier than the last day it recorded a
    /// send, an analysis or a meal for. A clock that jumps backwards (a Pi without a real-time clock
    /// before NTP) therefore cannot reopen a day that is already used.
    func today(_ now: Instant) -> LocalDay {
        let wallDay = LocalDay(containing: now.wall, in: settings.timeZone)
        guard let recordedDay else { return wallDay }
        return max(wallDay, recordedDay)
    }

    mutating func record(_ day: LocalDay) {
        recordedDay = max(recordedDay ?? day, day)
    }

    func analysesLeft(_ now: Instant) -> Int {
        max(0, settings.aiDailyLimit - (aiUses[today(now)] ?? 0))
    }

    func groupPhotoTaken(_ now: Instant) -> Bool {
        groupSendDays.contains(today(now))
    }

    func todaysMeals(_ now: Instant) -> [Meal] {
        let day = today(now)
        return meals.filter { $0.day == day }
    }

    /// Time until the end of the station's day, or nil while the wall clock is behind that day.
    func lockRemaining(_ now: Instant) -> Duration? {
        let day = today(now)
        guard LocalDay(containing: now.wall, in: settings.timeZone) == day else { return nil }
        return DailyLimit.remaining(from: now.wall, untilEndOf: day, in: settings.timeZone)
    }

    func untilMidnight(now: Instant) -> Duration {
        DailyLimit.remaining(from: now.wall, untilEndOf: today(now), in: settings.timeZone)
    }

    /// The resting phase for the current mode: ready, or a lock screen, or the camera error.
    mutating func enterIdle(now: Instant, also extra: [Action] = []) -> [Action] {
        let day = today(now)
        meals.removeAll { $0.day < day }
        if let detail = missingDevices[.camera] {
            return transition(to: .problem(.cameraMissing(detail), photo: nil), now: now, also: extra)
        }
        switch mode {
        case .group where groupPhotoTaken(now):
            return transition(to: .locked(.group(settings.groupName ?? "")), now: now, also: extra)
        case .meal where settings.aiConfigured && analysesLeft(now) == 0:
            return transition(to: .locked(.aiLimit), now: now, also: extra)
        default:
            return transition(to: .ready, now: now, also: extra)
        }
    }

    mutating func toggleMode(now: Instant) -> [Action] {
        guard settings.groupName != nil else {
            return enterIdle(now: now, also: [.log(.notice, "mode stays meal: no group is configured")])
        }
        mode = mode == .meal ? .group : .meal
        return enterIdle(now: now, also: [.log(.info, "mode switched to \(mode.rawValue)")])
    }
}
