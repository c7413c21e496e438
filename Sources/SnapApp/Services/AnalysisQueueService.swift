import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapText

/// Works a durable queue until the task is cancelled: drains what is due, then sleeps on `clock` until
/// the next attempt `drain` reports (a time of the wall clock, as the queue's rows keep it) and 50 ms,
/// or until `wake` is signalled (a job was added).
func workQueue(wake: WakeSignal, clock: any ShellClock, drain: () async -> Date?) async {
    while !Task.isCancelled {
        let next = await drain()
        let deadline = next.map { next in
            clock.uptime + .milliseconds(Int64(max(0, next.timeIntervalSince(clock.wall)) * 1000) + 50)
        }
        await wake.wait(untilUptime: deadline, on: clock)
    }
}

/// Asks the AI service about the meals whose analysis could not happen at the time: photographed while the
/// network was down, or cut off by a stop. An answer goes to the station for review (`.analysisAnswered`),
/// never into the log unseen.
///
/// It keeps to the daily limit: each answer counts against the day it came, and once the day's analyses
/// are used up the queue waits for midnight. Failures that heal (offline, timeouts, 5xx, 429) wait with
/// the upload queue's backoff; those that will not (a refused key, a refusal, an unreadable answer) are
/// given up with the reason in the log. The photo stays on disk either way.
public final class AnalysisQueueService: Service {
    private let store: StationStore
    private let analyzer: any MealAnalyzer
    private let bus: EventBus
    private let logger: Logger
    private let dailyLimit: Int
    private let timeZone: TimeZone
    private let dietary: @Sendable () -> [DietaryPreference]
    private let language: @Sendable () -> Language
    private let clock: any ShellClock
    private let wake = WakeSignal()

    public init(
        store: StationStore, analyzer: any MealAnalyzer, bus: EventBus, logger: Logger, dailyLimit: Int,
        timeZone: TimeZone, dietary: @escaping @Sendable () -> [DietaryPreference] = { [] },
        language: @escaping @Sendable () -> Language = { .en }, clock: any ShellClock = SystemClock()
    ) {
        self.clock = clock
        self.dietary = dietary
        self.language = language
        self.store = store
        self.analyzer = analyzer
        self.bus = bus
        self.logger = logger
        self.dailyLimit = dailyLimit
        self.timeZone = timeZone
    }

    /// Looks at the queue now: a photo was just queued.
    public func kick() { wake.signal() }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await workQueue(wake: self.wake, clock: self.clock) { await self.drain() }
        }
    }

    private func drain() async -> Date? {
        do {
            for job in try store.dueAnalyses(now: clock.wall).due where !Task.isCancelled {
                let today = try store.stationDay(in: timeZone).today(at: clock.wall)
                if DailyBudget(limit: dailyLimit, used: try store.aiUses(on: today)).isSpent {
                    logger.notice("analysis queue: today's \(dailyLimit) analyses are used up; it waits for midnight")
                    return DailyLimit.nextReset(after: today, in: timeZone)
                }
                guard await analyse(job, today: today) else { break }
            }
            return try store.dueAnalyses(now: clock.wall).next
        } catch {
            logger.error("analysis queue: \(error)")
            return clock.wall.addingTimeInterval(60)
        }
    }

    /// Analyses one job; false when the service is still out of reach (the rest would fail alike).
    private func analyse(_ job: AnalysisJob, today: LocalDay) async -> Bool {
        let id = job.photo.id
        guard let photo = FileBytes.readIfPresent(job.photo.photoPath) else {
            await record("give up on \(id)") { store throws(StoreError) in
                try store.failAnalysis(id, error: "the photo file is gone", nextAttempt: nil)
            }
            logger.error("gave up on the analysis of \(id): the photo file is gone")
            return true
        }
        do {
            let analysis = try await analyzer.analyse(jpeg: photo, dietary: dietary(), language: language())
            try await store.writing { store throws(StoreError) in
                try store.recordAnswer(id, analysis, usedOn: today)
            }
            logger.info("queued analysis of \(id) answered; it waits for review")
            bus.send(
                .analysisAnswered(MealReview(photo: job.photo, day: job.day, analysis: analysis, person: job.person)))
            return true
        } catch let failure as AIFailure {
            switch failure.isTransient {
            case true:
                let wait: TimeInterval =
                    if case .rateLimited(let after?) = failure { max(after.seconds, 5) } else {
                        UploadService.backoff(afterAttempts: job.attempts)
                    }
                let next = clock.wall.addingTimeInterval(wait)
                await record("requeue \(id)") { store throws(StoreError) in
                    try store.failAnalysis(id, error: failure.message, nextAttempt: next)
                }
                logger.notice("analysis of \(id) waits: \(failure.message); next try in \(Int(wait)) s")
                return false
            case false:
                let answered = failure.cameFromAnAnswer ? today : nil
                await record("give up on \(id)") { store throws(StoreError) in
                    try store.failAnalysis(id, error: failure.message, nextAttempt: nil, answeredOn: answered)
                }
                logger.error("gave up on the analysis of \(id): \(failure.message)")
                return true
            }
        } catch {
            logger.error("analysis of \(id): \(error)")
            return true
        }
    }

    /// Writes a change of the queue on the store's thread; a failure is logged and the job keeps its
    /// old state, so it is tried again.
    private func record(_ what: String, _ write: @escaping @Sendable (StationStore) throws(StoreError) -> Void) async {
        do throws(StoreError) {
            try await store.writing(write)
        } catch {
            logger.error("analysis queue: \(what): \(error)")
        }
    }
}
