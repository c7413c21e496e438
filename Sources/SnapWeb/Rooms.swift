import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import Synchronization

// The rooms of the owner's page: each holds what its pages use and adds its routes. `WebApp` builds them
// once and the gate (`PageGate`) stands in front of all of them.

/// Pairing a browser, signing out, forgetting browsers; and what anyone may have: the pairing page, the
/// style sheet and the script.
struct PairingRoom: PageRoom {
    let frame: PageFrame
    let store: StationStore
    let desk: PairingDesk
    let link: any StationLink
    /// The session's cookie is `Secure` (served over TLS).
    let secure: Bool
    let sessionLifetime: TimeInterval

    func addRoutes(to router: inout PageRouter) {
        router.anyone(post: false, "static/*") { try .reply(staticFile($0["*"], words)) }
        router.anyone(post: false, "pair") { _ in .reply(pairPage(message: nil, status: 200)) }
        router.anyone(post: true, "pair") { try .reply(pair($0.request)) }
        router.post("signout", page: signOut)
        // Pairing others and forgetting them are the owner's.
        router.owners { router in
            router.post("status/forget", page: forgetBrowser)
            router.post("status/role", page: changeRole)
            router.post("status/person", page: changePerson)
            router.post("status/invite", page: invitePhone)
        }
    }
}

/// Today and a day's meals, a meal's page, its edits, its photo.
struct MealsRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    let rule: SettingsRule
    let corrections: CorrectionsRoom
    /// `storage.retention_hours`: how long a photo is kept, for the pages that say it is gone.
    let retentionHours: Int

    func addRoutes(to router: inout PageRouter) {
        router.get("") { try .reply(dayPage(nil, $0.paired)) }
        router.get("day/:day") {
            guard let day = LocalDay($0["day"]) else {
                throw WebProblem.notFound(words("page.problem.not_a_day", ["day": $0["day"]]), words)
            }
            return .reply(try dayPage(day, $0.paired))
        }
        router.get("meal/:id", named: meal { try mealPage($0, $1, message: nil) })
        // A household member's phone changes its own person's meals; giving a meal to another is the owner's.
        router.post("meal/:id", named: change(editMeal))
        router.get("meal/:id/delete", named: change(deletePage))
        router.post("meal/:id/delete", named: change(deleteMeal))
        router.post("meal/:id/again", named: change(eatAgain))
        router.post("meal/:id/correct", named: change(correctMeal))
        router.owners { router in router.post("meal/:id/person", named: meal(movePerson)) }
        router.get("photo/:name", named: photoFile)
        router.get("received/:name", named: receivedFile)
    }
}

extension MealsRoom {
    /// A meal's route: the photo the path names (or the page that says there is none), then `handler`.
    func meal(_ handler: @escaping @Sendable (PhotoID, Visitor) throws -> WebReply)
        -> @Sendable (String, Visitor) throws -> WebReply
    {
        { [self] in try handler(photoID($0), $1) }
    }

    /// A route that changes a meal: `meal`, for a browser that may change the meal's person's meals.
    func change(_ handler: @escaping @Sendable (PhotoID, Visitor) throws -> WebReply)
        -> @Sendable (String, Visitor) throws -> WebReply
    {
        meal { [self] id, visitor in
            try visitor.mustChange(mealsOf: try storedMeal(id).meal.person, in: try store.household(), words)
            return try handler(id, visitor)
        }
    }
}

/// History: the days, the charts, the export.
struct HistoryRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays

    func addRoutes(to router: inout PageRouter) {
        router.get("history", page: historyPage)
        router.get("export/:file", named: export)
    }
}

/// Corrections of a meal asked of the AI in a sentence. Its forms are on a meal's page and on the review,
/// whose rooms route them; this room asks the AI and keeps the answer.
struct CorrectionsRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    /// Where a meal's correction goes (the station's analyser); nil without an AI service.
    let corrector: (any MealCorrector)?
    let jobs: PageJobs
    let retentionHours: Int
    /// The corrections asked and not yet shown on their meal's page.
    let corrections = RoomState<[PhotoID: Correction]>([:])

    func addRoutes(to router: inout PageRouter) {}
}

/// The result the station shows, reviewed on the phone.
struct ReviewRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    /// The meal's form and its corrections: the result reviewed is a meal about to be saved.
    let meals: MealsRoom
    var corrections: CorrectionsRoom { meals.corrections }

    func addRoutes(to router: inout PageRouter) {
        router.get("review") { try .reply(reviewPage($0.paired)) }
        router.post("review", steps: submitReview)
        router.post("review/correct", steps: correctShown)
    }
}

/// The shopping list and the planned meals asked of the AI.
struct PlansRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    /// Where the shopping list's planned meals are asked about (the station's analyser); nil without an
    /// AI service.
    let planner: (any MealPlanner)?
    let jobs: PageJobs
    /// The planned meal being asked about, or how the last one ended until the page showed it.
    let planning = RoomState<Planning?>(nil)

    func addRoutes(to router: inout PageRouter) {
        router.get("shopping") { try .reply(shoppingPage($0.paired, message: nil)) }
        router.post("shopping", page: saveShopping)
        router.post("shopping/add", page: addToShopping)
        router.post("shopping/clear", page: clearShopping)
        router.get("shopping.txt") { _ in try .reply(shoppingText()) }
        router.post("shopping/plan", page: askForPlan)
        router.get("shopping/plan", page: planningPage)
        router.get("plan/:id") { try .reply(planPage($0["id"], $0.paired)) }
        router.post("plan/:id/confirm", named: confirmPlan)
        router.post("plan/:id/discard", named: discardPlan)
        router.get("plan/:id/delete", named: deletePlanPage)
        router.post("plan/:id/delete", named: deletePlan)
    }
}

