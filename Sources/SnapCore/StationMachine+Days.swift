import Foundation

extension StationMachine {
    /// The station's local day (`StationDay`): the wall clock's, never before a day already used.
    func today(_ now: Instant) -> LocalDay { stationDay.today(at: now.wall) }

    mutating func record(_ recorded: LocalDay) { stationDay.record(recorded) }

    /// One answer of the AI service (a meal, a refusal or an unreadable answer: each was a request the
    /// service served) counted against today's limit and `person`'s share, as the store counted it.
    mutating func countAnswer(for person: PersonID, now: Instant) {
        let day = today(now)
        aiUses[day, default: 0] += 1
        personUses[day, default: [:]][person, default: 0] += 1
        record(day)
    }

    /// The person with a share of the day's analyses who has used it: nil for anyone else.
    func shareSpent(_ person: PersonID, now: Instant) -> Person? {
        let used = personUses[today(now)]?[person] ?? 0
        return household.shareLeft(of: person, used: used) == 0 ? household.person(person) : nil
    }

    /// Today's analyses against `ai.daily_limit`.
    func budget(_ now: Instant) -> DailyBudget {
        DailyBudget(limit: settings.aiDailyLimit, used: aiUses[today(now)] ?? 0)
    }

    /// The group the next photo goes to: nil in meal mode or without groups.
    public var activeGroup: String? {
        let groups = inForce.groups
        guard mode == .group, groups.indices.contains(groupIndex) else { return nil }
        return groups[groupIndex]
    }

    func groupPhotoTaken(_ now: Instant) -> Bool {
        guard let group = activeGroup else { return false }
        return groupSends[group]?.contains(today(now)) ?? false
    }

    func todaysMeals(_ now: Instant) -> [Meal] {
        let day = today(now)
        return meals.filter { $0.day == day }
    }

    /// Time until the end of the station's day, or nil while the wall clock is behind that day.
    func lockRemaining(_ now: Instant) -> Duration? {
        guard !stationDay.clockIsBehind(at: now.wall) else { return nil }
        return DailyLimit.remaining(from: now.wall, untilEndOf: today(now), in: settings.timeZone)
    }

    /// Whether the night hours (`settings.nightHours`) hold at `now`, local time.
    func isNight(_ now: Instant) -> Bool {
        guard let night = settings.nightHours else { return false }
        return night.contains(minute: minuteOfDay(now))
    }

    /// Whether the owner's quiet hours hold at `now`, local time: no flash, a dimmed display.
    func isQuiet(_ now: Instant) -> Bool {
        inForce.quietHours.hours != nil && inForce.isQuiet(minute: minuteOfDay(now))
    }

    /// Time until `hours` (the night hours, the quiet hours) start or end, by the local clock (daylight
    /// saving included); two days without them.
    func until(edgeOf hours: NightHours?, _ now: Instant) -> Duration {
        guard let hours, let edge = hours.nextEdge(after: now.wall, in: Calendar.gregorian(in: settings.timeZone))
        else { return .seconds(86_400 * 2) }
        return until(edge, now)
    }

    /// Time until the wall clock reaches `date`, at least a millisecond (a timer set for it fires after it).
    func until(_ date: Date, _ now: Instant) -> Duration {
        .milliseconds(Int64((max(0.001, date.timeIntervalSince(now.wall)) * 1000).rounded(.up)))
    }

    func minuteOfDay(_ now: Instant) -> Int {
        let time = Calendar.gregorian(in: settings.timeZone).dateComponents([.hour, .minute], from: now.wall)
        return (time.hour ?? 0) * 60 + (time.minute ?? 0)
    }

    /// Until the wall clock's next minute, when the idle screen's clock changes (every time zone in use
    /// is a whole number of minutes from UTC).
    func untilNextMinute(_ now: Instant) -> Duration {
        let left = 60 - now.wall.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        return .milliseconds(Int64((left * 1000).rounded(.up)))
    }

    func untilMidnight(now: Instant) -> Duration {
        DailyLimit.remaining(from: now.wall, untilEndOf: today(now), in: settings.timeZone)
    }

    /// The resting phase for the current mode: ready, or a lock screen, or the camera error.
    mutating func enterResting(now: Instant, also extra: [Action] = []) -> [Action] {
        let day = today(now)
        let first = keptFirstDay(now)
        meals.removeAll { $0.day < first }
        if let review = reviews.first {
            // An answer nobody has seen yet comes first: saved or discarded, never saved unseen.
            let seconds = max(1, settings.mealAutoSaveSeconds)
            return transition(
                to: .mealResult(review.photo, review.analysis, day: review.day, secondsLeft: seconds), now: now,
                also: extra)
        }
        if let detail = missingDevices[.camera] {
            return transition(to: .problem(.cameraMissing(detail), photo: nil), now: now, also: extra)
        }
        switch mode {
        case .group where groupPhotoTaken(now):
            return transition(to: .locked(.group(activeGroup ?? "")), now: now, also: extra)
        case .meal where settings.aiConfigured && budget(now).isSpent:
            return transition(to: .locked(.aiLimit), now: now, also: extra)
        case .group, .meal:
            readyDay = day
            // Resting again on the ready screen keeps a sticker's details up (a device back, a setting).
            return transition(to: .ready(jar: jarFocus), now: now, also: extra)
        }
    }

    /// The next mode: meal, then each group in turn, then meal again. The mode button (`throughMenu`)
    /// goes through the settings menu after the last one, when it has anything to offer; a hold of the
    /// shutter skips it.
    mutating func toggleMode(now: Instant, throughMenu: Bool = false) -> [Action] {
        let groups = inForce.groups
        let last = groups.isEmpty || (mode == .group && groupIndex + 1 >= groups.count)
        if throughMenu && last { return transition(to: .week, now: now) }
        guard !groups.isEmpty else {
            return enterResting(now: now, also: [.log(.notice, "mode stays meal: no group is configured")])
        }
        undoMode = (mode, groupIndex, now.uptime)
        switch mode {
        case .meal:
            mode = .group
            groupIndex = 0
        case .group where groupIndex + 1 < groups.count:
            groupIndex += 1
        case .group:
            mode = .meal
        }
        slideIndex = 0
        let name = activeGroup.map { "group \($0)" } ?? mode.rawValue
        return enterResting(now: now, also: [.log(.info, "mode switched to \(name)")])
    }

    /// The active group's photos in the slideshow, oldest first.
    func slideshow(now: Instant) -> [SharedPhoto] {
        guard let group = activeGroup else { return [] }
        return inbox.filter { $0.group == group && $0.expiresAt > now.wall }
    }

    /// The slide showing now, if the active group has photos.
    func currentSlide(now: Instant) -> Slide? {
        let photos = slideshow(now: now)
        guard !photos.isEmpty else { return nil }
        let index = slideIndex % photos.count
        let photo = photos[index]
        let age = Duration.seconds(max(0, now.wall.timeIntervalSince(photo.takenAt)).rounded(.down))
        return Slide(photo: photo, age: age, index: index, count: photos.count)
    }

    /// Moves the slideshow on by one photo.
    mutating func nextSlide(now: Instant) {
        slideIndex = (slideIndex + 1) % max(1, slideshow(now: now).count)
        slideShownAt = now.uptime
    }
}
