import Dispatch
import Foundation
import SnapFiles
import Synchronization

extension StationStore {
    /// Runs `work` on the store's own thread, after the writes queued before it, and waits for it
    /// without holding a thread of the cooperative pool.
    ///
    /// Every write the running station makes goes through here or `enqueue`: a commit with
    /// `synchronous = FULL` and the fsyncs of `AtomicFile` wait for the SD card, which can take
    /// hundreds of milliseconds, and must not stall the two threads every task shares. The synchronous
    /// methods stay for commands and tests, which own their thread.
    public func writing<Value: Sendable>(
        _ work: @escaping @Sendable (StationStore) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        do {
            return try await thread.run { () throws(StoreError) in try work(self) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("write to the store", error)
        }
    }

    /// Queues `work` on the store's thread behind the writes before it, and returns at once; a failure
    /// goes to `failed`, on the store's thread.
    public func enqueue(
        _ work: @escaping @Sendable (StationStore) throws(StoreError) -> Void,
        failed: @escaping @Sendable (StoreError) -> Void
    ) {
        let accepted = thread.submit {
            do throws(StoreError) { try work(self) } catch { failed(error) }
        }
        if !accepted { failed(StoreError("write to the store", SerialThread.Closed(name: thread.name))) }
    }

    /// Runs `work` on the store's thread and blocks the calling thread until it is done: for a thread of
    /// its own that may wait (the owner's page), never for one of the concurrency pool's, and never on the
    /// Writes a small file of the station's state whole and durably (temp file, fsync, rename) on the
    /// store's thread: the group's sign-in, which must not hold a thread of the pool in fsync.
    public func keepFile(_ bytes: [UInt8], at path: String, permissions: mode_t = 0o644) async throws(StoreError) {
        try await writing { _ throws(StoreError) in
            do {
                try AtomicFile.write(bytes, to: path, permissions: permissions)
            } catch {
                throw StoreError("write \(path)", error)
            }
        }
    }

    /// store's thread itself.
    @discardableResult
    public func writingAndWaiting<Value: Sendable>(
        _ work: @escaping @Sendable (StationStore) throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        let done = DispatchSemaphore(value: 0)
        let outcome = Lock<Result<Value, StoreError>?>(nil)
        let accepted = thread.submit {
            let result: Result<Value, StoreError>
            do throws(StoreError) { result = .success(try work(self)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard accepted else { throw StoreError("write to the store", SerialThread.Closed(name: thread.name)) }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// How long the write now running has run; nil when the store's thread is idle.
    public var writeBusyFor: Duration? { thread.busyFor }
}
