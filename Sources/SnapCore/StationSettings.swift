import Foundation

/// The parts of the configuration the state machine needs, as plain values.
public struct StationSettings: Sendable, Hashable {
    public var timeZone: TimeZone
    /// The config's groups (`group.name`), the owner's rule's default: the machine follows the groups in
    /// force (`StationMachine.inForce.groups`), which the owner's page changes.
    public var groups: [String] {
        get { owner.defaults.groups }
        set { owner.defaults.groups = newValue }
    }
    /// The settings the owner may change (countdown, flash, dietary preferences, mode, camera …): the
    /// config's values, its locks and the one rule that puts the owner's over them.
    public var owner: SettingsRule
    public var groupReviewSeconds: Int
    public var mealAutoSaveSeconds: Int
    public var sentLinger: Duration
    public var problemDismiss: Duration
    public var aiConfigured: Bool
    public var aiDailyLimit: Int
    /// After this long on the ready screen with nobody there, the idle screen shows (the group's
    /// slideshow, or a dimmed clock); nil keeps the ready screen up.
    public var idleAfter: Duration?
    /// How long each photo of the group's slideshow shows.
    public var slideDuration: Duration
    /// The owner's page is served: the pairing gesture opens its pairing screen.
    public var ownersPage: Bool
    /// The jar on meal mode's ready screen, with the meals of this many days (1: today, 7: the week);
    /// 0 shows the live preview there instead.
    public var jarDays: Int
    /// When the display sleeps on the idle screen (DPMS off); nil never.
    public var nightHours: NightHours?
    /// How long the person picked with the mode button stays picked (`household.choice_minutes`).
    public var choiceHolds: Duration = .seconds(600)

    public init(
        timeZone: TimeZone = .current, groups: [String] = ["Friends"], owner: SettingsRule = SettingsRule(),
        groupReviewSeconds: Int = 3, mealAutoSaveSeconds: Int = 20, sentLinger: Duration = .seconds(3),
        problemDismiss: Duration = .seconds(8), aiConfigured: Bool = false, aiDailyLimit: Int = 10,
        idleAfter: Duration? = nil, slideDuration: Duration = .seconds(8), ownersPage: Bool = false, jarDays: Int = 0
    ) {
        self.jarDays = jarDays
        self.timeZone = timeZone
        self.owner = owner
        self.owner.defaults.groups = groups
        self.groupReviewSeconds = groupReviewSeconds
        self.mealAutoSaveSeconds = mealAutoSaveSeconds
        self.sentLinger = sentLinger
        self.problemDismiss = problemDismiss
        self.aiConfigured = aiConfigured
        self.aiDailyLimit = aiDailyLimit
        self.idleAfter = idleAfter
        self.slideDuration = slideDuration
        self.ownersPage = ownersPage
    }
}

/// What the store knew when the station started: today's meals and the daily counters.
public struct StationSnapshot: Sendable, Hashable {
    /// The latest local day the station has recorded anything for; the station's notion of "today" never
    /// goes back before it, whatever the wall clock says.
    public var latestDay: LocalDay?
    public var meals: [Meal]
    public var aiUses: [LocalDay: Int]
    /// Each person's share of `aiUses`: the requests answered for them.
    public var personAIUses: [LocalDay: [PersonID: Int]] = [:]
    /// The days each group's photo was shared.
    public var groupSends: [String: Set<LocalDay>]
    /// The photos other members shared, kept until they expire.
    public var inbox: [SharedPhoto]
    /// Analyses answered but neither saved nor discarded: shown for review at start.
    public var reviews: [MealReview]
    /// The browsers paired with the owner's page (none: the ready screen says how to pair one).
    public var pairedBrowsers = 0
    /// The people who share the station.
    public var household = Household.alone

    public init(
        latestDay: LocalDay? = nil, meals: [Meal] = [], aiUses: [LocalDay: Int] = [:],
        groupSends: [String: Set<LocalDay>] = [:], inbox: [SharedPhoto] = [], reviews: [MealReview] = [],
        pairedBrowsers: Int = 0
    ) {
        self.pairedBrowsers = pairedBrowsers
        self.latestDay = latestDay
        self.meals = meals
        self.aiUses = aiUses
        self.groupSends = groupSends
        self.inbox = inbox
        self.reviews = reviews
    }
}
