import Foundation

/// Reads a log file as it grows, from where the last read stopped: a driver waiting for the next
/// "screen: ready" reads only the new lines, however long the log has become.
public final class LogFollower {
    private let handle: FileHandle?
    private let path: String
    private var pending = ""

    public init(path: String) {
        self.path = path
        handle = FileHandle(forReadingAtPath: path)
    }

    /// The complete lines written since the last call.
    public func newLines() -> [Substring] {
        guard let data = try? handle?.readToEnd(), !data.isEmpty else { return [] }
        pending += String(decoding: data, as: UTF8.self)
        guard let end = pending.lastIndex(of: "\n") else { return [] }
        let lines = pending[..<end].split(separator: "\n")
        pending = String(pending[pending.index(after: end)...])
        return lines
    }

    /// Waits (as a task) until a new line contains `text`; false, saying so, on the hang guard.
    public func waitFor(_ text: String) async -> Bool {
        await HangGuard.wait(for: "\"\(text)\"", log: path, every: .milliseconds(5)) {
            newLines().contains(where: { $0.contains(text) })
        }
    }
}
