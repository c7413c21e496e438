import Foundation

/// The station's behaviour: one state machine over every screen in the spec.
///
/// It does no I/O and never sleeps. The shell feeds it events with the moment they happened and carries
/// out the actions it returns; timers are actions too. Tests drive it with a manual clock.
public struct StationMachine: Sendable {
    /// Where the station is in its flow; each case maps to one screen.
    public enum Phase: Sendable, Hashable {
        /// The ready screen; in meal mode with the jar, the sticker whose details show (`jar`).
        case ready(jar: JarFocus? = nil)
        case countdown(secondsLeft: Int)
        case capturing
        case processing(PhotoID)
        /// The quality gate found the photo too dark or too blurred: retake, or use it anyway.
        case retake(ProcessedPhoto)
        case analysing(ProcessedPhoto)
        /// The result sheet; `day` is the day the meal counts for when saved.
        case mealResult(ProcessedPhoto, MealAnalysis, day: LocalDay, secondsLeft: Int)
        case groupReview(ProcessedPhoto, secondsLeft: Int)
        case uploading(ProcessedPhoto, progress: Double)
        case sent
        case locked(LockScreen.Reason)
        case problem(ProblemScreen.Kind, photo: ProcessedPhoto?)
        /// Nobody pressed for `settings.idleAfter`: the slideshow or the clock.
        case idle
        /// The pairing screen of the owner's page (the pairing is nil until the shell made its code);
        /// `closesAt` (uptime) once a browser paired, a moment after.
        case pairing(Pairing?, note: PairingScreen.Note, closesAt: Duration? = nil)
        /// The settings menu, `entry` chosen.
        case menu(entry: Int)
        /// The last seven days against the goals, on the mode button's round before the menu.
        case week
        /// A question the owner's page asked (the factory reset, a restore), waiting for the long hold that
        /// confirms it.
        case asking(StationQuestion, secondsLeft: Int)
        /// Confirmed: the station erases itself, or keeps a backup of what the restore replaces, and restarts.
        case answered(StationQuestion)
    }

    /// The config's settings, with the rule that puts the owner's over them (`inForce`).
    public let settings: StationSettings
    public internal(set) var mode: StationMode
    /// In group mode, which of the groups in force (`inForce.groups`) the next photo goes to.
    public internal(set) var groupIndex = 0
    public internal(set) var phase: Phase = .ready()
    var meals: [Meal]
    var aiUses: [LocalDay: Int]
    /// Each person's share of `aiUses`, against their `Person.aiShare`.
    public internal(set) var personUses: [LocalDay: [PersonID: Int]]
    var groupSends: [String: Set<LocalDay>]
    /// Other members' photos, all groups, oldest first.
    var inbox: [SharedPhoto]
    /// Analyses answered while nobody looked, shown one by one when the station rests.
    var reviews: [MealReview]
    /// The slideshow's place, and when (uptime) its photo came up.
    var slideIndex = 0
    var slideShownAt: Duration = .zero
    /// The day the ready screen came up: its timer fires at midnight or at the idle time, and this tells
    /// which.
    var readyDay: LocalDay?
    /// The mode a hold just switched from, and when: a hold that goes on into the pairing hold is not
    /// meant to switch the mode, so the switch is taken back.
    var undoMode: (mode: StationMode, groupIndex: Int, at: Duration)?
    /// The station's day, which never goes back before the latest day anything was recorded for.
    var stationDay: StationDay
    public internal(set) var missingDevices: [DeviceKind: String] = [:]
    /// The browsers paired with the owner's page: with none (a new station, or every one forgotten) the
    /// ready screen says how to pair one. A session that merely ran out still counts: its owner has paired.
    public internal(set) var pairedBrowsers: Int
    var pendingTimers: [TimerID: Duration] = [:]
    var flashOn = false
    /// The owner's settings over the config's, as stored at start and changed since (the page, the menu):
    /// the machine is their only writer (`.storeSettings`).
    public internal(set) var owner: RuntimeSettings
    /// The owner's settings in force (`SettingsRule.inForce`: the owner's over the config's, unless locked),
    /// resolved again whenever `owner` changes.
    public internal(set) var inForce: SettingsInForce
    /// The settings in force as the station started: what it took at start (the time zone, the AI
    /// service) is these, until it starts again.
    public let started: SettingsInForce
    /// The display is dimmed for the quiet hours (`Action.dimDisplay`).
    var dimmed = false
    /// What the machine last asked of the camera (`Action.setCamera`).
    var cameraOn = false
    /// The update's news for the ready screen (`Event.update`).
    public internal(set) var update: UpdateNote?
    /// A backup being made or checked, for the ready screen (`Event.backup`).
    public internal(set) var backup: BackupNote?
    /// The restart into an installed update was asked for (`Action.restartForUpdate`), once.
    var restartAsked = false
    /// Keys, the time zone or the AI service changed on the page wait for the station's restart
    /// (`Event.startChanged`).
    var restartWaiting = false
    /// The notices told today (`Action.notify`), each once a station day.
    var noticed: [Notice: LocalDay] = [:]
    /// The people who share the station, as the store holds them (`Event.householdChanged`).
    public internal(set) var household: Household
    /// The person picked with the mode button for the next meals (`pickedPerson`).
    var picked: PersonPick?

