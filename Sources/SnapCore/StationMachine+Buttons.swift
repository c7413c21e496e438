extension StationMachine {
    mutating func handle(_ gesture: ButtonGesture, now: Instant) -> [Action] {
        if let actions = questionGesture(gesture, now: now) { return actions }
        if gesture == .pairHold { return pairHold(now: now) }
        if case .pairing(let pairing, _, _) = phase {
            switch gesture {
            case .press: return enterResting(now: now, also: [.log(.info, "pairing screen closed")])
            case .hold:
                pairedBrowsers = 0
                return transition(
                    to: .pairing(pairing, note: .forgotten), now: now,
                    also: [.forgetPairedBrowsers, .log(.notice, "every paired browser forgotten, at the station")])
            case .mode, .pairHold: return []
            }
        }
        if case .menu(let entry) = phase { return menuGesture(gesture, entry: entry, now: now) }
        if case .week = phase { return weekGesture(gesture, now: now) }
        if let actions = jarGesture(gesture, now: now) { return actions }
        if let actions = pickGesture(gesture, now: now) { return actions }
        if gesture == .mode { return phase.isCalm ? toggleMode(now: now, throughMenu: true) : [] }
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
            return transition(
                to: .analysing(photo), now: now,
                also: [.analyse(photo, day: today(now), person: pickedPerson(now: now))])
        // A press asks again (the share may have been raised on the page); a hold lets the photo go.
        case .problem(.shareUsed, let photo?):
            return press
                ? use(photo, now: now)
                : enterResting(now: now, also: [.log(.info, "\(photo.id) not analysed: the share was used")])
        case .problem(.aiFailed(.notConfigured), _) where !press:
            return toggleMode(now: now)
        // The question's screens answer their buttons first (`questionGesture`).
        case .problem(.cameraMissing, _), .pairing, .menu, .week, .asking, .answered:
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
        // A queued answer is its own person's; a fresh one the picked person's.
        let person = reviewPerson(of: photo.id) ?? personSaving(now: now)
        let meal = Meal(photo: photo, day: day, analysis: analysis, person: person)
        meals.append(meal)
        reviews.removeAll { $0.photo.id == photo.id }
        record(meal.day)
        return enterResting(now: now, also: [.saveMeal(meal)])
    }

    /// A timer the phase started ran out; one the phase no longer has (it moved on) changes nothing.
    mutating func timerFired(_ id: TimerID, now: Instant) -> [Action] {
        switch id {
        case .countdown:
            guard case .countdown(let left) = phase else { return [] }
            return transition(to: left > 1 ? .countdown(secondsLeft: left - 1) : .capturing, now: now)
        case .groupReview:
            guard case .groupReview(let photo, let left) = phase else { return [] }
            return left > 1
                ? transition(to: .groupReview(photo, secondsLeft: left - 1), now: now) : share(photo, now: now)
        case .mealAutoSave:
            guard case .mealResult(let photo, let analysis, let day, let left) = phase else { return [] }
            return left > 1
                ? transition(to: .mealResult(photo, analysis, day: day, secondsLeft: left - 1), now: now)
                : saveMeal(photo, analysis, day: day, now: now)
        case .sentLinger:
            guard case .sent = phase else { return [] }
            return enterResting(now: now)
        case .problemDismiss:
            guard case .problem = phase else { return [] }
            return enterResting(now: now)
        case .menu:
            guard case .menu = phase else { return [] }
            return enterResting(now: now, also: [.log(.info, "settings menu closed (nobody touched it)")])
        case .week:
            guard case .week = phase else { return [] }
            return enterResting(now: now)
        case .resetConfirm:
            return questionTick(now: now)
        case .photoDue:
            return photoDue(now: now)
        case .readyChange:
            guard case .ready = phase else { return [] }
            if let deadline = jarDetailDeadline, now.uptime >= deadline {
                return transition(to: .ready(), now: now)
            }
            // The quiet hours started or ended: the screen dims or lights, and the idle time starts again.
            if isQuiet(now) != dimmed { return transition(to: .ready(), now: now) }
            // The pick ran out: the owner's day again.
            if let until = picked?.until, household.isShared, now.uptime >= until {
                picked = nil
                return transition(to: phase, now: now)
            }
            // Midnight, or nobody pressed for the idle time (the earlier of the two was set).
            guard readyDay == today(now), settings.idleAfter != nil else { return enterResting(now: now) }
            slideShownAt = now.uptime
            return transition(to: .idle, now: now)
        case .slideshow:
            guard case .idle = phase else { return [] }
            nextSlide(now: now)
            return transition(to: .idle, now: now)
        case .pairing:
            guard case .pairing(let pairing, _, let closesAt) = phase else { return [] }
            let closed = closesAt.map { now.uptime >= $0 } ?? false
            if closed || (pairing.map { now.wall >= $0.expiresAt } ?? false) { return enterResting(now: now) }
            return transition(to: phase, now: now)
        case .lockTick:
            guard case .locked = phase else { return [] }
            if now.uptime - slideShownAt >= settings.slideDuration { nextSlide(now: now) }
            return enterResting(now: now)
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
        // From a calm screen or a problem: never over a photo on its way.
        switch phase {
        case .ready, .idle, .locked, .problem:
            if let undo = undoMode, now.uptime - undo.at < .seconds(10) {
                (mode, groupIndex) = (undo.mode, undo.groupIndex)
            }
            undoMode = nil
            return transition(
                to: .pairing(nil, note: .none), now: now,
                also: [.openPairing, .log(.info, "pairing screen opened at the station")])
        case .countdown, .capturing, .processing, .retake, .analysing, .mealResult, .groupReview, .uploading, .sent,
            .pairing, .menu, .week, .asking, .answered:
            return []
        }
    }
}
