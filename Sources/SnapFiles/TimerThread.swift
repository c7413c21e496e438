import Foundation

/// Timers by key on one thread of their own, sleeping in a condition variable until the earliest
/// deadline of the clock it is given (`ShellClock`: an uptime).
///
/// A timer made of a task in `Task.sleep` that is cancelled early leaves its delayed job in the
/// concurrency runtime until the original deadline: every press on the ready screen cancels a sleep
/// until midnight, and a soak of 10,000 presses showed it as a steady climb of resident memory
/// (heaptrack: one sleep and its task alive per cycle). Here a cancelled timer is an entry removed from a
/// dictionary, and the one thread sleeps until the earliest deadline. `fire` runs on this thread: it
/// must be quick (the station's only sends an event).
///
/// On the machine's clock (`SystemClock`, which names its monotonic origin) the thread waits in the
/// kernel, `pthread_cond_timedwait` on CLOCK_MONOTONIC, and no task is made. On a clock a test holds, one
/// task sleeps on that clock until the earliest deadline and then wakes the thread (made again when the
/// earliest changes): the tests see the thread's wait as the clock's sleeper, and move it.
public final class TimerThread<Key: Hashable & Sendable>: @unchecked Sendable {
    private struct Timer {
        var deadline: Duration
        var fire: @Sendable () -> Void
    }

    // The mutex guards `timers` and `open`; the condition wakes the thread when they change.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var timers: [Key: Timer] = [:]
    private var open = true
    /// The clock the deadlines are uptimes of.
    public let clock: any ShellClock

    /// Starts the thread, named `name`, its deadlines on `clock`.
    public init(name: String, clock: any ShellClock = SystemClock()) {
        self.clock = clock
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        let thread = Thread { [self] in
            SerialThread.nameCurrentThread(name)
            loop()
        }
        thread.start()
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Arms `key` for `deadline` (an uptime of the thread's clock), replacing a timer under the same key.
    public func start(_ key: Key, at deadline: Duration, fire: @escaping @Sendable () -> Void) {
        locked { timers[key] = Timer(deadline: deadline, fire: fire) }
    }

    public func cancel(_ key: Key) {
        locked { timers[key] = nil }
    }

    public func cancelAll() {
        locked { timers.removeAll() }
    }

    /// How many timers are armed.
    public var count: Int { locked { timers.count } }

    /// Cancels every timer and ends the thread.
    public func shutDown() {
        locked {
            timers.removeAll()
            open = false
        }
    }

    private func locked<Value>(_ body: () -> Value) -> Value {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_signal(condition)
            pthread_mutex_unlock(mutex)
        }
        return body()
    }

    private func loop() {
        pthread_mutex_lock(mutex)
        while open {
            let now = clock.uptime
            let due = timers.filter { $0.value.deadline <= now }
            if !due.isEmpty {
                for key in due.keys { timers[key] = nil }
                pthread_mutex_unlock(mutex)
                for timer in due.values.sorted(by: { $0.deadline < $1.deadline }) { timer.fire() }
                pthread_mutex_lock(mutex)
                continue
            }
            guard let next = timers.values.map(\.deadline).min() else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            if clock.monotonicOrigin != nil {
                waitInKernel(for: next - now)
            } else {
                // A held clock: a task on it wakes the thread at `next`; a start or cancel wakes it sooner,
                // and the next turn makes the task again for the earliest deadline then.
                let waker = Task { [self, clock] in
                    guard (try? await clock.sleep(untilUptime: next)) != nil else { return }
                    locked {}
                }
                pthread_cond_wait(condition, mutex)
                waker.cancel()
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Waits on the condition for `duration` of the monotonic clock (the machine's clock counts its uptime
    /// on it), or until it is signalled; the mutex held.
    private func waitInKernel(for duration: Duration) {
        var wake = timespec()
        clock_gettime(CLOCK_MONOTONIC, &wake)
        let (seconds, attoseconds) = max(.zero, duration).components
        var nanoseconds = Int(wake.tv_nsec) + Int(attoseconds / 1_000_000_000) + 1
        wake.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        wake.tv_nsec = nanoseconds
        pthread_cond_timedwait(condition, mutex, &wake)
    }
}