    /// `owner`: the owner's settings as the store kept them.
    public init(
        settings: StationSettings, snapshot: StationSnapshot = StationSnapshot(),
        owner: RuntimeSettings = RuntimeSettings()
    ) {
        self.settings = settings
        self.owner = settings.owner.kept(owner)
        self.inForce = settings.owner.inForce(owner)
        self.started = inForce
        self.mode = inForce.mode
        self.meals = snapshot.meals
        self.aiUses = snapshot.aiUses
        self.personUses = snapshot.personAIUses
        self.groupSends = snapshot.groupSends
        self.inbox = snapshot.inbox.sorted { $0.takenAt < $1.takenAt }
        self.reviews = snapshot.reviews
        self.pairedBrowsers = snapshot.pairedBrowsers
        self.household = snapshot.household
        self.stationDay = StationDay(timeZone: settings.timeZone, recorded: snapshot.latestDay)
    }

    /// Shows the first screen. Call once, before any event.
    public mutating func start(now: Instant) -> [Action] {
        let camera = inForce.camera
        return (camera != 0 ? [.useCamera(camera)] : []) + followingCamera(enterResting(now: now))
            + remindingOfThePhoto(now: now)
    }

    /// Handles one event that happened at `now` and returns what the shell must do.
    public mutating func handle(_ event: Event, now: Instant) -> [Action] {
        followingCamera(dispatch(event, now: now))
    }

    /// True while the camera's picture shows (the ready screen's preview), a shot is coming, or the camera
    /// is missing (so the shell keeps trying it, and its return is seen).
    public var wantsCamera: Bool {
        if missingDevices[.camera] != nil { return true }
        switch phase {
        case .ready: return !showsJar
        case .countdown, .capturing: return true
        case .processing, .retake, .analysing, .mealResult, .groupReview, .uploading, .sent, .locked, .problem, .idle,
            .pairing, .menu, .week, .asking, .answered:
            return false
        }
    }

    /// `actions`, and a `.setCamera` first when they changed what the camera is needed for. Every path
    /// through the machine ends here, so a mode switch on the ready screen (the jar or the preview) counts
    /// as much as a new phase.
    private mutating func followingCamera(_ actions: [Action]) -> [Action] {
        guard wantsCamera != cameraOn else { return actions }
        cameraOn = wantsCamera
        return [.setCamera(on: cameraOn)] + actions
    }

    /// Every event, named: a new one is a compile error here until the machine says what it does.
    private mutating func dispatch(_ event: Event, now: Instant) -> [Action] {
        switch event {
        case .button(let gesture): handle(gesture, now: now)
        case .timerFired(let id):
            if let deadline = pendingTimers[id], now.uptime >= deadline {
                timerFired(id, now: now)
            } else {
                []
            }
        case .device(let kind, let status): deviceChanged(kind, status, now: now)
        case .heartbeat: []
        case .captured(let id): captured(id, now: now)
        case .captureFailed(let reason): captureFailed(reason, now: now)
        case .processed(let photo): processed(photo, now: now)
        case .processingFailed(let id, let reason): processingFailed(id, reason, now: now)
        case .analysed(let id, let analysis): analysed(id, analysis, now: now)
        case .analysisFailed(let id, let failure): analysisFailed(id, failure, now: now)
        case .uploadProgress(let id, let progress): uploadProgress(id, progress, now: now)
        case .uploaded(let id): uploaded(id, now: now)
        case .uploadFailed(let id, let failure): uploadFailed(id, failure, now: now)
        case .storageFailed(let failure): storageFailed(failure, now: now)
        case .storageLow: notify(.storageLow, now: now)
        case .analysisAnswered(let review): analysisAnswered(review, now: now)
        case .inboxChanged(let photos): inboxChanged(photos, now: now)
        case .pairingOpened(let pairing): pairingOpened(pairing, now: now)
        case .paired(let name): paired(name, now: now)
        case .browsersForgotten(let left): browsersForgotten(left: left, now: now)
        case .settingsChanged(let changed): apply(changed, now: now)
        case .mealsChanged(let day, let changed): mealsChanged(on: day, changed, now: now)
        case .answeredForThePage(let day, let person): answeredForThePage(on: day, for: person, now: now)
        case .analysisRetryAsked(let id):
            [.resumeAnalyses, .log(.info, "the AI is asked again about \(id) (the owner's page)")]
        case .reviewSubmitted(let id, let edited): reviewSubmitted(id, edited, now: now)
        case .update(let note): updated(note, now: now)
        case .restoreAsked(let version, let created): asked(.restore(version: version, created: created), now: now)
        case .restoreNotConfirmed: restoreNotConfirmed(now: now)
        case .backup(let note): backupNoted(note, now: now)
        case .startChanged: startChanged()
        case .householdChanged(let household): householdChanged(household, now: now)
        case .resetAsked: asked(.reset, now: now)
        }
    }

