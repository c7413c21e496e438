import SnapFiles
import Synchronization

/// Who needs the camera streaming now, and whether it is.
///
/// A station left alone for months should not stream its camera all day for a preview nobody sees: the
/// camera runs only while someone holds it. The state machine holds it while its picture shows or a
/// shot is coming (`Action.setCamera`); the reference service holds it for the moment it takes the empty
/// scene. `CameraService` opens the camera when the first holder comes and closes it when the last one
/// goes, and says here when frames flow, which a capture waits for.
public final class CameraDemand: Sendable {
    public enum Holder: Sendable, Hashable {
        /// The state machine: the preview shows, or a countdown runs.
        case station
        /// The reference service, taking its picture of the empty scene.
        case reference
    }

    private struct Waiter {
        var id: Int
        var until: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    struct State: Sendable {
        var holders: Set<Holder> = []
        var streaming = false
        /// When the camera was last asked for after nobody held it (the wake's start).
        var askedAt: ContinuousClock.Instant?
        var wanted: Bool { !holders.isEmpty }
    }

    private let state = Lock((State(), [Waiter](), 0))
    /// A still's wait for the camera's start is counted on this clock.
    private let clock: any ShellClock

    public init(clock: any ShellClock) {
        self.clock = clock
    }

    public var wanted: Bool { state.withLock { $0.0.wanted } }
    /// How many tasks wait on a change here: the camera service waits for the first holder while the camera
    /// is closed, and for the last one to go while it streams.
    public var waiting: Int { state.withLock { $0.1.count } }
    public var streaming: Bool { state.withLock { $0.0.streaming } }

    /// `holder` needs the camera (`on`) or no longer does.
    public func hold(_ holder: Holder, _ on: Bool) {
        change { state in
            if on && state.holders.isEmpty { state.askedAt = .now }
            if on { state.holders.insert(holder) } else { state.holders.remove(holder) }
        }
    }

    /// The camera service: frames flow (true), or the camera was closed or failed (false). Returns how
    /// long the camera took from being asked for to its first frame, once per wake.
    @discardableResult
    func setStreaming(_ streaming: Bool) -> Duration? {
        var woke: Duration?
        change { state in
            state.streaming = streaming
            if streaming, let asked = state.askedAt {
                woke = .now - asked
                state.askedAt = nil
            }
        }
        return woke
    }

    /// Waits until someone needs the camera; false if the task was cancelled first.
    func untilWanted() async -> Bool { await until { $0.wanted } }

    /// Waits until nobody needs the camera; false if the task was cancelled first.
    func untilUnwanted() async -> Bool { await until { !$0.wanted } }

    /// Waits until frames flow, at most `timeout`; true if they do.
    public func untilStreaming(timeout: Duration) async -> Bool {
        if streaming { return true }
        let started = await withTimeout(timeout, on: clock) { await self.until { $0.streaming } }
        return started == true || streaming
    }

    // MARK: Inside

    private func change(_ body: (inout State) -> Void) {
        let ready = state.withLock { all -> [Waiter] in
            body(&all.0)
            let current = all.0
            let ready = all.1.filter { $0.until(current) }
            all.1.removeAll { $0.until(current) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Returns true once `condition` holds, false when the task is cancelled first.
    private func until(_ condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        let id = state.withLock { all in
            all.2 += 1
            return all.2
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { all -> Bool? in
                    if condition(all.0) { return true }
                    if Task.isCancelled { return false }
                    all.1.append(Waiter(id: id, until: condition, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { all -> Waiter? in
                guard let index = all.1.firstIndex(where: { $0.id == id }) else { return nil }
                return all.1.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
