import Foundation

/// Everything a display needs to draw one screen: plain values, no devices, no images in memory.
public enum Screen: Sendable, Hashable {
    case ready(ReadyScreen)
    case countdown(CountdownScreen)
    case capturing(mode: StationMode)
    case processing(ProcessingScreen)
    case retake(RetakeScreen)
    case mealResult(MealResultScreen)
    case groupReview(GroupReviewScreen)
    case uploading(UploadingScreen)
    case sent(group: String)
    case locked(LockScreen)
    case problem(ProblemScreen)
    case idle(IdleScreen)
    case pairing(PairingScreen)
    case menu(MenuScreen)
    /// The last seven days against the goals.
    case week(WeekScreen)
    /// A question of the owner's page (the factory reset, a restore): its confirmation at the station, then
    /// the erasing or the restoring.
    case question(QuestionScreen)

    /// Whether the live camera preview runs under this screen's overlay.
    public var showsLivePreview: Bool {
        switch self {
        case .ready(let ready): ready.jar == nil
        case .countdown: true
        case .capturing, .processing, .retake, .mealResult, .groupReview, .uploading, .sent, .locked, .problem, .idle,
            .pairing, .menu, .week, .question:
            false
        }
    }

    /// A short name for logs, the systemd status line and file names.
    public var name: String {
        switch self {
        case .ready: "ready"
        case .countdown: "countdown"
        case .capturing: "capturing"
        case .processing(let screen): screen.stage == .analysing ? "analysing" : "processing"
        case .retake: "retake"
        case .mealResult: "meal-result"
        case .groupReview: "group-review"
        case .uploading: "uploading"
        case .sent: "sent"
        case .locked(let screen): screen.reason == .aiLimit ? "ai-limit" : "group-lock"
        case .problem(let screen): "error-\(screen.kind.name)"
        case .idle: "idle"
        case .pairing: "pairing"
        case .menu: "menu"
        case .week: "week"
        case .question(let screen):
            switch screen.question {
            case .reset: screen.secondsLeft == nil ? "reset-erasing" : "reset-confirm"
            case .restore: screen.secondsLeft == nil ? "restoring" : "restore-confirm"
            }
        }
    }
}

/// Ready: the live preview, the mode, today's totals and meals.
public struct ReadyScreen: Sendable, Hashable {
    public var mode: StationMode
    public var groupName: String?
    public var totals: Macros
    public var mealThumbnails: [String]
    /// In group mode: whether today's photo is still to be taken.
    public var groupPhotoAvailable: Bool
    /// In meal mode: analyses left today.
    public var analysesLeft: Int
    /// Devices that are missing, shown as a small notice.
    public var missingDevices: [DeviceKind]
    /// In meal mode with the jar on: the stickers in the jar, drawn instead of the live preview.
    public var jar: JarContents?
    /// The cameras the owner can switch between (none when there is one), and the one in use.
    public var cameras: [String] = []
    public var camera = 0
    /// The owner turned the flash LED off (shown as a small icon).
    public var flashOff = false
    /// The day's goals (kcal, protein, carbs, fats; 0 = none): meal mode shows today's totals against them.
    public var goals = Macros.zero
    /// Whose day the totals and goals are, when more than one person shares the station: the person
    /// picked last while the pick holds, the owner otherwise.
    public var person: Person?
    /// An update being installed, waiting for its restart, or one that did not start.
    public var update: UpdateNote?
    /// A backup being made or checked on the owner's page.
    public var backup: BackupNote?
    /// No browser is paired with the owner's page yet: the screen says how to pair one.
    public var pairingHint = false

    public init(
        mode: StationMode, groupName: String?, totals: Macros, mealThumbnails: [String],
        groupPhotoAvailable: Bool, analysesLeft: Int, missingDevices: [DeviceKind], jar: JarContents? = nil,
        cameras: [String] = [], camera: Int = 0, flashOff: Bool = false, goals: Macros = .zero
    ) {
        self.goals = goals
        self.cameras = cameras
        self.camera = camera
        self.flashOff = flashOff
        self.jar = jar
        self.mode = mode
        self.groupName = groupName
        self.totals = totals
        self.mealThumbnails = mealThumbnails
        self.groupPhotoAvailable = groupPhotoAvailable
        self.analysesLeft = analysesLeft
        self.missingDevices = missingDevices
    }
}

/// A question the owner's page asked (`StationQuestion`), which only a long hold at the station answers (a
/// press, or nobody for a while, keeps everything), then the erasing or the restoring until the station
/// restarts.
public struct QuestionScreen: Sendable, Hashable {
    public var question: StationQuestion
    /// Seconds until the question closes by itself; nil once it is answered.
    public var secondsLeft: Int?
    public init(question: StationQuestion, secondsLeft: Int?) {
        self.question = question
        self.secondsLeft = secondsLeft
    }
}

