extension StationMachine {
    // The results of the work the shell did for an action (capture, pipeline, analysis, upload, storage),
    // each for the phase that asked for it; in any other phase it came too late and changes nothing.

    mutating func captured(_ id: PhotoID, now: Instant) -> [Action] {
        guard case .capturing = phase else { return [] }
        return transition(to: .processing(id), now: now, also: [.process(id, sticker: mode == .meal)])
    }

    mutating func captureFailed(_ reason: String, now: Instant) -> [Action] {
        guard case .capturing = phase else { return [] }
        return transition(
            to: .problem(.captureFailed(reason), photo: nil), now: now,
            also: [.log(.error, "capture failed: \(reason)")])
    }

    mutating func processed(_ photo: ProcessedPhoto, now: Instant) -> [Action] {
        guard case .processing(let id) = phase, photo.id == id else { return [] }
        guard photo.quality == .good else {
            return transition(
                to: .retake(photo), now: now,
                also: [.log(.notice, "quality gate: \(photo.id) is \(photo.quality.rawValue)")])
        }
        return use(photo, now: now)
    }

    mutating func processingFailed(_ id: PhotoID, _ reason: String, now: Instant) -> [Action] {
        guard case .processing(let current) = phase, id == current else { return [] }
        return transition(
            to: .problem(.processingFailed(reason), photo: nil), now: now,
            also: [.log(.error, "processing \(id) failed: \(reason)")])
    }

    mutating func analysed(_ id: PhotoID, _ analysis: MealAnalysis, now: Instant) -> [Action] {
        guard case .analysing(let photo) = phase, photo.id == id else { return [] }
        let day = today(now)
        countAnswer(for: pickedPerson(now: now), now: now)
        let seconds = max(1, settings.mealAutoSaveSeconds)
        return transition(to: .mealResult(photo, analysis, day: day, secondsLeft: seconds), now: now)
    }

    mutating func analysisFailed(_ id: PhotoID, _ failure: AIFailure, now: Instant) -> [Action] {
        guard case .analysing(let photo) = phase, photo.id == id else { return [] }
        if failure.waitsInQueue {
            return transition(
                to: .problem(.analysisQueued, photo: photo), now: now,
                also: [
                    .queueAnalysis(photo, day: today(now), person: pickedPerson(now: now)),
                    .log(.warning, "\(failure.message): \(id) queued for analysis"),
                ])
        }
        if failure.cameFromAnAnswer { countAnswer(for: pickedPerson(now: now), now: now) }
        let told = Notice.tells(failure) ? notify(.aiRefused(failure), now: now) : []
        return transition(
            to: .problem(.aiFailed(failure), photo: photo), now: now,
            also: [.log(.warning, "analysis of \(id) failed: \(failure.message)")] + told)
    }

    mutating func uploadProgress(_ id: PhotoID, _ progress: Double, now: Instant) -> [Action] {
        guard case .uploading(let photo, _) = phase, photo.id == id else { return [] }
        return transition(to: .uploading(photo, progress: min(1, max(0, progress))), now: now)
    }

    /// The photo on screen went, or one from the queue did.
    mutating func uploaded(_ id: PhotoID, now: Instant) -> [Action] {
        guard case .uploading(let photo, _) = phase, photo.id == id else {
            return [.log(.info, "queued photo \(id) delivered")]
        }
        return transition(to: .sent, now: now)
    }

    mutating func uploadFailed(_ id: PhotoID, _ failure: UploadFailure, now: Instant) -> [Action] {
        guard case .uploading(let photo, _) = phase, photo.id == id else {
            return [.log(.warning, "queued photo \(id) not delivered: \(failure)")]
        }
        return uploadFailed(photo, failure, now: now)
    }

    mutating func storageFailed(_ failure: StorageFailure, now: Instant) -> [Action] {
        let kind: ProblemScreen.Kind =
            switch failure {
            case .full: .storageFull
            case .failed(let reason): .storageFailed(reason)
            }
        let told = failure == .full ? notify(.storageFull, now: now) : []
        return transition(
            to: .problem(kind, photo: nil), now: now, also: [.log(.error, "storage failed: \(failure)")] + told)
    }

    // What the station learns from elsewhere: the analysis queue, the owner's page, the group, an update.

    /// An answer of the queue's: shown when the station is calm, after what is in front of someone.
    mutating func analysisAnswered(_ review: MealReview, now: Instant) -> [Action] {
        // Counted for the person it was asked for, as the store counted it.
        countAnswer(for: review.person, now: now)
        guard !reviews.contains(where: { $0.photo.id == review.photo.id }) else { return [] }
        reviews.append(review)
        let answered: Action = .log(.info, "queued analysis of \(review.photo.id) answered: \(review.analysis.title)")
        return phase.isCalm ? enterResting(now: now, also: [answered]) : [answered]
    }

