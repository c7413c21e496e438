import Foundation
import Logging
import SnapApp
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import SnapText
import Synchronization
import Testing

/// An analyser that fails with what it is given, and counts the calls.
private final class FailingAnalyzer: MealAnalyzer {
    let failure: AIFailure
    let calls = Lock(0)
    init(_ failure: AIFailure) { self.failure = failure }
    func analyse(jpeg: [UInt8], dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis
    {
        calls.withLock { $0 += 1 }
        throw failure
    }
    func correct(
        jpeg: [UInt8], first: MealAnalysis, sentence: String, dietary: [DietaryPreference], language: Language
    ) async throws(AIFailure) -> MealAnalysis {
        throw failure
    }
    func describe(_ sentence: String, dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis
    {
        throw failure
    }
    func plan(_ request: PlanRequest, dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealPlan
    {
        throw failure
    }
}

@Suite("The delayed-analysis queue: what may heal waits, what will not ends with its reason")
struct AnalysisQueueServiceTests {
    let folder = TemporaryDirectory("analysis-queue")
    let clock = HeldClock()

    /// Starts the queue, on the held clock, over one photo queued a second ago.
    private func start(_ failure: AIFailure) throws -> (StationStore, FailingAnalyzer, Task<Void, any Error>) {
        let store = try StationStore(directory: folder.path + "/state")
        let day = LocalDay(containing: clock.wall, in: TimeZone(identifier: "UTC")!)
        let paths = store.paths(for: PhotoID("m1"), day: day)
        let photo = ProcessedPhoto(
            id: PhotoID("m1"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: clock.wall)
        try store.storePhoto(photo, jpeg: [0xFF, 0xD8, 0xFF, 0xD9], thumbnail: [0xFF, 0xD8, 0xFF, 0xD9])
        try store.queueAnalysis(photo, day: day, now: clock.wall.addingTimeInterval(-1))
        let analyzer = FailingAnalyzer(failure)
        let service = AnalysisQueueService(
            store: store, analyzer: analyzer, bus: EventBus(), logger: Logger(label: "test"), dailyLimit: 10,
            timeZone: TimeZone(identifier: "UTC")!, clock: clock)
        return (store, analyzer, Task { try await service.run() })
    }

    @Test("should end the job of a permanent failure at once, with its words on the status page")
    func permanent() async throws {
        let (store, analyzer, running) = try start(.modelUnavailable("gpt-9"))
        defer { running.cancel() }
        // Asked, and the outcome written: no job left to wait for, so no wait on the clock to see.
        #expect(
            await HangGuard.wait(for: "the analyser asked and the job ended", log: nil) {
                analyzer.calls.withLock { $0 } == 1 && ((try? store.dueAnalyses(now: clock.wall).due.isEmpty) ?? false)
            })
        #expect(try store.dueAnalyses(now: clock.wall.addingTimeInterval(86_400)).due.isEmpty, "never tried again")
        #expect(analyzer.calls.withLock { $0 } == 1)
        #expect(try store.queueStatus().lastErrors == ["analysis m1: Model gpt-9 is not available to this key"])
    }

    @Test("should keep the job of a transient failure, and try again exactly after its backoff")
    func transient() async throws {
        let (store, analyzer, running) = try start(.serverError(status: 503))
        defer { running.cancel() }
        // The queue sleeps on the held clock until the next try: the upload queue's backoff after the first
        // attempt, 5 s ±20 %, and the 50 ms the queue adds (time stands still, so nothing else comes first).
        let first = try #require(await clock.sleepers(1).first)
        #expect(analyzer.calls.withLock { $0 } == 1)
        #expect(first >= .milliseconds(4_050) && first <= .milliseconds(6_050), "\(first)")
        #expect(try store.dueAnalyses(now: clock.wall).due.isEmpty, "not due before its backoff")
        #expect(try store.queueStatus().analyses == 1)
        // At its deadline it is asked again, and waits twice as long (10 s ±20 %) from there.
        clock.advance(by: first)
        #expect(
            await HangGuard.wait(for: "the second attempt", log: nil) { analyzer.calls.withLock { $0 } == 2 })
        let second = try #require(await clock.sleepers(1).first)
        #expect(second - first >= .milliseconds(8_050) && second - first <= .milliseconds(12_050), "\(second - first)")
        #expect(try store.queueStatus().analyses == 1, "still queued")
    }
}
