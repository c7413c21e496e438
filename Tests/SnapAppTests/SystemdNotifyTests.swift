import Foundation
import SnapApp
import SnapFiles
import SnapTestSupport
import Synchronization
import Testing

/// A datagram socket bound where `NOTIFY_SOCKET` points, as systemd has it.
final class NotifySocket {
    let path: String
    let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close(descriptor)
        if !path.hasPrefix("@") { unlink(path) }
    }

    /// Messages until `until` returns true for the list so far, or `seconds` pass. Waits as a task
    /// (a non-blocking poll between sleeps), so the other tests keep the cooperative pool.
    func messages(within seconds: Double, until: ([String]) -> Bool) async -> [String] {
        var received: [String] = []
        _ = await eventually(within: seconds, every: .milliseconds(50)) {
            // Everything queued so far, then the test.
            while true {
                var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
                guard poll(&descriptors, 1, 0) > 0 else { break }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received.append(String(decoding: buffer.prefix(count), as: UTF8.self))
            }
            return until(received)
        }
        return received
    }
}

@Suite("systemd notifications", .startsProcesses)
struct SystemdNotifyTests {
    let folder = TemporaryDirectory("notify")

    @Test("should send READY=1 at the ready screen, STATUS= lines, and WATCHDOG=1 from the event loop")
    func station() async throws {
        let socket = try NotifySocket(path: folder.path + "/notify")
        let station = try StationProcess(
            ["run", "--simulate", "--state", folder.path + "/state", "--no-stdin", "--script", "1s press"],
            logPath: folder.path + "/run.log",
            environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        let messages = await socket.messages(within: 60) { received in
            received.filter { $0 == "WATCHDOG=1" }.count >= 3 && received.contains("STATUS=countdown")
        }
        #expect(await station.stop() == 0)
        let stopping = await socket.messages(within: 10) { $0.contains("STOPPING=1") }
        #expect(messages.contains("READY=1"))
        #expect(messages.contains("STATUS=ready"))
        #expect(messages.contains("STATUS=countdown"), "the status follows the screens")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3)
        #expect(messages.filter { $0 == "READY=1" }.count == 1, "ready once, though the ready screen returns")
        #expect(stopping.contains("STOPPING=1"))
        #expect(station.output.contains("systemd watchdog: pinging from the event loop"))
    }

    @Test("should stop the watchdog pings when the event loop hangs (the test hang, SIGUSR2)")
    func hang() async throws {
        let socket = try NotifySocket(path: folder.path + "/hang")
        let station = try StationProcess(
            ["run", "--simulate", "--state", folder.path + "/hang-state", "--no-stdin"],
            logPath: folder.path + "/hang.log",
            environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000", "SNAPSTATION_TEST_HANG": "1"])
        defer { kill(station.process.processIdentifier, SIGKILL) }
        let before = await socket.messages(within: 60) { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 }
        #expect(before.filter { $0 == "WATCHDOG=1" }.count >= 2)
        kill(station.process.processIdentifier, SIGUSR2)
        // The signal may land between pings: allow those already on their way, then none.
        _ = await socket.messages(within: 1) { _ in false }
        let after = await socket.messages(within: 2) { _ in false }
        #expect(!after.contains("WATCHDOG=1"), "no pings from a hung loop: \(after)")
        #expect(station.process.isRunning, "the process is alive; only the watchdog can tell")
        #expect(station.output.contains("hangs here, as a test"))
    }

    @Test("should never block when systemd's end of the socket is not read (a full queue drops the message)")
    func stalledReader() async throws {
        let socket = try NotifySocket(path: folder.path + "/stalled")
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        let sent = Lock(0)
        // A unix datagram queue holds a few messages; a blocking send would stop at the first full one.
        let thread = Thread {
            for _ in 0..<200 {
                notifier.send("WATCHDOG=1")
                sent.withLock { $0 += 1 }
            }
        }
        thread.start()
        #expect(
            await eventually(within: 5, every: .milliseconds(50)) { sent.withLock { $0 } == 200 },
            "every send returned though nobody read")
        withExtendedLifetime(socket) {}
    }

    @Test("should reach an abstract socket, and leave the watchdog to the process it names")
    func environment() async throws {
        let name = "@snapstation-test-\(getpid())"
        let socket = try NotifySocket(path: name)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": name, "WATCHDOG_USEC": "2000000"])
        notifier.send("STATUS=hello")
        #expect(await socket.messages(within: 5) { !$0.isEmpty } == ["STATUS=hello"])
        #expect(notifier.watchdogInterval == .seconds(2))
        let other = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"])
        #expect(other.watchdogInterval == nil, "the watchdog was meant for PID 1")
        #expect(SystemdNotifier(environment: [:]).isActive == false)
    }
}
