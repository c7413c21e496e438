extension StationMachine {
    /// Results of the work the shell did for an action: capture, pipeline, analysis, upload, storage.
    mutating func handleResult(_ event: Event, now: Instant) -> [Action] {
        switch (event, phase) {
        case (.captured(let id), .capturing):
            return transition(to: .processing(id), now: now, also: [.process(id, sticker: mode == .meal)])
        case (.captureFailed(let reason), .capturing):
            return transition(
                to: .problem(.captureFailed(reason), photo: nil), now: now,
                also: [.log(.error, "capture failed: \(reason)")])
        case (.processed(let photo), .processing(let id)) where photo.id == id:
            guard photo.quality == .good else {
                return transition(
                    to: .retake(photo), now: now,
                    also: [.log(.notice, "quality gate: \(photo.id) is \(photo.quality.rawValue)")])
            }
            return use(photo, now: now)
        case (.processingFailed(let id, let reason), .processing(let current)) where id == current:
            return transition(
                to: .problem(.processingFailed(reason), photo: nil), now: now,
                also: [.log(.error, "processing \(id) failed: \(reason)")])
        case (.analysed(let id, let analysis), .analysing(let photo)) where photo.id == id:
            let day = today(now)
            countAnswer(now: now)
            let seconds = max(1, settings.mealAutoSaveSeconds)
            return transition(to: .mealResult(photo, analysis, day: day, secondsLeft: seconds), now: now)
        case (.analysisFailed(let id, let failure), .analysing(let photo)) where photo.id == id && failure.waitsInQueue:
            return transition(
                to: .problem(.analysisQueued, photo: photo), now: now,
                also: [
                    .queueAnalysis(photo, day: today(now)),
                    .log(.warning, "\(failure.message): \(id) queued for analysis"),
                ])
        case (.analysisFailed(let id, let failure), .analysing(let photo)) where photo.id == id:
            if failure.cameFromAnAnswer { countAnswer(now: now) }
            return transition(
                to: .problem(.aiFailed(failure), photo: photo), now: now,
                also: [.log(.warning, "analysis of \(id) failed: \(failure.message)")])
        case (.uploadProgress(let id, let progress), .uploading(let photo, _)) where photo.id == id:
            return transition(to: .uploading(photo, progress: min(1, max(0, progress))), now: now)
        case (.uploaded(let id), .uploading(let photo, _)) where photo.id == id:
            return transition(to: .sent, now: now)
        case (.uploadFailed(let id, let failure), .uploading(let photo, _)) where photo.id == id:
            return uploadFailed(photo, failure, now: now)
        case (.storageFailed(let failure), _):
            let kind: ProblemScreen.Kind =
                switch failure {
                case .full: .storageFull
                case .failed(let reason): .storageFailed(reason)
                }
            return transition(
                to: .problem(kind, photo: nil), now: now, also: [.log(.error, "storage failed: \(failure)")])
        case (.analysisAnswered(let review), _):
            countAnswer(now: now)
            guard !reviews.contains(where: { $0.photo.id == review.photo.id }) else { return [] }
            reviews.append(review)
            let answered: Action = .log(
                .info, "queued analysis of \(review.photo.id) answered: \(review.analysis.title)")
            switch phase {
            case .ready, .idle, .locked: return enterResting(now: now, also: [answered])
            default: return [answered]
            }
        // The code the page opened, for the screen.
        case (.pairingOpened(let pairing), .pairing(_, let note, let closesAt)):
            return transition(to: .pairing(pairing, note: note, closesAt: closesAt), now: now)
        case (.paired(let name), .pairing(let pairing, _, _)):
            return transition(
                to: .pairing(pairing, note: .paired(name), closesAt: now.uptime + .seconds(3)), now: now,
                also: [.log(.notice, "paired \(name)")])
        case (.paired(let name), _):
            return [.log(.notice, "paired \(name)")]
        case (.settingsChanged(let changed), _):
            return apply(changed, now: now)
        case (.analysisRetryAsked(let id), _):
            return [.resumeAnalyses, .log(.info, "the AI is asked again about \(id) (the owner's page)")]
        case (.answeredForThePage(let day), _):
            aiUses[day, default: 0] += 1
            record(day)
            // At rest, the station rests again: the last of today's analyses spent on the page locks meal mode.
            if case .ready = phase { return enterResting(now: now) }
            return []
        case (.mealsChanged(let day, let changed), _):
            // Today's meals count on the ready screen; the jar may hold the week's.
            guard day >= keptFirstDay(now), day <= today(now) else { return [] }
            meals = (meals.filter { $0.day != day } + changed.filter { $0.day == day }).sorted {
                $0.photo.takenAt < $1.photo.takenAt
            }
            if case .ready = phase { return transition(to: phase, now: now) }
            return []
        case (.reviewSubmitted(let id, let edited), .mealResult(let photo, _, let day, _)) where photo.id == id:
            guard let edited else {
                reviews.removeAll { $0.photo.id == id }
                return enterResting(
                    now: now, also: [.discardMeal(id), .log(.info, "meal \(id) discarded from the owner's page")])
            }
            return saveMeal(photo, edited, day: day, now: now)
        case (.update(let note), _):
            // Another update (or none) may need its own restart: the one asked for was for the old note.
            if note != update { restartAsked = false }
            update = note
            if case .ready = phase { return transition(to: phase, now: now) }
            return restartWhenCalm()
        case (.inboxChanged(let photos), _):
            inbox = photos.sorted { $0.takenAt < $1.takenAt }
            switch phase {
            case .idle, .locked(.group): return transition(to: phase, now: now)
            default: return []
            }
        case (.uploaded(let id), _):
            return [.log(.info, "queued photo \(id) delivered")]
        case (.uploadFailed(let id, let failure), _):
            return [.log(.warning, "queued photo \(id) not delivered: \(failure)")]
        default:
            return []
        }
    }

    /// Goes on with a processed photo: analyse it, or show it for review before it is shared.
    mutating func use(_ photo: ProcessedPhoto, now: Instant) -> [Action] {
        switch mode {
        case .meal:
            return transition(to: .analysing(photo), now: now, also: [.analyse(photo, day: today(now))])
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
        default:
            return [log]
        }
    }
}

extension StationMachine {
    /// The owner's settings over the config's, as the rule resolves them: the machine's own (dietary
    /// flags, countdown, flash, mode) at once, the shell's (filter, dietary preferences for the AI)
    /// through `.applySettings`, the camera through `.useCamera`.
    mutating func apply(_ changed: RuntimeSettings, now: Instant) -> [Action] {
        let before = inForce
        let group = activeGroup
        owner = settings.owner.kept(changed)
        let after = inForce
        var actions: [Action] = [.applySettings(after), .log(.info, "owner's settings: \(owner.summary)")]
        if after.camera != before.camera { actions.append(.useCamera(after.camera)) }
        if let wanted = owner.mode, wanted != mode, after.modes.contains(wanted) {
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
        switch phase {
        case .ready, .idle, .locked: return enterResting(now: now, also: actions)
        default: return actions
        }
    }
}
