import Foundation
import SnapCore
import SnapStore

/// A meal logged on the page without the station's camera, for one person of the household: a photo
/// from the phone (the capture's pipeline, then the AI), a meal described in a sentence (the AI, in text),
/// or the numbers typed (quick add, no AI). What the AI answers is reviewed here before it is saved, as a
/// station result is on the phone; the meal then lands in the same log, jar and shopping list.
///
/// One meal waits for review at a time, in memory: a second one asked meanwhile is refused with a link
/// to the first. A restart forgets it; its photo, already kept, goes when its retention ends, as a
/// discarded capture's does.
struct LogRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    /// The meal's form and its saving, shared with the meal's own page.
    let meals: MealsRoom
    /// The station's pipeline and AI; nil where the page runs without a station (no logging then).
    let kitchen: (any PageMeals)?
    let jobs: PageJobs
    /// Where a phone's photo is written as it arrives, and removed once read.
    let incoming: String
    /// The meal being asked about or waiting for review.
    let draft = RoomState<LogDraft?>(nil)

    /// The largest photo a phone may send: a 50 MP JPEG at its best quality is about 25 MB.
    static let maxPhotoMB = 32
    /// The longest description: two or three sentences.
    static let maxSentence = 300

    func addRoutes(to router: inout PageRouter) {
        router.get("log") { try .reply(logPage($0.paired)) }
        router.post("log/describe", page: describe)
        router.post("log/quick", page: quickAdd)
        router.post("log/me", page: chooseSelf)
        router.get("log/review") { try .reply(reviewPage($0.paired)) }
        router.post("log/review", page: decide)
    }
}

/// A meal logged on the page, from the AI's asking to the owner's decision.
struct LogDraft: Sendable {
    enum Stage: Sendable {
        case asking
        case answered(MealAnalysis)
        /// Why the AI gave no estimate, in the page's words: the numbers are typed instead.
        case failed(String)
    }
    /// Whose meal it is.
    var person: PersonID
    /// The phone's photo, kept; nil for a described meal.
    var photo: ProcessedPhoto?
    /// What the person wrote, for a described meal.
    var sentence: String?
    /// The day it is logged on (the day the AI's use counts on).
    var day: LocalDay
    var stage: Stage
}
