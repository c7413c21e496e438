import SnapFiles
import SnapImaging
import Synchronization

/// The stills asked of a camera, served oldest first, each failing by itself when no frame came for it
/// within the still timeout: the one still queue every camera driver uses (`LibcameraCamera`,
/// `V4L2Camera`), so the rules of the `Camera` port's `captureStill` are kept in one place.
///
/// - A still is asked only of an open session (`open` at the start of `streamPreview`, `close` when it
///   ends): otherwise "the camera is not running" at once. While the session switches configuration or
///   starts it is queued, not refused (the capture and the reference frame may ask together).
/// - Each request's timeout is an entry on one `TimerThread`, removed when the still is served: a
///   sleeping `Task` per still stayed in the concurrency runtime until its deadline, served or not.
/// - `close` fails every request waiting with the session's reason, so nobody waits for a camera gone.
/// - The driver's camera thread takes the oldest (`beginTaking`, then `finishTaking`; or `finishOldest`
///   for a driver that takes the next frame of its stream). `wake`, given with each request, tells that
///   thread to look: when the request is queued, and when its timeout removed it (a single-stream camera
///   then goes back to its preview configuration).
///
/// Continuations are resumed outside the queue's lock; a driver may ask the queue while holding its own
/// lock (its lock, then the queue's), never the other way round.
public final class StillQueue: Sendable {
    /// One still asked for: its number, and when it was asked (monotonic uptime, for the shutter lag).
    public struct Request: Sendable, Hashable {
        public let number: Int
        public let requested: Duration
    }

    private struct Waiting {
        var request: Request
        var waiter: CheckedContinuation<Result<PixelImage, DeviceError>, Never>
        var wake: @Sendable () -> Void
    }

    private struct State {
        var open = false
        var waiting: [Waiting] = []
        var nextNumber = 0
        /// The request whose frame the camera was asked for (the oldest).
        var taking: Int?
    }

    /// How long a still may take, from the request, before it fails.
    public let timeout: Duration
    private let state = Lock(State())
    private let timers: TimerThread<Int>

    public init(timeout: Duration, name: String = "camera-stills", clock: any ShellClock = SystemClock()) {
        self.timeout = timeout
        self.timers = TimerThread(name: name, clock: clock)
    }

    deinit { timers.shutDown() }

    /// A session starts: stills are taken from now on.
    public func open() { state.withLock { $0.open = true } }

    /// The session ended: every still waiting fails with `reason`, and none is taken until `open`.
    public func close(failing reason: DeviceError) {
        let waiting = state.withLock { state in
            defer { state = State(open: false, waiting: [], nextNumber: state.nextNumber, taking: nil) }
            return state.waiting
        }
        timers.cancelAll()
        for entry in waiting { entry.waiter.resume(returning: .failure(reason)) }
    }

    /// Waits for the next still of the open session; `wake` tells the camera thread to look at the queue.
    public func ask(wake: @escaping @Sendable () -> Void) async -> Result<PixelImage, DeviceError> {
        await withCheckedContinuation { continuation in
            let number = state.withLock { state -> Int? in
                guard state.open else { return nil }
                state.nextNumber += 1
                let request = Request(number: state.nextNumber, requested: MonotonicClock.now())
                state.waiting.append(Waiting(request: request, waiter: continuation, wake: wake))
                return request.number
            }
            guard let number else {
                continuation.resume(returning: .failure(DeviceError(.camera, "the camera is not running")))
                return
            }
            timers.start(number, at: timers.clock.uptime + timeout) { [weak self] in self?.expire(number) }
            wake()
        }
    }

    /// No still waits.
    public var isEmpty: Bool { state.withLock { $0.waiting.isEmpty } }

    /// The oldest still waiting.
    public var oldest: Request? { state.withLock { $0.waiting.first?.request } }

    /// The camera was asked for the oldest still's frame.
    public var isTaking: Bool { state.withLock { $0.taking != nil } }

    /// Marks the oldest still as being taken; nil when one already is, or none waits.
    public func beginTaking() -> Request? {
        state.withLock { state in
            guard state.taking == nil, let first = state.waiting.first else { return nil }
            state.taking = first.request.number
            return first.request
        }
    }

    /// Completes the still being taken with `result`; nil (and nothing done) when none is.
    @discardableResult
    public func finishTaking(_ result: Result<PixelImage, DeviceError>) -> Request? {
        let entry = state.withLock { state -> Waiting? in
            guard let taking = state.taking, state.waiting.first?.request.number == taking else { return nil }
            state.taking = nil
            return state.waiting.removeFirst()
        }
        return complete(entry, result)
    }

    /// Completes the oldest still with `result`, calling `first` with its request before the asker
    /// resumes (to note the shutter lag the asker may read); nil when none waits.
    @discardableResult
    public func finishOldest(_ result: Result<PixelImage, DeviceError>, first: (Request) -> Void = { _ in }) -> Request?
    {
        let entry = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else { return nil }
            state.taking = nil
            return state.waiting.removeFirst()
        }
        return complete(entry, result, first: first)
    }

    private func complete(
        _ entry: Waiting?, _ result: Result<PixelImage, DeviceError>, first: (Request) -> Void = { _ in }
    ) -> Request? {
        guard let entry else { return nil }
        timers.cancel(entry.request.number)
        first(entry.request)
        entry.waiter.resume(returning: result)
        return entry.request
    }

    /// On the timer thread: request `number` had no frame in time.
    private func expire(_ number: Int) {
        let entry = state.withLock { state -> Waiting? in
            guard let index = state.waiting.firstIndex(where: { $0.request.number == number }) else { return nil }
            if state.taking == number { state.taking = nil }
            return state.waiting.remove(at: index)
        }
        guard let entry else { return }
        entry.wake()
        entry.waiter.resume(returning: .failure(DeviceError(.camera, "no still within \(timeout) of the request")))
    }
}