/// The 3-2-1 over the live preview.
public struct CountdownScreen: Sendable, Hashable {
    public var secondsLeft: Int
    public var mode: StationMode
    /// Whose meal the shot is, in meal mode when more than one person shares the station.
    public var person: Person?
    public init(secondsLeft: Int, mode: StationMode, person: Person? = nil) {
        self.secondsLeft = secondsLeft
        self.mode = mode
        self.person = person
    }
}

/// The captured photo with a spinner while the pipeline or the AI works.
public struct ProcessingScreen: Sendable, Hashable {
    public enum Stage: Sendable, Hashable { case processing, analysing }
    public var photo: PhotoID
    public var stage: Stage
    public init(photo: PhotoID, stage: Stage) {
        self.photo = photo
        self.stage = stage
    }
}

/// "Too dark — retake?": the quality gate's question before an analysis or a share.
public struct RetakeScreen: Sendable, Hashable {
    public var photo: ProcessedPhoto
    public var mode: StationMode
    public init(photo: ProcessedPhoto, mode: StationMode) {
        self.photo = photo
        self.mode = mode
    }
}

/// The meal's analysis, like a confirmation sheet.
public struct MealResultScreen: Sendable, Hashable {
    public var photo: ProcessedPhoto
    public var analysis: MealAnalysis
    /// For each item (same order as `analysis.items`), the preferences it clashes with.
    public var clashes: [[DietaryPreference]]
    public var autoSaveIn: Int
    /// Whose meal it is, when more than one person shares the station.
    public var person: Person?
    public init(
        photo: ProcessedPhoto, analysis: MealAnalysis, clashes: [[DietaryPreference]], autoSaveIn: Int,
        person: Person? = nil
    ) {
        self.photo = photo
        self.analysis = analysis
        self.clashes = clashes
        self.autoSaveIn = autoSaveIn
        self.person = person
    }
}

/// "Sending to {group} in 3…" over the photo.
public struct GroupReviewScreen: Sendable, Hashable {
    public var photo: ProcessedPhoto
    public var group: String
    public var secondsLeft: Int
    public init(photo: ProcessedPhoto, group: String, secondsLeft: Int) {
        self.photo = photo
        self.group = group
        self.secondsLeft = secondsLeft
    }
}

/// The upload progress bar.
public struct UploadingScreen: Sendable, Hashable {
    public var photo: ProcessedPhoto
    public var group: String
    /// 0…1.
    public var progress: Double
    public init(photo: ProcessedPhoto, group: String, progress: Double) {
        self.photo = photo
        self.group = group
        self.progress = progress
    }
}

/// The daily-limit lock screen, counting down to local midnight.
public struct LockScreen: Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        case group(String)
        case aiLimit
    }
    public var reason: Reason
    /// The daily limit, for the AI wording.
    public var limit: Int
    /// Time until the next local midnight; nil while the clock is not trustworthy (far behind the last
    /// day the station saw, as on a Pi without a real-time clock before NTP).
    public var remaining: Duration?
    /// The group's slideshow behind the lock, when its members shared photos.
    public var slide: Slide?
    /// Meal mode's lock: the day's result, today's totals against the goals (nil on the group's lock).
    public var day: DayResult?
    public init(reason: Reason, limit: Int, remaining: Duration?, slide: Slide? = nil, day: DayResult? = nil) {
        self.day = day
        self.reason = reason
        self.limit = limit
        self.remaining = remaining
        self.slide = slide
    }
}

/// The last seven days against the goals, on the mode button's round.
public struct WeekScreen: Sendable, Hashable {
    public struct Day: Sendable, Hashable {
        public var day: LocalDay
        /// The day's totals; nil for a day with no meal logged.
        public var totals: Macros?
        public init(day: LocalDay, totals: Macros?) {
            self.day = day
            self.totals = totals
        }
    }
    /// Oldest first, today last.
    public var days: [Day]
    public var goals: Macros
    public init(days: [Day], goals: Macros) {
        self.days = days
        self.goals = goals
    }

    /// The average kcal of the days with meals; nil without one.
    public var average: Int? {
        let logged = days.compactMap(\.totals)
        return logged.isEmpty ? nil : logged.reduce(0) { $0 + $1.calories } / logged.count
    }
}

/// A day's totals against its goals (each 0 for none).
public struct DayResult: Sendable, Hashable {
    public var totals: Macros
    public var goals: Macros
    public init(totals: Macros, goals: Macros) {
        self.totals = totals
        self.goals = goals
    }
}

/// The station's settings menu, at the end of the mode button's round: the camera to use and the flash.
/// A press changes the chosen entry, the mode button goes to the next one (after the last, on to the first
/// mode), a hold closes it.
public struct MenuScreen: Sendable, Hashable {
    /// A setting and its value; the renderer names it in the station's language.
    public enum Entry: Sendable, Hashable {
        /// The camera in use, by its name (`StationConfig.Camera.Other.name`).
        case camera(String)
        case flash(on: Bool)

