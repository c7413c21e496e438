import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapTestSupport
import Testing

@Suite("StationStore")
struct StationStoreTests {
    let folder = TemporaryDirectory("store")
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let noon = Date(timeIntervalSince1970: 1_773_140_400)  // 2026-03-10 12:00 Berlin

    private func store() throws -> StationStore { try StationStore(directory: folder.path) }

    private func photo(_ store: StationStore, _ id: String, at date: Date? = nil) throws -> ProcessedPhoto {
        let paths = store.paths(for: PhotoID(id), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID(id), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: date ?? noon)
        try store.storePhoto(photo, jpeg: Array("photo \(id)".utf8), thumbnail: Array("thumb \(id)".utf8))
        return photo
    }

    @Test("should keep the database in WAL mode and write photos before their rows")
    func walAndPhotos() throws {
        let store = try store()
        let stored = try photo(store, "p1")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/snapstation.sqlite-wal"))
        #expect(try String(contentsOfFile: stored.photoPath, encoding: .utf8) == "photo p1")
        #expect(try String(contentsOfFile: stored.thumbnailPath, encoding: .utf8) == "thumb p1")
        #expect(!folder.files().contains { $0.contains(AtomicFile.temporaryPrefix) })
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("should give an empty snapshot for a new store")
    func emptySnapshot() throws {
        let snapshot = try store().snapshot(groups: ["Family"], day: day)
        #expect(snapshot == StationSnapshot())
    }

    @Test("should give back today's meals, AI uses and sent days after reopening")
    func snapshotAfterReopen() throws {
        do {
            let store = try store()
            let stored = try photo(store, "m1")
            let analysis = MealAnalysis(
                title: "Soup", totals: Macros(calories: 300, protein: 10, carbs: 30, fats: 12),
                items: [MealItem(name: "Lentils", grams: 250, macros: .zero, contains: [.gluten])])
            try store.saveMeal(Meal(photo: stored, day: day, analysis: analysis))
            try store.recordAIUse(on: day)
            try store.recordAIUse(on: day)
            try store.share(stored, group: "Family", day: day, now: noon)
        }
        let snapshot = try store().snapshot(groups: ["Family"], day: day)
        #expect(snapshot.aiUses == [day: 2])
        #expect(snapshot.groupSends == ["Family": [day]])
        #expect(snapshot.latestDay == day)
        #expect(snapshot.meals.map(\.analysis.title) == ["Soup"])
        #expect(snapshot.meals.first?.analysis.items.first?.contains == [.gluten])
        #expect(try store().snapshot(groups: ["Other"], day: day).groupSends.isEmpty)
    }

    @Test("should claim a group's day once, queue one job, and free the day on release")
    func oncePerDay() throws {
        let store = try store()
        let first = try photo(store, "a")
        let second = try photo(store, "b")
        #expect(try store.share(first, group: "Family", day: day, now: noon))
        #expect(try !store.share(second, group: "Family", day: day, now: noon))
        #expect(try store.pendingJobs().map(\.photoID) == [first.id])
        try store.releaseGroupDay(day, group: "Family")
        #expect(try store.share(second, group: "Family", day: day, now: noon))
    }

    @Test("should hand out due jobs, back off failed ones and finish delivered ones")
    func queue() throws {
        let store = try store()
        let stored = try photo(store, "q")
        try store.share(stored, group: "Family", day: day, now: noon)
        let job = try #require(try store.dueJobs(now: noon).first)
        try store.markRetry(job, error: "offline", nextAttempt: noon + 60)
        #expect(try store.dueJobs(now: noon + 30).isEmpty)
        #expect(try store.nextAttempt() == noon + 60)
        let again = try #require(try store.dueJobs(now: noon + 60).first)
        #expect(again.attempts == 1)
        #expect(again.lastError == "offline")
        try store.markDelivered(again)
        #expect(try store.pendingJobs().isEmpty)
        #expect(try store.job(for: stored.id)?.state == .delivered)
    }

    @Test("should keep a queued analysis until it is answered, counted once, and reviewed into a meal")
    func analysisJobs() throws {
        let store = try store()
        let stored = try photo(store, "m")
        try store.queueAnalysis(stored, day: day, now: noon)
        try store.queueAnalysis(stored, day: day, now: noon)
        #expect(try store.dueAnalyses(now: noon).due.count == 1, "queued once")
        try store.failAnalysis(stored.id, error: "offline", nextAttempt: noon + 30)
        #expect(try store.dueAnalyses(now: noon + 10).due.isEmpty)
        #expect(try store.dueAnalyses(now: noon + 10).next == noon + 30)
        let again = try #require(try store.dueAnalyses(now: noon + 30).due.first)
        #expect(again.attempts == 1)
        let analysis = MealAnalysis(title: "Late lunch", totals: .zero, items: [])
        try store.recordAnswer(stored.id, analysis, usedOn: day)
        #expect(try store.dueAnalyses(now: noon + 60).due.isEmpty)
        #expect(try store.snapshot(groups: [], day: day).reviews.map(\.analysis.title) == ["Late lunch"])
        #expect(try store.aiUses(on: day) == 1, "counted with the answer")
        try store.saveMeal(Meal(photo: stored, day: day, analysis: analysis))
        let snapshot = try store.snapshot(groups: [], day: day)
        #expect(snapshot.meals.map(\.analysis.title) == ["Late lunch"])
        #expect(snapshot.reviews.isEmpty, "saving closes the job")
        #expect(snapshot.aiUses == [day: 1])
    }

    @Test("should send an analysis a stop cut off back to the queue, and count a refused answer")
    func interruptedAnalysis() throws {
        let store = try store()
        let cut = try photo(store, "cut")
        let refused = try photo(store, "refused")
        try store.beginAnalysis(cut, day: day, now: noon)
        try store.beginAnalysis(refused, day: day, now: noon)
        try store.failAnalysis(refused.id, error: "refused", nextAttempt: nil, answeredOn: day)
        #expect(try store.dueAnalyses(now: noon + 1).due.isEmpty, "a request in flight is not the queue's")
        #expect(try store.requeueInterruptedAnalyses() == 1)
        #expect(try store.dueAnalyses(now: noon + 1).due.map(\.photo.id) == [cut.id])
        #expect(try store.aiUses(on: day) == 1)
        try store.discardAnalysis(cut.id)
        #expect(try store.dueAnalyses(now: noon + 1).due.isEmpty)
    }

    @Test("should remove a photo file a crash left without its row, and keep every file a row names")
    func orphans() throws {
        let store = try store()
        let kept = try photo(store, "kept")
        let orphan = store.paths(for: PhotoID("orphan"), day: day).photo
        try AtomicFile.write(Array("half a capture".utf8), to: orphan)
        #expect(try store.removeOrphanFiles() == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.fileExists(atPath: kept.photoPath))
        #expect(FileManager.default.fileExists(atPath: kept.thumbnailPath))
        #expect(try store.removeOrphanFiles() == 0)
    }

    @Test("should give up an analysis job when told there is no next attempt")
    func analysisGivenUp() throws {
        let store = try store()
        let stored = try photo(store, "x")
        try store.queueAnalysis(stored, day: day, now: noon)
        try store.failAnalysis(stored.id, error: "refused", nextAttempt: nil)
        #expect(try store.dueAnalyses(now: noon + 3600).due.isEmpty)
        #expect(try store.dueAnalyses(now: noon + 3600).next == nil)
    }

    @Test("should delete photos past the retention, stickers too, and expire their uploads")
    func retention() throws {
        let store = try store()
        let paths = store.paths(for: PhotoID("old"), day: day)
        let old = ProcessedPhoto(
            id: PhotoID("old"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: noon - 49 * 3600,
            stickerPath: paths.sticker)
        try store.storePhoto(old, jpeg: [1], thumbnail: [2], sticker: [3])
        #expect(try store.stickerPath(for: old.id) == paths.sticker)
        #expect(FileManager.default.fileExists(atPath: paths.sticker))
        let fresh = try photo(store, "fresh", at: noon - 3600)
        try store.share(old, group: "Family", day: day, now: noon)
        #expect(try store.purgePhotos(takenBefore: noon - 48 * 3600) == 1)
        #expect(!FileManager.default.fileExists(atPath: old.photoPath))
        #expect(!FileManager.default.fileExists(atPath: old.thumbnailPath))
        #expect(!FileManager.default.fileExists(atPath: paths.sticker))
        #expect(FileManager.default.fileExists(atPath: fresh.photoPath))
        #expect(try store.job(for: old.id)?.state == .expired)
    }

    @Test("should clear temporary files a crash left behind when it opens")
    func leftovers() throws {
        let stray = folder.path + "/photos/2026-03-10/\(AtomicFile.temporaryPrefix)x.jpg.123.456"
        try FileManager.default.createDirectory(
            atPath: folder.path + "/photos/2026-03-10", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: stray, contents: Data("half".utf8)))
        _ = try store()
        #expect(!FileManager.default.fileExists(atPath: stray))
    }

    @Test("should keep a meal's sticker past the photo's retention, until the meal is deleted or the cap takes it")
    func stickersStay() throws {
        let store = try store()
        var ids: [PhotoID] = []
        for (index, hoursAgo) in [72, 60, 50].enumerated() {
            let id = PhotoID("m\(index)")
            let paths = store.paths(for: id, day: day)
            let photo = ProcessedPhoto(
                id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail,
                takenAt: noon - Double(hoursAgo) * 3600, stickerPath: paths.sticker)
            try store.storePhoto(photo, jpeg: [1], thumbnail: [2], sticker: [UInt8](repeating: 9, count: 1000))
            try store.saveMeal(
                Meal(photo: photo, day: day, analysis: MealAnalysis(title: "m", totals: .zero, items: [])))
            ids.append(id)
        }
        #expect(try store.purgePhotos(takenBefore: noon - 48 * 3600) == 3)
        let meals = try store.meals(on: day)
        #expect(meals.count == 3)
        for meal in meals {
            #expect(!FileManager.default.fileExists(atPath: meal.photo.photoPath), "the photo goes")
            let sticker = try #require(meal.photo.stickerPath)
            #expect(FileManager.default.fileExists(atPath: sticker), "the sticker stays")
        }
        // A start after the purge does not take the stickers for orphans.
        #expect(try store.removeOrphanFiles() == 0)
        // Over the cap, the oldest go first.
        #expect(try store.trimStickers(capBytes: 2500) == 1)
        let trimmed = try store.meals(on: day)
        #expect(trimmed.map { $0.photo.stickerPath == nil } == [true, false, false])
        #expect(!FileManager.default.fileExists(atPath: store.paths(for: ids[0], day: day).sticker))
        #expect(try store.trimStickers(capBytes: 2500) == 0)
        // Deleting a meal deletes its sticker.
        let kept = try #require(trimmed[2].photo.stickerPath)
        #expect(try store.deleteMeal(ids[2]))
        #expect(!FileManager.default.fileExists(atPath: kept))
        #expect(try store.integrityCheck() == "ok")
    }
}