    /// Moves to `next`: cancels the timers the old phase left, sets the flash LED, shows the new screen
    /// and starts the new phase's timer.
    mutating func transition(to next: Phase, now: Instant, also extra: [Action] = []) -> [Action] {
        var actions = extra
        // Off the pairing screen, its code no longer opens the page: the screen and the server agree.
        if case .pairing = phase {
            if case .pairing = next {} else { actions.append(.closePairing) }
        }
        phase = next
        let timer = timer(for: next, now: now)
        for id in pendingTimers.keys.sorted(by: { $0.rawValue < $1.rawValue })
        where id != timer?.id && id.followsThePhase {
            actions.append(.cancelTimer(id))
            pendingTimers[id] = nil
        }
        let quiet = isQuiet(now)
        let wantFlash = inForce.flash && phase.wantsFlash && !quiet
        if wantFlash != flashOn {
            flashOn = wantFlash
            actions.append(.setFlash(on: wantFlash))
        }
        if quiet != dimmed {
            dimmed = quiet
            actions.append(.dimDisplay(quiet))
        }
        actions.append(.show(screen(now: now)))
        if let timer {
            let deadline = now.uptime + timer.after
            pendingTimers[timer.id] = deadline
            actions.append(.startTimer(timer.id, deadline: deadline))
        }
        if case .capturing = next { actions.append(.capture) }
        return actions + restartWhenCalm()
    }

    private func timer(for phase: Phase, now: Instant) -> (id: TimerID, after: Duration)? {
        switch phase {
        case .countdown: (.countdown, .seconds(1))
        case .groupReview: (.groupReview, .seconds(1))
        case .mealResult: (.mealAutoSave, .seconds(1))
        case .sent: (.sentLinger, settings.sentLinger)
        case .locked: (.lockTick, .seconds(1))
        case .problem(.networkDown, _), .problem(.analysisQueued, _), .problem(.destinationFull, _),
            .problem(.untrustedServer, _), .problem(.signInFailed, _):
            (.problemDismiss, settings.problemDismiss)
        case .ready:
            (
                .readyChange,
                min(
                    untilMidnight(now: now), settings.idleAfter ?? .seconds(86_400 * 2),
                    until(edgeOf: inForce.quietHours.hours, now),
                    jarDetailDeadline.map { max(.zero, $0 - now.uptime) } ?? .seconds(86_400 * 2),
                    pickRunsOut(now) ?? .seconds(86_400 * 2))
            )
        case .idle:
            // At night nothing changes on the sleeping display until the night ends (or midnight). With no
            // photo to show, only the clock changes, at the minute: an 8 s slide timer there redrew and
            // wrote the same frame seven times a minute, most of the idle screen's CPU.
            (
                .slideshow,
                min(
                    untilMidnight(now: now), until(edgeOf: settings.nightHours, now),
                    until(edgeOf: inForce.quietHours.hours, now),
                    isNight(now)
                        ? .seconds(86_400 * 2)
                        : slideshow(now: now).isEmpty ? untilNextMinute(now) : settings.slideDuration)
            )
        case .pairing: (.pairing, .seconds(1))
        case .menu: (.menu, Self.menuTimeout)
        case .week: (.week, Self.menuTimeout)
        case .asking: (.resetConfirm, .seconds(1))
        // Each of these ends with an event (the still, the pipeline, the answer, the upload, a press); the
        // erasing ends with the station.
        case .capturing, .processing, .retake, .analysing, .uploading, .problem, .answered: nil
        }
    }
}

extension StationMachine.Phase {
    /// Calm: nothing is under way in front of anyone (the ready screen, the resting screen, a lock). From
    /// here a mode switch, a settings change or an answer nobody has seen takes the station to its resting
    /// screen at once, and an installed update restarts the station; anywhere else they wait.
    public var isCalm: Bool {
        switch self {
        case .ready, .idle, .locked: true
        case .countdown, .capturing, .processing, .retake, .analysing, .mealResult, .groupReview, .uploading, .sent,
            .problem, .pairing, .menu, .week, .asking, .answered:
            false
        }
    }

    /// The screens that show the others' photos (the slideshow, the group's lock), drawn again when they change.
    var showsTheInbox: Bool {
        switch self {
        case .idle, .locked(.group): true
        case .ready, .countdown, .capturing, .processing, .retake, .analysing, .mealResult, .groupReview, .uploading,
            .sent, .locked(.aiLimit), .problem, .pairing, .menu, .week, .asking, .answered:
            false
        }
    }

    /// The LED lights for the last second of the countdown so exposure can settle, and for the shot.
    var wantsFlash: Bool {
        switch self {
        case .countdown(let secondsLeft): secondsLeft <= 1
        case .capturing: true
        case .ready, .processing, .retake, .analysing, .mealResult, .groupReview, .uploading, .sent, .locked, .problem,
            .idle, .pairing, .menu, .week, .asking, .answered:
            false
        }
    }
}
