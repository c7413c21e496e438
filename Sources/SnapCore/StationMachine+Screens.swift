import Foundation

extension StationMachine {
    /// The screen for the current phase at `now`.
    public func screen(now: Instant) -> Screen {
        switch phase {
        case .ready:
            let meals = pickedMeals(now)
            var ready = ReadyScreen(
                mode: mode, groupName: activeGroup,
                totals: meals.reduce(.zero) { $0 + $1.analysis.totals },
                mealThumbnails: meals.map(\.photo.thumbnailPath), groupPhotoAvailable: !groupPhotoTaken(now),
                analysesLeft: budget(now).left,
                missingDevices: DeviceKind.allCases.filter { missingDevices[$0] != nil },
                jar: jarContents(now: now),
                cameras: settings.owner.cameras.count > 1 ? settings.owner.cameras : [], camera: inForce.camera,
                flashOff: !inForce.flash || isQuiet(now), goals: pickedGoals(now))
            ready.person = shownPerson(now: now)
            ready.update = update
            ready.backup = backup
            ready.pairingHint = settings.ownersPage && pairedBrowsers == 0
            return .ready(ready)
        case .countdown(let left):
            return .countdown(
                CountdownScreen(secondsLeft: left, mode: mode, person: mode == .meal ? shownPerson(now: now) : nil))
        case .capturing:
            return .capturing(mode: mode)
        case .processing(let id):
            return .processing(ProcessingScreen(photo: id, stage: .processing))
        case .retake(let photo):
            return .retake(RetakeScreen(photo: photo, mode: mode))
        case .analysing(let photo):
            return .processing(ProcessingScreen(photo: photo.id, stage: .analysing))
        case .mealResult(let photo, let analysis, _, let left):
            let clashes = analysis.items.map { DietaryPreference.clashes(of: $0, with: inForce.dietaryPreferences) }
            return .mealResult(
                MealResultScreen(
                    photo: photo, analysis: analysis, clashes: clashes, autoSaveIn: left,
                    person: shownPerson(of: photo.id, now: now))
            )
        case .groupReview(let photo, let left):
            return .groupReview(GroupReviewScreen(photo: photo, group: activeGroup ?? "", secondsLeft: left))
        case .uploading(let photo, let progress):
            return .uploading(UploadingScreen(photo: photo, group: activeGroup ?? "", progress: progress))
        case .sent:
            return .sent(group: activeGroup ?? "")
        case .locked(let reason):
            let slide = if case .group = reason { currentSlide(now: now) } else { Slide?.none }
            var lock = LockScreen(
                reason: reason, limit: settings.aiDailyLimit, remaining: lockRemaining(now), slide: slide)
            if reason == .aiLimit {
                lock.day = DayResult(
                    totals: pickedMeals(now).reduce(.zero) { $0 + $1.analysis.totals },
                    goals: pickedGoals(now))
            }
            return .locked(lock)
        case .problem(let kind, let photo):
            return .problem(ProblemScreen(kind: kind, photo: photo))
        case .pairing(let pairing, let note, _):
            let remaining = pairing.map { Duration.seconds(max(0, $0.expiresAt.timeIntervalSince(now.wall).rounded())) }
            return .pairing(PairingScreen(pairing: pairing, remaining: remaining, note: note))
        case .menu(let entry):
            return .menu(MenuScreen(entries: menuEntries.map(menuEntry), selected: entry))
        case .week:
            let today = today(now)
            let days = (0..<Self.weekDays).map { today.adding(days: $0 - (Self.weekDays - 1)) }.map { day in
                let logged = meals.filter { $0.day == day }
                return WeekScreen.Day(
                    day: day, totals: logged.isEmpty ? nil : logged.reduce(.zero) { $0 + $1.analysis.totals })
            }
            return .week(WeekScreen(days: days, goals: inForce.goals))
        case .asking(let question, let left):
            return .question(QuestionScreen(question: question, secondsLeft: left))
        case .answered(let question):
            return .question(QuestionScreen(question: question, secondsLeft: nil))
        case .idle:
            let time = Calendar.gregorian(in: settings.timeZone).dateComponents([.hour, .minute], from: now.wall)
            let clock = String(format: "%02d:%02d", time.hour ?? 0, time.minute ?? 0)
            let night = isNight(now)
            return .idle(
                IdleScreen(
                    mode: mode, group: activeGroup, slide: night ? nil : currentSlide(now: now), clock: clock,
                    displayOff: night))
        }
    }
}