/// The owner's settings: the form, and the filter's preview.
struct SettingsRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    let store: StationStore
    let rule: SettingsRule
    /// `camera.id`, and the config's filter for a preview that names none.
    let cameraID: String
    let filter: PhotoFilter
    /// Sends the notices' test ("Save and send a test"); nil where the station has none.
    var noticeTrier: (any NoticeTrier)?
    /// Tries the home's broker ("Save and try"); nil where the station has none to try with.
    var brokerTrier: (any BrokerTrier)?

    func addRoutes(to router: inout PageRouter) {
        router.get("settings") { try .reply(settingsPage($0.paired)) }
        router.post("settings", steps: saveSettings)
        router.get("settings/preview.jpg", page: settingsPreview)
    }
}

/// The groups: made, joined with a code, left, their members and photos.
struct GroupRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    let rule: SettingsRule
    let retentionHours: Int
    /// Where the Group section makes, joins and leaves groups (the Supabase backend); nil where the
    /// config's names are the groups (the folder backend).
    let directory: (any GroupDirectory)?
    let jobs: PageJobs

    func addRoutes(to router: inout PageRouter) {
        // The household sees the group's photos; the station's memberships are the owner's.
        router.get("group") { try groupPage($0.paired) }
        router.owners { router in
            router.post("group/create", steps: createGroup)
            router.post("group/join", steps: joinGroup)
            router.post("group/invite", steps: inviteToGroup)
            router.get("group/leave", page: leavePage)
            router.post("group/leave", steps: leaveGroup)
        }
    }
}

/// What the station is doing: devices, queues, the AI's uses, the paired browsers; an analysis asked again.
struct StatusRoom: DayRoom {
    let frame: PageFrame
    let store: StationStore
    let days: PageDays
    /// The system's version, as RAUC says it (nil: the version built in).
    let updater: (any StationUpdater)?
    /// `storage.dir`, whose free space the page shows.
    let storageDir: String

    func addRoutes(to router: inout PageRouter) {
        router.get("status", page: statusPage)
        router.post("status/analyse", page: analyseAgain)
    }
}

/// Backups: the station's store and photos downloaded as one file, and one restored from a file sent.
struct BackupRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    let store: StationStore
    /// Where a backup sent to restore is checked and unpacked: it reads GBs, off the page's thread.
    let restoring = SerialThread(name: "web-restore")

    func addRoutes(to router: inout PageRouter) {
        router.get("backup") { try .reply(backupPage($0.paired)) }
        router.get("backup/download", page: downloadBackup)
        router.get("backup/kept/:name", named: downloadKept)
        router.post("backup/restore-kept", steps: restoreKept)
        router.get("backup/restore") { .reply(restorePage($0.paired)) }
        router.get("backup/restore/state", page: restoreStateText)
        router.post("backup/restore/ask", steps: askRestore)
        router.post("backup/restore/forget", page: forgetRestore)
        router.post("backup/restore/done", page: dismissOutcome)
        router.post("backup/restore/settings", steps: confirmRestoredSettings)
        router.post("backup/unlock", steps: unlock)
        router.post("backup/download-sealed", page: downloadSealed)
    }
}

/// The factory reset: asked here, confirmed at the station.
struct ResetRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame

    func addRoutes(to router: inout PageRouter) {
        router.get("reset") { .reply(resetPage($0.paired)) }
        router.post("reset", steps: askReset)
    }
}

/// The system update: a bundle uploaded and installed into the other slot, or an older one on purpose.
struct UpdateRoom: PageRoom {
    var isOwners: Bool { true }
    let frame: PageFrame
    /// The station's two system slots (RAUC); nil where the page offers no updates (tests).
    let updater: (any StationUpdater)?
    let jobs: PageJobs
    /// Where bundles sent from the phone are kept: the state folder, on the data partition
    /// (`storage.dir`/updates/bundles).
    let bundleFolder: String
    /// Where a USB stick's bundles are looked for (`update.usb_folder`).
    let usbFolder: String
    /// The largest bundle taken (`update.max_bundle_mb`).
    let maxBundleMB: Int
    /// The update being installed from the page, or how the last one ended.
    let installation = RoomState<Installation?>(nil)

    func addRoutes(to router: inout PageRouter) {
        router.get("update", page: updatePage)
        router.post("update/install") { try .reply(installBundle($0.paired)) }
        router.get("update/downgrade", page: downgradePage)
        router.post("update/downgrade") { try .reply(installBundle($0.paired, allowDowngrade: true)) }
    }
}

/// A room that counts days and the AI's budget as the station does.
protocol DayRoom: PageRoom {
    var days: PageDays { get }
}

extension DayRoom {
    func today() throws(StoreError) -> LocalDay { try days.today() }
    func budget(on day: LocalDay) throws(StoreError) -> DailyBudget { try days.budget(on: day) }
}

extension PageRoom {
    /// The station: what it shows, and where the page's events go (`StationLink`).
    var link: any StationLink { frame.link }

    /// The owner's settings in force, as the state machine (their only writer) holds them now.
    var inForce: SettingsInForce { link.status().inForce }
}
