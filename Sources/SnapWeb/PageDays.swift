import Foundation
import SnapCore
import SnapStore

/// The station's day and the AI's budget, as the page counts them: the day that never goes back
/// (`StationDay`, from the store) and `ai.daily_limit`.
struct PageDays: Sendable {
    let store: StationStore
    let timeZone: TimeZone
    let dailyLimit: Int
    let now: @Sendable () -> Date

    /// The station's day (`StationDay`): the wall clock's, never before a day the store already used, so
    /// the page counts a correction on the day the station is looking at, whatever the clock says.
    func today() throws(StoreError) -> LocalDay {
        try store.stationDay(in: timeZone).today(at: now())
    }

    /// The AI's answers `day` allows and has used (`ai.daily_limit`), as the station counts them.
    func budget(on day: LocalDay) throws(StoreError) -> DailyBudget {
        DailyBudget(limit: dailyLimit, used: try store.aiUses(on: day))
    }
}
