import SnapFiles
import Synchronization

/// The hand-over point between the camera and the display: one slot, the newest frame wins.
///
/// The preview never queues: a frame not yet taken when the next arrives is dropped and counted, so a
/// slow display shows a recent picture instead of falling further behind.
public final class PreviewSlot: Sendable {
    private struct State {
        var frame: PreviewFrame?
        var fresh = false
        var delivered = 0
        var dropped = 0
        var waiter: CheckedContinuation<PreviewFrame?, Never>?
    }

    private let state = Lock(State())

    public init() {}

    /// Puts a new frame in the slot, dropping the previous one if nobody took it.
    public func put(_ frame: PreviewFrame) {
        let waiter = state.withLock { state -> CheckedContinuation<PreviewFrame?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                state.frame = frame
                state.delivered += 1
                return waiter
            }
            if state.fresh { state.dropped += 1 }
            state.frame = frame
            state.fresh = true
            return nil
        }
        waiter?.resume(returning: frame)
    }

    /// Empties the slot when the camera stops: its buffer goes back, and no stale picture is drawn when
    /// the camera starts again.
    public func clear() {
        let old = state.withLock { state -> PreviewFrame? in
            defer {
                state.frame = nil
                state.fresh = false
            }
            return state.frame
        }
        _ = old  // released here, outside the lock
    }

    /// The newest frame, without waiting; nil before the first.
    public var latest: PreviewFrame? { state.withLock { $0.frame } }

    /// A reader waits for the next frame (the display thread, asleep in `next`).
    public var isAwaited: Bool { state.withLock { $0.waiter != nil } }

    /// Frames dropped because a newer one arrived first.
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// Waits for a frame newer than the last one taken; nil if the task is cancelled.
    public func next() async -> PreviewFrame? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> PreviewFrame?? in
                    if state.fresh {
                        state.fresh = false
                        state.delivered += 1
                        return .some(state.frame)
                    }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// The preview as an async sequence: each element is the newest frame since the last one taken; the
/// sequence ends when the task is cancelled.
extension PreviewSlot: AsyncSequence {
    public typealias Element = PreviewFrame

    public struct AsyncIterator: AsyncIteratorProtocol {
        let slot: PreviewSlot
        public mutating func next() async -> PreviewFrame? { await slot.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(slot: self) }
}
