import Logging
import ServiceLifecycle
import SnapFiles

/// The page's long work, run inside the station's `ServiceGroup` like every other service: a correction
/// or a planned meal asked of the AI, an update installed from the page, and the calls to the group's
/// server the Group section waits for.
///
/// A page's answer never waits on the AI or on RAUC: it starts a job here and says it is asking; the job
/// keeps its outcome for the page to show. The group's calls are awaited (`call(_:within:_:)`), by the
/// request's task, never by the page's thread.
///
/// On SIGTERM (the group's graceful shutdown) the service takes no new job, drops those not started, and
/// cancels those running: an install the page started stops its `rauc install` client
/// (`StationUpdater.install` is cancellable) and the station stops within systemd's `TimeoutStopSec`
/// instead of waiting minutes for RAUC's answer. RAUC's own service finishes or abandons what it was
/// writing; the next start reads the slots from RAUC, as after any restart.
public final class PageJobs: Service, Sendable {
    private struct Job: Sendable {
        let name: String
        let work: @Sendable () async -> Void
        /// Told when the job will never run: the service stopped first.
        let dropped: @Sendable () -> Void
    }

    private struct State {
        var closed = false
        var waiting: [Job] = []
        var wake: CheckedContinuation<Void, Never>?
        var running = 0
    }

    private let state = Lock(State())
    private let logger: Logger
    /// A call's limit is counted on this clock.
    private let clock: any ShellClock

    public init(logger: Logger, clock: any ShellClock) {
        self.logger = logger
        self.clock = clock
    }

    /// How many jobs run now (tests, the status page).
    public var running: Int { state.withLock { $0.running } }

    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    while let jobs = await next() {
                        for job in jobs {
                            group.addTask {
                                await job.work()
                                self.state.withLock { $0.running -= 1 }
                            }
                        }
                    }
                    // Stopping: what runs is cancelled, and the group waits for it to return.
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
        }
    }

    /// Starts `work` inside the service; false (and `work` never runs) once the service is stopping.
    @discardableResult
    public func start(_ name: String, _ work: @escaping @Sendable () async -> Void) -> Bool {
        enqueue(Job(name: name, work: work, dropped: {}))
    }

    /// Runs `work` inside the service and returns its value; nil when it took longer than `limit` (it is
    /// cancelled) or the service stopped before it ended.
    public func call<Value: Sendable>(
        _ name: String, within limit: Duration, _ work: @escaping @Sendable () async -> Value
    ) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let answer = Lock<CheckedContinuation<Value?, Never>?>(continuation)
            let reply: @Sendable (Value?) -> Void = { value in answer.withLock { $0.take() }?.resume(returning: value) }
            let job = Job(
                name: name,
                work: {
                    let value = await withTimeout(limit, on: self.clock, work)
                    if value == nil { self.logger.notice("owner's page: \(name) took longer than \(limit)") }
                    reply(value)
                }, dropped: { reply(nil) })
            if !enqueue(job) { reply(nil) }
        }
    }

    // MARK: Inside

    private func enqueue(_ job: Job) -> Bool {
        let wake = state.withLock { state -> CheckedContinuation<Void, Never>?? in
            guard !state.closed else { return nil }
            state.waiting.append(job)
            defer { state.wake = nil }
            return .some(state.wake)
        }
        guard let wake else {
            logger.notice("owner's page: \(job.name) not started: the station is stopping")
            return false
        }
        wake?.resume()
        return true
    }

    /// The jobs submitted since the last call, waiting for one; nil once the service is stopping.
    private func next() async -> [Job]? {
        while true {
            let taken = state.withLock { state -> [Job]?? in
                if state.closed { return .some(nil) }
                guard !state.waiting.isEmpty else { return nil }
                defer { state.waiting = [] }
                state.running += state.waiting.count
                return .some(state.waiting)
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.closed || !state.waiting.isEmpty { return true }
                    state.wake = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    private func close() {
        let (wake, dropped) = state.withLock { state in
            state.closed = true
            defer { (state.wake, state.waiting) = (nil, []) }
            return (state.wake, state.waiting)
        }
        for job in dropped {
            logger.notice("owner's page: \(job.name) not started: the station is stopping")
            job.dropped()
        }
        wake?.resume()
    }
}
