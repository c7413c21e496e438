import Foundation

/// A blocking wait on file descriptors that another thread can end early.
///
/// Device threads (GPIO edges, DRM page-flip events) sleep in `poll(2)` rather than on Swift's cooperative
/// pool, which has only as many threads as cores. `wake()` writes to a pipe the poll also watches.
final class WakeablePoll: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError.current }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// What one wait saw.
    enum Outcome: Equatable {
        /// These descriptors (indices into the list given) are readable, or hung up.
        case ready([Int])
        case timedOut
        case woken
    }

    /// Waits until one of `descriptors` is readable, `timeout` passes (nil: no limit) or `wake()` is called.
    func wait(for descriptors: [Int32], timeout: Duration?) throws(SystemError) -> Outcome {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0))
        let milliseconds = timeout.map { Int32(clamping: Int64(max(0, ($0.seconds * 1000).rounded(.up)))) } ?? -1
        let result = poll(&fds, nfds_t(fds.count), milliseconds)
        if result < 0 {
            if errno == EINTR { return .ready([]) }
            throw SystemError.current
        }
        if fds[fds.count - 1].revents != 0 { return .woken }
        if result == 0 { return .timedOut }
        return .ready(fds.indices.dropLast().filter { fds[$0].revents != 0 })
    }

    /// One wait of a thread that is woken again and again (the V4L2 camera's: a still, a mode switch, a
    /// buffer given back to an empty ring, the end): each descriptor's poll events (POLLERR and POLLHUP
    /// included), and whether `wake()` was called. A wake is used up, so the next wait sleeps again.
    func waitOnce(for descriptors: [Int32], timeout: Duration) throws(SystemError) -> (events: [Int16], woken: Bool) {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0))
        let milliseconds = Int32(clamping: Int64(max(0, (timeout.seconds * 1000).rounded(.up))))
        guard poll(&fds, nfds_t(fds.count), milliseconds) >= 0 else {
            if errno == EINTR { return ([Int16](repeating: 0, count: descriptors.count), false) }
            throw SystemError.current
        }
        let woken = fds[fds.count - 1].revents != 0
        if woken {
            var sink = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &sink, sink.count) > 0 {}
        }
        return (fds.dropLast().map(\.revents), woken)
    }

    /// Ends the current or next `wait` with `.woken`; later waits return `.woken` too.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}
