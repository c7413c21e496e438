import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import Synchronization

/// Tells systemd how the station is doing, over `$NOTIFY_SOCKET` (the sd_notify protocol, without
/// libsystemd): READY=1 when the first screen is shown (ready, lock or error: the station is up),
/// STATUS= as the screen changes, WATCHDOG=1
/// each time the station's event loop handles a heartbeat. Outside systemd there is no socket and every
/// call does nothing.
public final class SystemdNotifier: Sendable {
    private let socketPath: String?
    /// systemd's `WatchdogSec=`, from `$WATCHDOG_USEC`, when the watchdog is meant for this process.
    public let watchdogInterval: Duration?
    private let readySent = Lock(false)

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        watchdogInterval = environment["WATCHDOG_USEC"].flatMap(Int64.init).flatMap {
            forUs && $0 > 0 ? .microseconds($0) : nil
        }
    }

    public var isActive: Bool { socketPath != nil }

    /// READY=1, the first time only.
    public func ready() {
        guard
            readySent.withLock({ sent in
                defer { sent = true }
                return !sent
            })
        else { return }
        send("READY=1")
    }

    /// Sends one notification such as "READY=1"; failures are ignored, as sd_notify's are.
    public func send(_ message: String) {
        guard let socketPath else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // "@name" is an abstract socket: its address starts with a NUL byte.
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                // Never wait: a full receive queue (a stalled reader) must not block the event loop that pings.
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address, length)
            }
        }
    }
}
