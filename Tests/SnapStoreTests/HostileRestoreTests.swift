import Foundation
import SnapCore
import SnapFiles
import SnapTestSupport
import Testing

@testable import SnapStore

/// The hostile backups of the audit (2026-12-01, finding 1), made from a station's own backup by
/// Tests/Support/hostile_backup.py with Python's tarfile and sqlite3, restored through the store: a restored
/// store is rebuilt from its rows as input, so nothing outside the photos is named, no trigger or view of the
/// file is kept, no session of the file's, and the addresses a key goes to wait for the owner.
@Suite("StationStore: hostile backups restored as input")
struct HostileRestoreTests {
    let folder = TemporaryDirectory("hostile-restore")
    let helpers = BackupTests()

    /// Station B with A's backup made hostile by `attack` (`value` its argument) restored into it, as the
    /// hold and the next start put it in place; B's store opened after, and A's state folder.
    func restored(_ attack: String, _ value: String = "", schema14: Bool = false) throws
        -> (store: StationStore, b: String, report: RestoreReport)
    {
        let (a, b) = (folder.path + "/\(attack)-a", folder.path + "/\(attack)-b")
        let file = folder.path + "/\(attack).tar"
        try helpers.backup(of: try helpers.stationA(a), to: file + ".plain")
        let (status, output) = try ChildOutput.run(
            "/usr/bin/python3",
            ["Tests/Support/hostile_backup.py", file + ".plain", file, attack + (schema14 ? "-v14" : ""), value])
        try #require(status == 0, "hostile_backup.py: \(output)")
        let storeB = try helpers.stationB(b)
        let staged = try storeB.stageRestore(
            from: file, settings: { ($0.clearing([.aiService, .mqtt, .notices]), $0) })
        _ = try storeB.confirmRestore()
        let outcome = try #require(StationStore.applyRestore(in: b))
        #expect(outcome.problem == nil, "\(outcome)")
        return (try StationStore(directory: b), b, staged.report)
    }

    @Test(
        "should name no file outside the photos from a restored row, in any table, whatever its paths say",
        arguments: [false, true])
    func paths(schema14: Bool) throws {
        let canary = folder.path + "/canary-outside-\(schema14).txt"
        try Data("outside".utf8).write(to: URL(fileURLWithPath: canary))
        let (store, b, _) = try restored("paths", canary, schema14: schema14)
        let named = try store.audit().namedFiles
        #expect(!named.isEmpty && named.allSatisfy { $0.hasPrefix(b + "/photos/") }, "\(named)")
        for id in ["leakkey", "leakinside", "leakhost", "dayescape"] {
            let files = try store.photoFiles(PhotoID(id))
            #expect(files.map { [$0.photo, $0.thumbnail, $0.sticker ?? ""].allSatisfy(\.isEmpty) } != false, "\(id)")
            #expect(try store.storedMeal(PhotoID(id))?.meal.photo.photoPath.isEmpty != false, "\(id)")
        }
        let jobs = try store.sharedPhotos()
        #expect(jobs.allSatisfy { $0.photoPath.isEmpty || $0.photoPath.hasPrefix(b + "/photos/") }, "\(jobs)")
        let due = try store.dueAnalyses(now: Date()).due
        #expect(due.allSatisfy { $0.photo.photoPath.isEmpty || $0.photo.photoPath.hasPrefix(b + "/photos/") })
        let received = try store.receivedPhotos(now: Date(timeIntervalSince1970: 0))
        #expect(received.allSatisfy { $0.path.hasPrefix(b + "/inbox/") }, "\(received.map(\.path))")
        // Retention and the start's sweep delete what the rows name: only files of the photos.
        #expect(try store.purgePhotos(takenBefore: Date(timeIntervalSince1970: 1_000_000_000)) >= 3)
        _ = try store.removeOrphanFiles()
        #expect(FileManager.default.fileExists(atPath: canary), "the file outside is not deleted")
        #expect(FileManager.default.fileExists(atPath: "/etc/hostname"))
        #expect(try store.meals(on: LocalDay(year: 2026, month: 11, day: 23)).map(\.analysis.title) == ["Meal 2"])
    }

    @Test("should keep none of the file's triggers, views or sessions, and count the meals by its own triggers")
    func schemaObjects() throws {
        let token = "attacker-token-\(UUID().uuidString)"
        let (store, _, _) = try restored("triggers", token)
        let objects = try store.schemaObjects()
        #expect(!objects.contains { $0.hasPrefix("evil") }, "\(objects)")
        let fresh = try StationStore(directory: folder.path + "/fresh").schemaObjects()
        #expect(objects == fresh, "the schema of this binary's migrator, nothing else")
        #expect(try store.sessions().map(\.name) == ["B's phone"], "no session of the file's")
        let hash = SHA256Stream()
        hash.update(Array(token.utf8))
        #expect(try store.session(hash: hash.finish()) == nil)
        _ = try store.forgetSessions()
        #expect(try store.sessions().isEmpty, "nothing plants a session again")
        let day = LocalDay(year: 2026, month: 11, day: 23)
        let photo = ProcessedPhoto(id: PhotoID("new1"), photoPath: "", thumbnailPath: "", takenAt: Date())
        try store.saveMeal(
            Meal(
                photo: photo, day: day,
                analysis: MealAnalysis(
                    title: "Toast", totals: Macros(calories: 90, protein: 3, carbs: 15, fats: 1), items: [])))
        #expect(try store.meals(on: day).map(\.analysis.title) == ["Meal 2", "Toast"])
        #expect(try store.dayTotals(from: day, to: day)[day]?.totals.calories == 302 + 90, "counted by its triggers")
    }

    @Test("should keep the settings the page could set, and hold back the addresses a key or a password goes to")
    func settings() throws {
        let (store, _, _) = try restored("settings", "http://127.0.0.1:9")
        let kept = try store.runtimeSettings()
        #expect(kept.aiService == nil && kept.mqtt == nil && kept.notices == nil, "\(kept)")
        #expect(kept.filter == .vivid && kept.groups == ["Family"], "the rest as the backup had it")
        let waiting = try store.restoredSettings()
        #expect(waiting.aiService?.baseURL == "http://127.0.0.1:9/v1", "waiting for the owner: \(waiting)")
        try store.forgetRestoredSettings()
        #expect(try store.restoredSettings() == RuntimeSettings())
    }

    @Test("should make a working store from one whose marks say done and whose meals are gone")
    func bricked() throws {
        let (store, _, report) = try restored("bricked")
        #expect(report.copied["meals"] == nil)
        #expect(try store.meals(on: LocalDay(year: 2026, month: 11, day: 23)).isEmpty)
        #expect(try store.snapshot(groups: ["Family"], day: LocalDay(year: 2026, month: 11, day: 23)).meals.isEmpty)
        #expect(try store.removeOrphanFiles() >= 0, "the start's sweep runs")
    }

    @Test("should refuse, row by row, ids that are paths, days that are not, numbers past a plate, unknown states")
    func garbage() throws {
        let (store, _, report) = try restored("garbage")
        #expect(report.refused["photos"] == 4, "\(report)")
        #expect(report.refused["meals"] == 3, "\(report)")
        #expect(report.refused["upload_jobs"] == 1 && report.refused["people"] == 2, "\(report)")
        #expect(report.refused["station_marks"] == 1, "\(report)")
        #expect(try store.meals(on: LocalDay(year: 2026, month: 11, day: 30)).isEmpty)
        #expect(try store.household().people.count == 1)
        #expect(try store.meals(on: LocalDay(year: 2026, month: 11, day: 23)).map(\.analysis.title) == ["Meal 2"])
    }
}