    /// The code the page opened, for the pairing screen.
    mutating func pairingOpened(_ pairing: Pairing, now: Instant) -> [Action] {
        guard case .pairing(_, let note, let closesAt) = phase else { return [] }
        return transition(to: .pairing(pairing, note: note, closesAt: closesAt), now: now)
    }

    mutating func paired(_ name: String, now: Instant) -> [Action] {
        pairedBrowsers += 1
        guard case .pairing(let pairing, _, _) = phase else { return [.log(.notice, "paired \(name)")] }
        return transition(
            to: .pairing(pairing, note: .paired(name), closesAt: now.uptime + .seconds(3)), now: now,
            also: [.log(.notice, "paired \(name)")])
    }

    mutating func browsersForgotten(left: Int, now: Instant) -> [Action] {
        pairedBrowsers = left
        if case .ready = phase { return transition(to: phase, now: now) }
        return []
    }

    mutating func answeredForThePage(on day: LocalDay, for person: PersonID, now: Instant) -> [Action] {
        aiUses[day, default: 0] += 1
        personUses[day, default: [:]][person, default: 0] += 1
        record(day)
        // At rest, the station rests again: the last of today's analyses spent on the page locks meal mode.
        if case .ready = phase { return enterResting(now: now) }
        return []
    }

    mutating func mealsChanged(on day: LocalDay, _ changed: [Meal], now: Instant) -> [Action] {
        // Today's meals count on the ready screen; the jar may hold the week's.
        guard day >= keptFirstDay(now), day <= today(now) else { return [] }
        meals = (meals.filter { $0.day != day } + changed.filter { $0.day == day }).sorted {
            $0.photo.takenAt < $1.photo.takenAt
        }
        if case .ready = phase { return transition(to: phase, now: now) }
        return []
    }

    /// The result on screen, saved (edited) or discarded (nil) from the owner's page.
    mutating func reviewSubmitted(_ id: PhotoID, _ edited: MealAnalysis?, now: Instant) -> [Action] {
        guard case .mealResult(let photo, _, let day, _) = phase, photo.id == id else { return [] }
        guard let edited else {
            reviews.removeAll { $0.photo.id == id }
            return enterResting(
                now: now, also: [.discardMeal(id), .log(.info, "meal \(id) discarded from the owner's page")])
        }
        return saveMeal(photo, edited, day: day, now: now)
    }

    mutating func updated(_ note: UpdateNote?, now: Instant) -> [Action] {
        // Another update (or none) may need its own restart: the one asked for was for the old note.
        if note != update { restartAsked = false }
        let told = noticesOfUpdate(note, now: now)
        update = note
        if case .ready = phase { return transition(to: phase, now: now, also: told) }
        return told + restartWhenCalm()
    }

    /// The others' photos changed: the screens that show them show them again.
    mutating func inboxChanged(_ photos: [SharedPhoto], now: Instant) -> [Action] {
        let told = noticesOfShared(photos, now: now)
        inbox = photos.sorted { $0.takenAt < $1.takenAt }
        return phase.showsTheInbox ? transition(to: phase, now: now, also: told) : told
    }

    /// Goes on with a processed photo: analyse it, or show it for review before it is shared.
    mutating func use(_ photo: ProcessedPhoto, now: Instant) -> [Action] {
        switch mode {
        case .meal:
            let person = pickedPerson(now: now)
            if let spent = shareSpent(person, now: now) {
                return transition(
                    to: .problem(.shareUsed(spent), photo: photo), now: now,
                    also: [.log(.notice, "\(person)'s share of today's analyses is used: \(photo.id) waits")])
            }
            return transition(to: .analysing(photo), now: now, also: [.analyse(photo, day: today(now), person: person)])
        case .group:
            return transition(to: .groupReview(photo, secondsLeft: max(1, settings.groupReviewSeconds)), now: now)
        }
    }

