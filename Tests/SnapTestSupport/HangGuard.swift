import Foundation

/// The one hang guard of the waits for an event (a log line, a screen): a wait ends at its event, so the
/// guard is only how long a stuck test takes to fail, never how long a slow machine is given. On the
/// guard a wait says what it waited for and prints the log's last lines, so the failure names its cause
/// (the issue of 2026-12-01: raising a timeout is never the fix on a busy machine). Five minutes, or
/// `SNAPSTATION_TEST_HANG_GUARD` seconds (a run that wants a hang to fail sooner).
public enum HangGuard {
    public static let seconds: Double =
        ProcessInfo.processInfo.environment["SNAPSTATION_TEST_HANG_GUARD"].flatMap(Double.init) ?? 300

    /// Waits (as a task, polling every `interval`) until `condition` holds; on the guard, says that it
    /// waited for `what` and prints the last lines of the log at `log`. Answers whether it held.
    public static func wait(
        for what: String, log: String?, every interval: Duration = .milliseconds(20), _ condition: () async -> Bool
    ) async -> Bool {
        if await eventually(within: seconds, every: interval, condition) { return true }
        let tail =
            log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?
            .split(separator: "\n").suffix(30).map { "  | \($0)" }.joined(separator: "\n") ?? ""
        print("◇ Hang guard: waited \(Int(seconds)) s for \(what)\(log.map { " in \($0)" } ?? "")\n\(tail)")
        return false
    }
}
