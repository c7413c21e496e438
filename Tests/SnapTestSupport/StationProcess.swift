import Foundation

/// Runs the built `snapstation` binary as a child process, as a person or systemd would.
public final class StationProcess {
    public let process = Process()
    public let logPath: String

    /// The `snapstation` executable beside the test bundle, or `$SNAPSTATION_BIN`.
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["SNAPSTATION_BIN"] { return path }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("snapstation").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return ".build/debug/snapstation"
    }

    /// Standard input, when the process was started with `typing: true`: button words go here.
    public private(set) var input: FileHandle?

    /// Starts `snapstation ARGUMENTS` with both outputs into `logPath`, and standard input from /dev/null,
    /// or from a pipe the test writes to (`type`) when `typing` is true. `openFiles`: the most descriptors
    /// it may open (`ulimit -n`, as systemd's `LimitNOFILE`).
    public init(
        _ arguments: [String], logPath: String, environment: [String: String] = [:], typing: Bool = false,
        openFiles: Int? = nil
    ) throws {
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", Self.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if typing {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// Runs to completion; returns the exit status and everything it printed.
    public static func run(_ arguments: [String], logPath: String, environment: [String: String] = [:]) async throws
        -> (status: Int32, output: String)
    {
        let child = try StationProcess(arguments, logPath: logPath, environment: environment)
        await child.process.exited()
        return (child.process.terminationStatus, child.output)
    }

    /// Types a button word, as a person at the keyboard of `run --simulate` would.
    public func type(_ word: String) {
        try? input?.write(contentsOf: Data((word + "\n").utf8))
    }

    /// The process's resident memory (kB) and open file descriptors, from /proc.
    public var resources: (rssKB: Int, descriptors: Int) {
        let pid = process.processIdentifier
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let rss =
            status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return (rss, fds)
    }

    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits for the process to end; returns its status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) async -> Int32 {
        kill(process.processIdentifier, signal)
        await process.exited()
        return process.terminationStatus
    }

    /// The port of the owner's page on 127.0.0.1, from the station's log (it listens on a free port); nil
    /// when the page is not up by the hang guard.
    public func pagePort() async -> Int? {
        _ = await waitFor("owner's page at http")
        return output.firstMatch(of: /owner's page at http:\/\/[^:]+:(\d+)\/pair/).map { Int($0.1)! }
    }

    /// Waits until the station's log holds `text` `count` times (once unless said); false, saying so and
    /// printing the log's tail, on the hang guard.
    public func waitFor(_ text: String, count: Int = 1) async -> Bool {
        await HangGuard.wait(for: "\"\(text)\"\(count > 1 ? " \(count) times" : "")", log: logPath) {
            output.components(separatedBy: text).count - 1 >= count
        }
    }

    /// Waits until `condition` holds, polling every 100 ms; false, saying so with the place that waited, on
    /// the hang guard (`eventually(fileID:line:every:_:)`).
    public static func waitUntil(
        fileID: String = #fileID, line: Int = #line, _ condition: () -> Bool
    ) async -> Bool {
        await eventually(fileID: fileID, line: line) { condition() }
    }
}

extension Process {
    /// Waits for the process to end on a thread of its own, not on one of the concurrency pool's two:
    /// a test waiting for a child must not stop the other tests.
    public func exited() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter = Thread {
                self.waitUntilExit()
                continuation.resume()
            }
            waiter.name = "wait-\(processIdentifier)"
            waiter.start()
        }
    }
}
