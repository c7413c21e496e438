extension StationMachine {
    /// The screen for the current phase at `now`.
    public func screen(now: Instant) -> Screen {
        switch phase {
        case .ready:
            let meals = todaysMeals(now)
            return .ready(
                ReadyScreen(
                    mode: mode, groupName: settings.groupName,
                    totals: meals.reduce(.zero) { $0 + $1.analysis.totals },
                    mealThumbnails: meals.map(\.photo.thumbnailPath), groupPhotoAvailable: !groupPhotoTaken(now),
                    analysesLeft: analysesLeft(now),
                    missingDevices: DeviceKind.allCases.filter { missingDevices[$0] != nil }))
        case .countdown(let left):
            return .countdown(CountdownScreen(secondsLeft: left, mode: mode))
        case .capturing:
            return .capturing(mode: mode)
        case .processing(let id):
            return .processing(ProcessingScreen(photo: id, stage: .processing))
        case .retake(let photo):
            return .retake(RetakeScreen(photo: photo, mode: mode))
        case .analysing(let photo):
            return .processing(ProcessingScreen(photo: photo.id, stage: .analysing))
        case .mealResult(let photo, let analysis, let left):
            let clashes = analysis.items.map { DietaryPreference.clashes(of: $0, with: settings.dietaryPreferences) }
            return .mealResult(MealResultScreen(photo: photo, analysis: analysis, clashes: clashes, autoSaveIn: left))
        case .groupReview(let photo, let left):
            return .groupReview(GroupReviewScreen(photo: photo, group: settings.groupName ?? "", secondsLeft: left))
        case .uploading(let photo, let progress):
            return .uploading(UploadingScreen(photo: photo, group: settings.groupName ?? "", progress: progress))
        case .sent:
            return .sent(group: settings.groupName ?? "")
        case .locked(let reason):
            return .locked(LockScreen(reason: reason, limit: settings.aiDailyLimit, remaining: lockRemaining(now)))
        case .problem(let kind, let photo):
            return .problem(ProblemScreen(kind: kind, photo: photo))
        }
    }
}
