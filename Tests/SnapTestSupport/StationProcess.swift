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

    /// Starts `snapstation ARGUMENTS` with standard input from /dev/null and both outputs into `logPath`.
    public init(_ arguments: [String], logPath: String, environment: [String: String] = [:]) throws {
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// Runs to completion; returns the exit status and everything it printed.
    public static func run(_ arguments: [String], logPath: String, environment: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let child = try StationProcess(arguments, logPath: logPath, environment: environment)
        child.process.waitUntilExit()
        return (child.process.terminationStatus, child.output)
    }

    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits for the process to end; returns its status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Polls `condition` every 100 ms for up to `seconds`; true if it came true. It sleeps as a task,
    /// never blocking a thread of the cooperative pool (two on this machine), which the other tests share.
    public static func waitFor(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }
}
