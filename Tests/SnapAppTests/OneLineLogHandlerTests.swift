import Logging
import SnapApp
import SnapFiles
import Synchronization
import Testing

@Suite("OneLineLogHandler: one entry per log line, whatever the values")
struct OneLineLogHandlerTests {
    final class Lines: Sendable {
        let lines = Lock<[String]>([])
    }

    struct Recording: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let values = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.lines.withLock { $0.append(([event.message.description] + values).joined(separator: " ")) }
        }
    }

    @Test("should write a line break, a control or a direction character in a message or its metadata as an escape")
    func escapes() {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in OneLineLogHandler(Recording(lines: lines)) }
        logger.warning(
            "received x from Mal\nwarning: forged entry",
            metadata: ["member": "a\r\n<0>b", "id": "\u{202E}gpj", "n": "\(3)"])
        logger.info("plain words stay as they are: Grüße, 🍛")
        let written = lines.lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(
            written.allSatisfy { !$0.contains("\n") && !$0.contains("\r") && !$0.unicodeScalars.contains("\u{202E}") })
        #expect(written[0].contains(#"Mal\nwarning: forged entry"#) && written[0].contains(#"a\r\n<0>b"#))
        #expect(written[0].contains(#"\u{202E}gpj"#))
        #expect(written[1] == "plain words stay as they are: Grüße, 🍛")
    }
}
