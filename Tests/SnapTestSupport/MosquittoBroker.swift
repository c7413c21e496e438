import Foundation
import Glibc

/// A real Eclipse Mosquitto broker (Debian's `mosquitto`) on 127.0.0.1 for one test: a password file with
/// one user, TLS with a throwaway certificate when asked. It can be stopped and started again on its port.
public final class MosquittoBroker: @unchecked Sendable {
    public static let binary = "/usr/sbin/mosquitto"
    /// Whether the broker and its clients are installed (Tests/run installs them: .ci/install-deps).
    public static var available: Bool {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto_passwd", "/usr/bin/mosquitto_sub"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
    public static let missing = "no Mosquitto broker: apt-get install mosquitto mosquitto-clients (.ci/install-deps)"

    public let port: Int
    public let username = "station"
    public let password = "hall-pass-42"
    /// The certificate the TLS listener serves, which a client trusts as its CA; nil without TLS.
    public let certificate: String?
    private let folder: TemporaryDirectory
    private var process: Process?

    public init(tls: Bool = false) throws {
        folder = TemporaryDirectory("mosquitto")
        port = FakeServices.freePort()
        let passwords = folder.path + "/passwords"
        try Self.run("/usr/bin/mosquitto_passwd", ["-c", "-b", passwords, "station", "hall-pass-42"])
        var config = """
            per_listener_settings false
            allow_anonymous false
            password_file \(passwords)
            persistence false
            user root
            log_dest stderr
            listener \(port) 127.0.0.1

            """
        if tls {
            let (certificate, key) = try TestCertificate.make(in: folder.path)
            config += "certfile \(certificate)\nkeyfile \(key)\n"
            self.certificate = certificate
        } else {
            certificate = nil
        }
        try config.write(toFile: folder.path + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop() }

    /// Starts the broker on its port; returns once it takes connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-c", folder.path + "/mosquitto.conf"]
        let log = Pipe()
        process.standardError = log
        try process.run()
        self.process = process
        // Its log (`log_dest stderr`) says "running" once it listens, or why it stopped; read on after that
        // by a thread of its own, so the broker never waits on a full pipe.
        let reader = log.fileHandleForReading
        var said = ""
        while !said.contains(" running"), !said.contains("Error") {
            let data = reader.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        Thread { while !reader.availableData.isEmpty {} }.start()
        guard said.contains(" running"), accepts() else {
            throw FakeError(message: "mosquitto did not start on port \(port): \(said.suffix(300))")
        }
    }

    /// Stops the broker; its clients see their connection end.
    public func stop() {
        guard let process, process.isRunning else { return }
        // SIGKILL: a child started from one of the pool's threads inherits their blocked signals, and then
        // ignores SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// The first `count` messages on `topic` (wildcards allowed) as "topic payload" lines, retained ones
    /// first, read by `mosquitto_sub` on a thread of its own (never the cooperative pool's); fewer when
    /// `seconds` pass first. With `retainedOnly`, only what the broker holds retained: the reading ends at
    /// the first message that is live (one still on its way when the subscription began).
    public func messages(_ topic: String, count: Int, seconds: Int = 10, retainedOnly: Bool = false) async
        -> [String]
    {
        await withCheckedContinuation { continuation in
            Thread {
                let read = try? self.readMessages(topic, count: count, seconds: seconds, retainedOnly: retainedOnly)
                continuation.resume(returning: read ?? [])
            }
            .start()
        }
    }

    /// Publishes `message` on `topic` once with `mosquitto_pub`, on a thread of its own.
    public func send(_ topic: String, _ message: String, retained: Bool = false) async {
        await withCheckedContinuation { continuation in
            Thread {
                _ = try? self.run(
                    "/usr/bin/mosquitto_pub",
                    [
                        "-h", "127.0.0.1", "-p", "\(self.port)", "-u", self.username, "-P", self.password, "-t", topic,
                        "-m", message,
                    ] + (retained ? ["-r"] : [])
                        + (self.certificate.map { ["--cafile", $0] } ?? []), allowFailure: true)
                continuation.resume()
            }.start()
        }
    }

    private func readMessages(_ topic: String, count: Int, seconds: Int, retainedOnly: Bool) throws -> [String] {
        let output = try run(
            "/usr/bin/mosquitto_sub",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-u", username, "-P", password, "-t", topic, "-v", "-C", "\(count)",
                "-W", "\(seconds)",
            ] + (retainedOnly ? ["--retained-only"] : []) + (certificate.map { ["--cafile", $0] } ?? []),
            allowFailure: true)
        return output.split(separator: "\n").map(String.init)
    }

    private func accepts() -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> String {
        try Self.run(tool, arguments, allowFailure: allowFailure)
    }

    @discardableResult
    private static func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if !allowFailure && process.terminationStatus != 0 {
            throw FakeError(message: "\(tool) failed (\(process.terminationStatus))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
