import Foundation

/// The parts of the configuration the state machine needs, as plain values.
public struct StationSettings: Sendable, Hashable {
    public var timeZone: TimeZone
    public var defaultMode: StationMode
    /// Nil when no group is configured: group mode is then unavailable.
    public var groupName: String?
    public var countdownSeconds: Int
    /// Whether the flash LED lights for the last second of the countdown and the shot.
    public var flash: Bool
    public var groupReviewSeconds: Int
    public var mealAutoSaveSeconds: Int
    public var sentLinger: Duration
    public var problemDismiss: Duration
    public var aiConfigured: Bool
    public var aiDailyLimit: Int
    public var dietaryPreferences: Set<DietaryPreference>

    public init(
        timeZone: TimeZone = .current, defaultMode: StationMode = .group, groupName: String? = "Friends",
        countdownSeconds: Int = 3, flash: Bool = true, groupReviewSeconds: Int = 3, mealAutoSaveSeconds: Int = 20,
        sentLinger: Duration = .seconds(3), problemDismiss: Duration = .seconds(8), aiConfigured: Bool = false,
        aiDailyLimit: Int = 10, dietaryPreferences: Set<DietaryPreference> = []
    ) {
        self.timeZone = timeZone
        self.defaultMode = defaultMode
        self.groupName = groupName
        self.countdownSeconds = countdownSeconds
        self.flash = flash
        self.groupReviewSeconds = groupReviewSeconds
        self.mealAutoSaveSeconds = mealAutoSaveSeconds
        self.sentLinger = sentLinger
        self.problemDismiss = problemDismiss
        self.aiConfigured = aiConfigured
        self.aiDailyLimit = aiDailyLimit
        self.dietaryPreferences = dietaryPreferences
    }
}

/// What the store knew when the station started: today's meals and the daily counters.
public struct StationSnapshot: Sendable, Hashable {
    /// The latest local day the station has recorded anything for; the station's notion of "today" never
    /// goes back before it, whatever the wall clock says.
    public var latestDay: LocalDay?
    public var meals: [Meal]
    public var aiUses: [LocalDay: Int]
    public var groupSendDays: Set<LocalDay>

    public init(
        latestDay: LocalDay? = nil, meals: [Meal] = [], aiUses: [LocalDay: Int] = [:],
        groupSendDays: Set<LocalDay> = []
    ) {
        self.latestDay = latestDay
        self.meals = meals
        self.aiUses = aiUses
        self.groupSendDays = groupSendDays
    }
}
