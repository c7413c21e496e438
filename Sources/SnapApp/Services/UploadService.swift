import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import Synchronization

/// Works the upload queue: each due job goes to the group backend; failures that may heal are retried
/// with exponential backoff and jitter, those that will not are given up with a reason. The queue lives
/// in SQLite, so it survives restarts and power cuts; backends treat a repeated photo id as done, so a
/// job cut off mid-upload is completed, not duplicated.
public final class UploadService: Service {
    private let store: StationStore
    private let backend: any GroupBackend
    private let bus: EventBus
    private let logger: Logger
    private let stationName: String
    private let shareSticker: Bool
    private let clock: any ShellClock
    private let wake = WakeSignal()

    public init(
        store: StationStore, backend: any GroupBackend, bus: EventBus, logger: Logger, stationName: String,
        shareSticker: Bool = false, clock: any ShellClock = SystemClock()
    ) {
        self.clock = clock
        self.store = store
        self.backend = backend
        self.bus = bus
        self.logger = logger
        self.stationName = stationName
        self.shareSticker = shareSticker
    }

    /// Whether group photos go out with their sticker (`processing.share_sticker`).
    public var sharesSticker: Bool { shareSticker }

    /// Looks at the queue now: a job was just added.
    public func kick() { wake.signal() }

    /// The wait before attempt `attempts + 1`: 5 s doubling to at most 10 min, ±20 % so that stations
    /// coming back online together do not retry in step.
    public static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        let base = min(600, 5 * pow(2, Double(min(attempts, 10))))
        return base * Double.random(in: 0.8...1.2)
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.backend.removeLeftovers()
            if let pending = try? self.store.pendingJobs(), !pending.isEmpty {
                self.logger.notice("\(pending.count) photo(s) waiting in the upload queue")
                // After a restart (a power cut, most often) every waiting photo is tried once at once:
                // the outage its backoff was waiting out may have ended with the power. The analysis
                // queue keeps its times, which may be the AI service's own Retry-After.
                await self.drain(dueBy: .distantFuture)
            }
            await workQueue(wake: self.wake, clock: self.clock) {
                await self.drain()
                return try? self.store.nextAttempt()
            }
        }
    }

    /// Sends the jobs due by `time` (now, unless told otherwise).
    private func drain(dueBy time: Date? = nil) async {
        let jobs: [UploadJob]
        do {
            jobs = try store.dueJobs(now: time ?? clock.wall)
        } catch {
            logger.error("upload queue: \(error)")
            return
        }
        for job in jobs where !Task.isCancelled {
            guard await send(job) else { return }  // offline: the rest would fail the same way
        }
    }

    /// Sends one job; returns false when the backend is offline.
    private func send(_ job: UploadJob) async -> Bool {
        let id = job.photoID
        guard let bytes = FileBytes.readIfPresent(job.photoPath) else {
            await give(up: job, .rejected("the photo file is gone"))
            return true
        }
        let stickerPath = shareSticker ? (try? store.stickerPath(for: id)) ?? nil : nil
        let sticker = stickerPath.flatMap(FileBytes.readIfPresent)
        let upload = GroupUpload(
            photoID: id, group: job.group, day: job.day, jpeg: bytes, takenAt: job.takenAt,
            expiresAt: job.takenAt.addingTimeInterval(GroupUpload.lifetime), station: stationName,
            sticker: sticker)
        // Declared outside the `do`: Swift 6.2's compiler crashes on a local `Mutex` that an escaping
        // closure captures inside one ("Found outside of lifetime use!"; Debian's 6.2.3, assertions on).
        let progress = Lock(ProgressThrottle())
        do {
            try await backend.upload(upload) { [bus] fraction in
                if progress.withLock({ $0.admits(fraction) }) { bus.send(.uploadProgress(id, fraction)) }
            }
            await record("mark \(id) delivered") { store throws(StoreError) in try store.markDelivered(job) }
            logger.info("delivered \(id) to \(job.group)", metadata: ["attempt": "\(job.attempts + 1)"])
            bus.send(.uploaded(id))
            return true
        } catch let failure where failure.mayHeal {
            let delay = Self.backoff(afterAttempts: job.attempts)
            let reason =
                switch failure {
                case .destinationFull: "the group's folder is full"
                case .untrusted(let detail): "the server could not be verified (\(detail))"
                case .signInFailed(let detail): "group sign-in failed: \(detail)"
                default: "offline"
                }
            let next = clock.wall.addingTimeInterval(delay)
            await record("requeue \(id)") { store throws(StoreError) in
                try store.markRetry(job, error: reason, nextAttempt: next)
            }
            logger.warning("\(reason): \(id) stays queued, next try in \(Int(delay)) s")
            bus.send(.uploadFailed(id, failure))
            return false
        } catch {
            await give(up: job, error)
            return true
        }
    }

    private func give(up job: UploadJob, _ failure: UploadFailure) async {
        await record("give up on \(job.photoID)") { store throws(StoreError) in
            try store.markFailed(job, error: "\(failure)")
        }
        logger.error("gave up on \(job.photoID) for \(job.group): \(failure)")
        bus.send(.uploadFailed(job.photoID, failure))
    }
}

extension UploadService {
    /// Writes a change of the queue on the store's thread; a failure is logged, and the job keeps its
    /// old state (it is tried again, and the backend treats a repeat of its photo id as done).
    fileprivate func record(_ what: String, _ write: @escaping @Sendable (StationStore) throws(StoreError) -> Void)
        async
    {
        do throws(StoreError) {
            try await store.writing(write)
        } catch {
            logger.error("upload queue: \(what): \(error)")
        }
    }
}
