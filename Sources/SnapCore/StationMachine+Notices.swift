import Foundation

/// What the station tells the household's phones (`Notice`): the machine decides, the shell sends.
extension StationMachine {
    /// `notice`, when its kind is on and it was not told already today. A kind the owner turned off is
    /// said in the log, so that what the station did not tell can be seen.
    mutating func notify(_ notice: Notice, now: Instant) -> [Action] {
        let notices = inForce.notices
        guard !notices.address.isEmpty else { return [] }
        guard notices.sends(notice.kind) else {
            return [.log(.info, "not told (notices of kind \(notice.kind.rawValue) are off): \(notice)")]
        }
        let day = today(now)
        guard noticed[notice] != day else { return [] }
        noticed = noticed.filter { $0.value == day }
        noticed[notice] = day
        return [.notify(notice)]
    }

    /// The others' photos that are new in `photos`, each told once.
    mutating func noticesOfShared(_ photos: [SharedPhoto], now: Instant) -> [Action] {
        let known = Set(inbox.map(\.id))
        return photos.filter { !known.contains($0.id) }.sorted { $0.takenAt < $1.takenAt }
            .flatMap { notify(.shared(member: $0.member, group: $0.group), now: now) }
    }

    /// What an update's news tells, when it is new.
    mutating func noticesOfUpdate(_ note: UpdateNote?, now: Instant) -> [Action] {
        guard note != update else { return [] }
        switch note {
        case .restarting(let version): return notify(.updateInstalled(version: version), now: now)
        case .rolledBack(let tried, let running):
            return notify(.updateRolledBack(tried: tried, running: running), now: now)
        case .installing, nil: return []
        }
    }

    /// The reminder's timer, set to the next time its local clock time comes (the time zone's daylight
    /// saving included), or cancelled when there is no reminder.
    mutating func remindingOfThePhoto(now: Instant) -> [Action] {
        guard let minute = inForce.notices.reminder, !inForce.notices.address.isEmpty,
            let next = Calendar.gregorian(in: settings.timeZone).nextDate(
                after: now.wall, matching: DateComponents(hour: minute / 60, minute: minute % 60, second: 0),
                matchingPolicy: .nextTime)
        else {
            guard pendingTimers.removeValue(forKey: .photoDue) != nil else { return [] }
            return [.cancelTimer(.photoDue)]
        }
        let deadline = now.uptime + until(next, now)
        guard pendingTimers[.photoDue] != deadline else { return [] }
        pendingTimers[.photoDue] = deadline
        return [.startTimer(.photoDue, deadline: deadline)]
    }

    /// The reminder's time came: each group without the station's photo of today is told, and the timer
    /// is set for tomorrow.
    mutating func photoDue(now: Instant) -> [Action] {
        pendingTimers[.photoDue] = nil
        let day = today(now)
        let due = inForce.groups.filter { !(groupSends[$0]?.contains(day) ?? false) }
        return due.flatMap { notify(.photoDue(group: $0), now: now) } + remindingOfThePhoto(now: now)
    }
}
