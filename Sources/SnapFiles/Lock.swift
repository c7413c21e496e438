import Synchronization

#if SNAPSTATION_TSAN
    import CSnapTSan
#endif

/// The station's lock: Synchronization's `Mutex`, which ThreadSanitizer can also see.
///
/// On Linux `Mutex` waits on a futex through the standard library's atomics, which are not compiled
/// with ThreadSanitizer's instrumentation, so a TSan build saw every access inside `withLock` as a race
/// (55 reports over the threads' suites, 2026-11-27, none a finding). Built with `-DSNAPSTATION_TSAN`
/// (Tests/Sanitizers/run thread), each lock carries a token whose address it hands to TSan's
/// `__tsan_acquire` after taking the mutex and `__tsan_release` before letting it go, the annotations
/// TSan's runtime defines for locks it cannot see. Every other build is `Mutex` and nothing more.
public struct Lock<Value: ~Copyable>: ~Copyable {
    @usableFromInline let mutex: Mutex<Value>
    #if SNAPSTATION_TSAN
        @usableFromInline let token = Token()
        @usableFromInline final class Token: Sendable {
            @usableFromInline init() {}
        }
    #endif

    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value while holding the lock, as `Mutex.withLock` does.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if SNAPSTATION_TSAN
            let address = Unmanaged.passUnretained(token).toOpaque()
            return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
                __tsan_acquire(address)
                defer { __tsan_release(address) }
                return try body(&value)
            }
        #else
            return try mutex.withLock(body)
        #endif
    }
}

extension Lock: @unchecked Sendable where Value: ~Copyable {}
