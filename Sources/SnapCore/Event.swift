/// Everything that can happen to the station. The shell turns device callbacks, timer expiries and
/// service results into events; the state machine answers with actions.
public enum Event: Sendable, Hashable {
    case button(ButtonGesture)
    case timerFired(TimerID)
    /// The camera took the still; the pipeline can start.
    case captured(PhotoID)
    case captureFailed(String)
    case processed(ProcessedPhoto)
    case processingFailed(PhotoID, String)
    case analysed(PhotoID, MealAnalysis)
    case analysisFailed(PhotoID, AIFailure)
    case uploadProgress(PhotoID, Double)
    case uploaded(PhotoID)
    case uploadFailed(PhotoID, UploadFailure)
    case storageFailed(StorageFailure)
    /// The storage is nearly full after the retention's pass: less free than twice what captures need.
    case storageLow
    case device(DeviceKind, DeviceStatus)
    /// A queued analysis was answered while the person was elsewhere: the result waits for review.
    /// The request it made was counted against today's limit when its answer was stored.
    case analysisAnswered(MealReview)
    /// The photos the groups' other members shared that the station now keeps (all groups, unexpired).
    case inboxChanged([SharedPhoto])
    /// The owner's page opened a pairing: its code and address, for the pairing screen.
    case pairingOpened(Pairing)
    /// A browser gave the pairing code and is paired; its name as it said.
    case paired(String)
    /// The owner's page forgot paired browsers (signed out, or forgotten on Status): `left` remain.
    case browsersForgotten(left: Int)
    /// The owner changed settings on the page: the machine makes the change over the settings it holds,
    /// stores them and tells the station's parts.
    case settingsChanged(SettingsChange)
    /// The owner edited or deleted meals on the page: `day`'s meals as the store now holds them.
    case mealsChanged(day: LocalDay, [Meal])
    /// The owner added, changed or removed people on the page: the household as the store now holds it.
    case householdChanged(Household)
    /// The AI service answered a request the page made (a correction; a refusal counts too), which the
    /// store counted against `day`'s limit: the station counts it as well.
    case answeredForThePage(day: LocalDay, person: PersonID = .first)
    /// The owner asked the AI again, on the page, for a meal whose analysis failed for good (the store
    /// holds its job as pending again).
    case analysisRetryAsked(PhotoID)
    /// The owner saved the result on the station's screen from the page, edited (or discarded it: nil).
    case reviewSubmitted(PhotoID, MealAnalysis?)
    /// An update is being installed, waits for its restart, or did not start (nil: nothing to say).
    case update(UpdateNote?)
    /// The owner's page checked, unpacked and rebuilt a backup (made by `version` on `created`), or asks
    /// again about the one waiting: the station asks on its screen, where only a long hold confirms it.
    case restoreAsked(version: String, created: LocalDay?)
    /// The restore the hold confirmed could not be prepared (the backup of what it replaces failed): the
    /// station goes on with what it has, and the page says why.
    case restoreNotConfirmed
    /// A backup is being made or checked on the page, and how far (nil: it ended).
    case backup(BackupNote?)
    /// The owner entered, replaced or removed a key on the page (`EnteredKeys`), or ended the first visit's
    /// walk-through with a setting taken at start changed (the time zone, the AI service): the station
    /// takes them as it starts, so it starts again at its next calm moment.
    case startChanged
    /// The owner asked on the page to erase the station (a factory reset): the station asks again on its
    /// screen, where only a long hold confirms it.
    case resetAsked
    /// Sent through the event loop by the shell's watchdog: handling it proves the loop is not stuck.
    /// The machine does nothing with it.
    case heartbeat
}

/// What the station asks the shell to do. Actions are data: the state machine performs none of them.
public enum Action: Sendable, Hashable {
    case show(Screen)
    /// Fire `.timerFired(id)` when the uptime reaches `deadline`, replacing any pending deadline of `id`.
    case startTimer(TimerID, deadline: Duration)
    case cancelTimer(TimerID)
    case setFlash(on: Bool)
    /// Stream the camera, or let it stop: it runs only while its picture shows or a shot is coming, so a
    /// station left alone (the idle screen, the jar, the lock screen) does not stream all day.
    case setCamera(on: Bool)
    /// Take the still from the running camera.
    case capture
    /// Run the on-device pipeline on the still and store the result atomically; `sticker` says whether the
    /// photo is a meal's, which keeps a sticker.
    case process(PhotoID, sticker: Bool)
    /// Record a durable analysis job for the photo, eaten on `day`, and ask the AI service. The answer,
    /// and the day's count of requests answered, are stored together before `.analysed` is sent.
    case analyse(ProcessedPhoto, day: LocalDay, person: PersonID = .first)
    /// Stop the request in flight; the job is discarded (the photo stays).
    case cancelAnalysis(PhotoID)
    /// Look at the delayed-analysis queue now: a job in it is due (the owner asked again).
    case resumeAnalyses
    /// Keep the job for the analysis queue, to be tried again when the network returns.
    case queueAnalysis(ProcessedPhoto, day: LocalDay, person: PersonID = .first)
    /// Store the meal and close its job, in one transaction.
    case saveMeal(Meal)
    /// Close the job of a result the person discarded.
    case discardMeal(PhotoID)
    /// Open a pairing of the owner's page: a new one-time code, answered with `.pairingOpened`.
    case openPairing
    /// The pairing screen closed: its code no longer pairs.
    case closePairing
    /// Forget every paired browser (a hold on the pairing screen).
    case forgetPairedBrowsers
    /// Use the settings in force where the shell needs them (the photo filter, the AI's dietary
    /// preferences); the camera goes through `.useCamera`.
    case applySettings(SettingsInForce)
    /// Dim the display for the owner's quiet hours, or light it again.
    case dimDisplay(Bool)
    /// Restart the system into the update installed in the other slot: the station is idle now (ready,
    /// resting or locked; never during a countdown, an upload, an analysis or a result).
    case restartForUpdate(version: String)
    /// The restore waiting was confirmed at the station: keep a backup of what it replaces, mark it for the
    /// next start and restart the station (not the system) into it.
    case restore(version: String)
    /// Restart the station so that it takes the keys, the time zone or the AI service changed on the page:
    /// idle now, as for an update.
    case restartForChanges
    /// Erase the station, confirmed on the page and at the station: delete its photos on the group's server
    /// and leave `groups` where it can, mark the state folder to be erased as the station starts, and
    /// restart it.
    case factoryReset(groups: [String])
    /// Switch to camera `index` of the station's cameras (the menu, the owner's page, a restart).
    case useCamera(Int)
    /// Store the owner's settings as the machine holds them now (the machine is their only writer).
    case storeSettings(RuntimeSettings)
    /// Claim `day` for `group` in the store and queue the photo for upload, in one transaction.
    case share(ProcessedPhoto, group: String, day: LocalDay)
    /// Give `day` back to `group` after the server refused the photo for good, so the person can try again.
    case releaseGroupDay(LocalDay, group: String)
    /// Tell the household's phones (`[notify]`): the machine has checked the kind is on and the notice is
    /// new today.
    case notify(Notice)
    case log(LogLevel, String)
}

/// The severity of a log line the state machine asks for.
public enum LogLevel: String, Sendable, Hashable {
    case info, notice, warning, error
}
