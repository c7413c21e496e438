extension StationMachine {
    mutating func handle(_ gesture: ButtonGesture, now: Instant) -> [Action] {
        if gesture == .pairHold { return pairHold(now: now) }
        if case .pairing(let pairing, _, _) = phase {
            switch gesture {
            case .press: return enterResting(now: now, also: [.log(.info, "pairing screen closed")])
            case .hold:
                return transition(
                    to: .pairing(pairing, note: .forgotten), now: now,
                    also: [.forgetPairedBrowsers, .log(.notice, "every paired browser forgotten, at the station")])
            default: return []
            }
        }
        if case .menu(let entry) = phase { return menuGesture(gesture, entry: entry, now: now) }
        if case .week = phase { return weekGesture(gesture, now: now) }
        if let actions = jarGesture(gesture, now: now) { return actions }
        if gesture == .mode {
            switch phase {
            case .ready, .locked, .idle: return toggleMode(now: now, throughMenu: true)
            default: return []
            }
        }
        let press = gesture == .press
        switch phase {
        case .ready, .idle:
            // A press on the idle screen is not lost to waking it: the countdown starts at once.
            return press ? startCountdown(now: now) : toggleMode(now: now)
        case .locked(.group) where press && slideshow(now: now).count > 1:
            nextSlide(now: now)
            return transition(to: phase, now: now)
        case .locked:
            return press ? enterResting(now: now) : toggleMode(now: now)
        case .countdown:
            return press ? [] : enterResting(now: now, also: [.log(.info, "countdown cancelled")])
        case .capturing, .sent, .uploading:
            return []
        case .processing(let id):
            return press ? [] : enterResting(now: now, also: [.log(.info, "processing of \(id) cancelled")])
        case .retake(let photo):
            return press
                ? startCountdown(now: now, also: [.log(.info, "retake instead of \(photo.id)")])
                : use(photo, now: now)
        case .analysing(let photo):
            return press
                ? []
                : enterResting(
                    now: now, also: [.cancelAnalysis(photo.id), .log(.info, "analysis of \(photo.id) cancelled")])
        case .mealResult(let photo, let analysis, let day, _):
            if press { return saveMeal(photo, analysis, day: day, now: now) }
            reviews.removeAll { $0.photo.id == photo.id }
            return enterResting(now: now, also: [.discardMeal(photo.id), .log(.info, "meal \(photo.id) discarded")])
        case .groupReview(let photo, _):
            return press
                ? startCountdown(now: now, also: [.log(.info, "retake instead of \(photo.id)")])
                : enterResting(now: now, also: [.log(.info, "sharing of \(photo.id) cancelled")])
        case .problem(.aiFailed(let failure), let photo?) where press && failure != .notConfigured:
            return transition(to: .analysing(photo), now: now, also: [.analyse(photo, day: today(now))])
        case .problem(.aiFailed(.notConfigured), _) where !press:
            return toggleMode(now: now)
        case .problem(.cameraMissing, _), .pairing, .menu, .week:
            return []
        case .problem:
            return enterResting(now: now)
        }
    }

    mutating func startCountdown(now: Instant, also extra: [Action] = []) -> [Action] {
        if mode == .meal && !settings.aiConfigured {
            return transition(to: .problem(.aiFailed(.notConfigured), photo: nil), now: now, also: extra)
        }
        let seconds = inForce.countdownSeconds
        return transition(to: seconds > 0 ? .countdown(secondsLeft: seconds) : .capturing, now: now, also: extra)
    }

    mutating func saveMeal(_ photo: ProcessedPhoto, _ analysis: MealAnalysis, day: LocalDay, now: Instant)
        -> [Action]
    {
        let meal = Meal(photo: photo, day: day, analysis: analysis)
        meals.append(meal)
        reviews.removeAll { $0.photo.id == photo.id }
        record(meal.day)
        return enterResting(now: now, also: [.saveMeal(meal)])
    }

    mutating func timerFired(_ id: TimerID, now: Instant) -> [Action] {
        switch (id, phase) {
        case (.countdown, .countdown(let left)):
            return transition(to: left > 1 ? .countdown(secondsLeft: left - 1) : .capturing, now: now)
        case (.groupReview, .groupReview(let photo, let left)):
            return left > 1
                ? transition(to: .groupReview(photo, secondsLeft: left - 1), now: now) : share(photo, now: now)
        case (.mealAutoSave, .mealResult(let photo, let analysis, let day, let left)):
            return left > 1
                ? transition(to: .mealResult(photo, analysis, day: day, secondsLeft: left - 1), now: now)
                : saveMeal(photo, analysis, day: day, now: now)
        case (.sentLinger, .sent), (.problemDismiss, .problem):
            return enterResting(now: now)
        case (.menu, .menu):
            return enterResting(now: now, also: [.log(.info, "settings menu closed (nobody touched it)")])
        case (.week, .week):
            return enterResting(now: now)
        case (.readyChange, .ready):
            if let deadline = jarDetailDeadline, now.uptime >= deadline {
                return transition(to: .ready(), now: now)
            }
            // Midnight, or nobody pressed for the idle time (the earlier of the two was set).
            guard readyDay == today(now), settings.idleAfter != nil else { return enterResting(now: now) }
            slideShownAt = now.uptime
            return transition(to: .idle, now: now)
        case (.slideshow, .idle):
            nextSlide(now: now)
            return transition(to: .idle, now: now)
        case (.pairing, .pairing(let pairing, _, let closesAt)):
            let closed = closesAt.map { now.uptime >= $0 } ?? false
            if closed || (pairing.map { now.wall >= $0.expiresAt } ?? false) { return enterResting(now: now) }
            return transition(to: phase, now: now)
        case (.lockTick, .locked):
            if now.uptime - slideShownAt >= settings.slideDuration { nextSlide(now: now) }
            return enterResting(now: now)
        default:
            return []
        }
    }

    mutating func share(_ photo: ProcessedPhoto, now: Instant) -> [Action] {
        let day = today(now)
        let group = activeGroup ?? ""
        groupSends[group, default: []].insert(day)
        record(day)
        return transition(
            to: .uploading(photo, progress: 0), now: now,
            also: [.share(photo, group: group, day: day), .log(.info, "sharing \(photo.id) with \(group) for \(day)")])
    }
}

extension StationMachine {
    /// The button kept down 5 s: the pairing screen, from a resting screen. The hold this press made on
    /// its way (which switched the mode) is taken back.
    mutating func pairHold(now: Instant) -> [Action] {
        guard settings.ownersPage else { return [.log(.notice, "no pairing: the owner's page is off (web.enabled)")] }
        switch phase {
        case .ready, .idle, .locked, .problem:
            if let undo = undoMode, now.uptime - undo.at < .seconds(10) {
                (mode, groupIndex) = (undo.mode, undo.groupIndex)
            }
            undoMode = nil
            return transition(
                to: .pairing(nil, note: .none), now: now,
                also: [.openPairing, .log(.info, "pairing screen opened at the station")])
        default:
            return []
        }
    }
}
