import Logging
import SnapFiles
import Synchronization

/// A logger whose every line (message and metadata) is kept, so tests can read what would reach the
/// journal.
public final class CapturedLog: Sendable {
    private let lines = Lock<[String]>([])

    public init() {}

    public var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    public var all: [String] { lines.withLock { $0 } }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.lines.withLock { $0.append("\(event.level) \(event.message) \(merged)") }
        }
    }
}
