import Foundation
import Glibc
import Synchronization

/// An attacker's server on 127.0.0.1: a TCP listener that keeps every byte any client sends it and answers
/// each connection with an HTTP 404, on a thread of its own. The tests hold that a key or a password never
/// reaches it (`heard`), and that something did reach it where they mean it to (`connections`).
public final class Eavesdropper: @unchecked Sendable {
    public let port: Int
    private let socket: Int32
    /// What the listening thread shares with the tests; the thread holds it, not the listener, so that the
    /// listener's end (`deinit`) ends the thread.
    private final class Shared: Sendable {
        let state = Mutex<(heard: [UInt8], connections: Int, open: Bool)>(([], 0, true))
    }
    private let shared = Shared()

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Everything received so far, on every connection.
    public var heard: [UInt8] { shared.state.withLock { $0.heard } }
    public var connections: Int { shared.state.withLock { $0.connections } }

    /// Whether `text` was ever received.
    public func heard(_ text: String) -> Bool {
        let bytes = heard
        return Data(bytes).range(of: Data(text.utf8)) != nil
    }

    public init() throws {
        let (socket, port) = try loopbackListener(backlog: 16)
        self.socket = socket
        self.port = port
        let thread = Thread { [shared] in Self.accepting(socket, shared) }
        thread.name = "eavesdropper-\(port)"
        thread.start()
    }

    deinit {
        shared.state.withLock { $0.open = false }
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private static func accepting(_ socket: Int32, _ shared: Shared) {
        while shared.state.withLock({ $0.open }) {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            shared.state.withLock { $0.connections += 1 }
            // A read waits at most a second: a client that sent its request waits for the answer.
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { break }
                shared.state.withLock { $0.heard += buffer[0..<count] }
            }
            let answer = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = answer.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }
}