        /// For the caption: "camera: USB camera", "flash: off".
        public var caption: String {
            switch self {
            case .camera(let name): "camera: \(name)"
            case .flash(let on): "flash: \(on ? "on" : "off")"
            }
        }
    }
    public var entries: [Entry]
    public var selected: Int
    public init(entries: [Entry], selected: Int) {
        self.entries = entries
        self.selected = selected
    }
}

/// Nobody has pressed for a while: the group's slideshow, or a dimmed clock. A press starts the
/// countdown as on the ready screen.
public struct IdleScreen: Sendable, Hashable {
    public var mode: StationMode
    public var group: String?
    /// The photo the slideshow shows; nil shows the clock.
    public var slide: Slide?
    /// The local time for the clock, "14:05".
    public var clock: String
    /// The night hours: the display sleeps (DPMS off) until a press.
    public var displayOff = false
    public init(mode: StationMode, group: String?, slide: Slide?, clock: String, displayOff: Bool = false) {
        self.displayOff = displayOff
        self.mode = mode
        self.group = group
        self.slide = slide
        self.clock = clock
    }
}

/// An error screen: what went wrong, and what a press or a hold does now.
public struct ProblemScreen: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case cameraMissing(String)
        case captureFailed(String)
        case processingFailed(String)
        case aiFailed(AIFailure)
        case networkDown(group: String)
        /// The group's folder is full: the photo waits until there is space.
        case destinationFull(group: String)
        /// The group's server could not be verified: the photo waits.
        case untrustedServer(group: String)
        /// The station could not sign in to the group's server: the photo waits.
        case signInFailed(group: String, reason: String)
        /// Meal mode offline: the photo waits for the network, and the meal is logged by itself then.
        case analysisQueued
        case uploadRejected(String)
        case storageFull
        case storageFailed(String)
        /// The person picked has used their share of the day's analyses (`Person.aiShare`): the photo
        /// waits for the mode button to give it to someone else.
        case shareUsed(Person)

        public var name: String {
            switch self {
            case .cameraMissing: "camera-missing"
            case .captureFailed: "capture-failed"
            case .processingFailed: "processing-failed"
            case .aiFailed(.notConfigured): "ai-not-configured"
            case .aiFailed: "ai-failed"
            case .networkDown: "network-down"
            case .destinationFull: "destination-full"
            case .untrustedServer: "server-untrusted"
            case .signInFailed: "group-sign-in-failed"
            case .analysisQueued: "analysis-queued"
            case .uploadRejected: "upload-rejected"
            case .storageFull: "storage-full"
            case .storageFailed: "storage-failed"
            case .shareUsed: "share-used"
            }
        }
    }
    public var kind: Kind
    /// The photo the problem concerns, kept on disk whatever happens.
    public var photo: ProcessedPhoto?
    public init(kind: Kind, photo: ProcessedPhoto?) {
        self.kind = kind
        self.photo = photo
    }
}

/// The jar: every meal of its days as a sticker, and the one whose details show.
public struct JarContents: Sendable, Hashable {
    public var stickers: [JarSticker]
    /// The index in `stickers` of the highlighted one, whose title, fun fact and macros show.
    public var highlighted: Int?
    /// "today" or "this week", for the screen's heading.
    public var days: Int

    public init(stickers: [JarSticker], highlighted: Int? = nil, days: Int = 1) {
        self.stickers = stickers
        self.highlighted = highlighted
        self.days = days
    }
}

/// One meal in the jar.
public struct JarSticker: Sendable, Hashable {
    public var id: PhotoID
    /// The cut-out (PNG with alpha); nil for a meal kept without one: its thumbnail is cut round.
    public var stickerPath: String?
    public var thumbnailPath: String
    public var title: String
    public var totals: Macros
    public var funFact: String?
    /// Whose meal it is, when more than one person shares the station: the jar marks it in their colour.
    public var person: Person?

    public init(
        id: PhotoID, stickerPath: String?, thumbnailPath: String, title: String, totals: Macros, funFact: String?
    ) {
        self.id = id
        self.stickerPath = stickerPath
        self.thumbnailPath = thumbnailPath
        self.title = title
        self.totals = totals
        self.funFact = funFact
    }

    public init(_ meal: Meal) {
        self.init(
            id: meal.photo.id, stickerPath: meal.photo.stickerPath, thumbnailPath: meal.photo.thumbnailPath,
            title: meal.analysis.title, totals: meal.analysis.totals, funFact: meal.analysis.funFact)
    }
}

extension Screen {
    /// The jar this screen shows, if it is the ready screen with the jar.
    public var jar: JarContents? {
        if case .ready(let ready) = self { ready.jar } else { nil }
    }
}

/// What moves the jar besides new stickers: the station tilted (gravity along `x, y` on the display, y
/// down), or shaken.
public enum JarMotion: Sendable, Hashable {
    case tilt(x: Double, y: Double)
    case shake
}