    private mutating func uploadFailed(_ photo: ProcessedPhoto, _ failure: UploadFailure, now: Instant) -> [Action] {
        let group = activeGroup ?? ""
        switch failure {
        case .offline:
            return transition(
                to: .problem(.networkDown(group: group), photo: photo), now: now,
                also: [.log(.warning, "offline: \(photo.id) saved and queued for \(group)")])
        case .untrusted(let reason):
            return transition(
                to: .problem(.untrustedServer(group: group), photo: photo), now: now,
                also: [.log(.warning, "the server of \(group) could not be verified (\(reason)): \(photo.id) waits")])
        case .signInFailed(let reason):
            return transition(
                to: .problem(.signInFailed(group: group, reason: reason), photo: photo), now: now,
                also: [.log(.warning, "group sign-in failed: \(reason): \(photo.id) waits for \(group)")])
        case .destinationFull:
            return transition(
                to: .problem(.destinationFull(group: group), photo: photo), now: now,
                also: [.log(.warning, "the folder of \(group) is full: \(photo.id) waits for space")])
        case .alreadySentToday:
            return enterResting(now: now, also: [.log(.notice, "the server already has today's photo for \(group)")])
        case .rejected(let reason):
            let day = today(now)
            groupSends[group]?.remove(day)
            return transition(
                to: .problem(.uploadRejected(reason), photo: photo), now: now,
                also: [
                    .releaseGroupDay(day, group: group), .log(.error, "upload of \(photo.id) rejected: \(reason)"),
                ])
        }
    }

    mutating func deviceChanged(_ kind: DeviceKind, _ status: DeviceStatus, now: Instant) -> [Action] {
        let log: Action
        switch status {
        case .available:
            guard missingDevices.removeValue(forKey: kind) != nil else { return [] }
            log = .log(.notice, "\(kind.rawValue) is back")
        case .missing(let detail):
            guard missingDevices[kind] != detail else { return [] }
            missingDevices[kind] = detail
            log = .log(.error, "\(kind.rawValue) missing: \(detail)")
        }
        switch phase {
        case .ready, .countdown, .locked, .idle, .problem(.cameraMissing, _):
            return enterResting(now: now, also: [log])
        case .capturing where kind == .camera:
            return transition(
                to: .problem(.cameraMissing(missingDevices[.camera] ?? ""), photo: nil), now: now, also: [log])
        // What is under way finishes; the resting screen that follows shows what is missing.
        case .capturing, .processing, .retake, .analysing, .mealResult, .groupReview, .uploading, .sent, .problem,
            .pairing, .menu, .week, .asking, .answered:
            return [log]
        }
    }
}

extension StationMachine {
    /// The owner's settings over the config's, as the rule resolves them: the machine's own (dietary
    /// flags, countdown, flash, mode) at once, the shell's (filter, dietary preferences for the AI)
    /// through `.applySettings`, the camera through `.useCamera`.
    mutating func apply(_ change: SettingsChange, now: Instant) -> [Action] {
        let before = inForce
        let group = activeGroup
        let store = keep(change)
        let after = inForce
        var actions: [Action] = [store, .applySettings(after), .log(.info, "owner's settings: \(owner.summary)")]
        if after.camera != before.camera { actions.append(.useCamera(after.camera)) }
        // The settings form's time zone or AI service (other than the station started with, also after a
        // walk-through left halfway) restarts the station; a walk-through's step waits for its end
        // (`Event.startChanged`), so that the page stays up between its steps.
        let atStart = after.startsDifferently(from: started)
        if case .form = change, !atStart.isEmpty {
            actions += [.log(.notice, "\(atStart.map(\.rawValue).joined(separator: ", ")) changed on the owner's page")]
            actions += startChanged()
        }
        if case .form(_, let wanted?) = change, wanted != mode, after.modes.contains(wanted) {
            mode = wanted
            groupIndex = 0
            actions.append(.log(.info, "mode switched to \(wanted.rawValue) on the owner's page"))
        } else if after.groups != before.groups {
            // Groups joined or left on the page: the same group stays active where it still is.
            groupIndex = group.flatMap { after.groups.firstIndex(of: $0) } ?? 0
            if mode == .group && after.groups.isEmpty {
                mode = .meal
                actions.append(.log(.info, "mode switched to meal: the station is in no group now"))
            }
            // A photo on its way to the group just left goes nowhere else: it stays on the station.
            if case .groupReview(let photo, _) = phase, let group, !after.groups.contains(group) {
                actions.append(.log(.notice, "sharing of \(photo.id) cancelled: the station left \(group)"))
                return enterResting(now: now, also: actions)
            }
        }
        if after.notices != before.notices { actions += remindingOfThePhoto(now: now) }
        return phase.isCalm ? enterResting(now: now, also: actions) : actions
    }

    /// Makes `change` over the owner's settings the machine holds (a locked one stays the config's), and
    /// stores the result: the one place the owner's settings are written.
    mutating func keep(_ change: SettingsChange) -> Action {
        owner = settings.owner.kept(owner.changed(by: change, groups: inForce.groups))
        inForce = settings.owner.inForce(owner)
        return .storeSettings(owner)
    }
}
