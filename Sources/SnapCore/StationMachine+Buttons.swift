extension StationMachine {
    mutating func handle(_ gesture: ButtonGesture, now: Instant) -> [Action] {
        if gesture == .mode {
            switch phase {
            case .ready, .locked: return toggleMode(now: now)
            default: return []
            }
        }
        let press = gesture == .press
        switch phase {
        case .ready:
            return press ? startCountdown(now: now) : toggleMode(now: now)
        case .locked:
            return press ? enterIdle(now: now) : toggleMode(now: now)
        case .countdown:
            return press ? [] : enterIdle(now: now, also: [.log(.info, "countdown cancelled")])
        case .capturing, .sent, .uploading:
            return []
        case .processing(let id):
            return press ? [] : enterIdle(now: now, also: [.log(.info, "processing of \(id) cancelled")])
        case .retake(let photo):
            return press
                ? startCountdown(now: now, also: [.log(.info, "retake instead of \(photo.id)")])
                : use(photo, now: now)
        case .analysing(let photo):
            return press
                ? []
                : enterIdle(
                    now: now, also: [.cancelAnalysis(photo.id), .log(.info, "analysis of \(photo.id) cancelled")])
        case .mealResult(let photo, let analysis, _):
            return press
                ? saveMeal(photo, analysis, now: now)
                : enterIdle(now: now, also: [.log(.info, "meal \(photo.id) discarded")])
        case .groupReview(let photo, _):
            return press
                ? startCountdown(now: now, also: [.log(.info, "retake instead of \(photo.id)")])
                : enterIdle(now: now, also: [.log(.info, "sharing of \(photo.id) cancelled")])
        case .problem(.aiFailed(let failure), let photo?) where press && failure != .notConfigured:
            return transition(to: .analysing(photo), now: now, also: [.analyse(photo)])
        case .problem(.aiFailed(.notConfigured), _) where !press:
            return toggleMode(now: now)
        case .problem(.cameraMissing, _):
            return []
        case .problem:
            return enterIdle(now: now)
        }
    }

    mutating func startCountdown(now: Instant, also extra: [Action] = []) -> [Action] {
        if mode == .meal && !settings.aiConfigured {
            return transition(to: .problem(.aiFailed(.notConfigured), photo: nil), now: now, also: extra)
        }
        let seconds = settings.countdownSeconds
        return transition(to: seconds > 0 ? .countdown(secondsLeft: seconds) : .capturing, now: now, also: extra)
    }

    mutating func saveMeal(_ photo: ProcessedPhoto, _ analysis: MealAnalysis, now: Instant) -> [Action] {
        let meal = Meal(photo: photo, day: today(now), analysis: analysis)
        meals.append(meal)
        record(meal.day)
        return enterIdle(now: now, also: [.saveMeal(meal)])
    }

    mutating func timerFired(_ id: TimerID, now: Instant) -> [Action] {
        switch (id, phase) {
        case (.countdown, .countdown(let left)):
            return transition(to: left > 1 ? .countdown(secondsLeft: left - 1) : .capturing, now: now)
        case (.groupReview, .groupReview(let photo, let left)):
            return left > 1
                ? transition(to: .groupReview(photo, secondsLeft: left - 1), now: now) : share(photo, now: now)
        case (.mealAutoSave, .mealResult(let photo, let analysis, let left)):
            return left > 1
                ? transition(to: .mealResult(photo, analysis, secondsLeft: left - 1), now: now)
                : saveMeal(photo, analysis, now: now)
        case (.sentLinger, .sent), (.problemDismiss, .problem), (.midnight, .ready):
            return enterIdle(now: now)
        case (.lockTick, .locked):
            return enterIdle(now: now)
        default:
            return []
        }
    }

    mutating func share(_ photo: ProcessedPhoto, now: Instant) -> [Action] {
        let day = today(now)
        let group = settings.groupName ?? ""
        groupSendDays.insert(day)
        record(day)
        return transition(
            to: .uploading(photo, progress: 0), now: now,
            also: [.share(photo, group: group, day: day), .log(.info, "sharing \(photo.id) with \(group) for \(day)")])
    }
}
