import Foundation

/// A thread of its own that runs the work given to it, one piece at a time, in the order given.
///
/// Swift's cooperative pool has one thread per core: two on a Pi Zero 2 W's sibling boards and on the
/// test machine. A blocking call on it (an `fsync`, a SQLite commit with `synchronous = FULL`, a DRM
/// page-flip wait, libcamera's `stop`) stalls every task of the station. So each owner of a blocking
/// resource makes one `SerialThread` for it and runs every call that touches the resource there: the
/// calls are serialized by construction, and the pool never waits. (swift-nio's `NIOThreadPool` does
/// the same for blocking file I/O.)
///
/// The thread lives until `shutDown()`; work submitted after that is dropped, and `run` throws
/// `SerialThread.Closed`.
public final class SerialThread: Sendable {
    /// Work given to a thread that was shut down.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        public var name: String
        public init(name: String) { self.name = name }
        public var description: String { "the \(name) thread has stopped" }
    }

    private final class Queue: @unchecked Sendable {
        // NSCondition guards `jobs` and `open`; nothing else touches them.
        let condition = NSCondition()
        var jobs: [@Sendable () -> Void] = []
        var open = true
        var busySince: ContinuousClock.Instant?
    }

    public let name: String
    private let queue = Queue()

    /// Starts the thread, named `name` (what `top -H` and /proc/PID/task/*/comm show).
    public init(name: String) {
        self.name = name
        let queue = queue
        let thread = Thread {
            Self.nameCurrentThread(name)
            while true {
                queue.condition.lock()
                while queue.jobs.isEmpty && queue.open { queue.condition.wait() }
                guard !queue.jobs.isEmpty else {
                    queue.condition.unlock()
                    return
                }
                let job = queue.jobs.removeFirst()
                queue.busySince = .now
                queue.condition.unlock()
                job()
                queue.condition.lock()
                queue.busySince = nil
                queue.condition.unlock()
            }
        }
        thread.start()
    }

    /// Names the calling thread as `top -H`, gdb and /proc show it (15 bytes at most). Foundation's
    /// `Thread.name` does not reach the kernel on Linux; writing our own `comm` does.
    public static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The calling thread's name as the kernel knows it.
    public static var currentThreadName: String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit { shutDown() }

    /// Runs `work` on the thread after what was submitted before it; returns at once. False when the
    /// thread was shut down and the work dropped.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        queue.condition.lock()
        defer { queue.condition.unlock() }
        guard queue.open else { return false }
        queue.jobs.append(work)
        queue.condition.signal()
        return true
    }

    /// Runs `work` on the thread and waits for its result without holding a thread of the pool.
    public func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value)
        async throws -> Value
    {
        let result: Result<Value, any Error> = await withCheckedContinuation { continuation in
            let accepted = submit { continuation.resume(returning: Result { try work() }) }
            if !accepted { continuation.resume(returning: .failure(Closed(name: name))) }
        }
        return try result.get()
    }

    /// How long the piece of work now running has run; nil when the thread is waiting for work.
    public var busyFor: Duration? {
        queue.condition.lock()
        defer { queue.condition.unlock() }
        return queue.busySince.map { .now - $0 }
    }

    /// Lets the thread finish what was submitted, then end. Idempotent.
    public func shutDown() {
        queue.condition.lock()
        queue.open = false
        queue.condition.signal()
        queue.condition.unlock()
    }
}
