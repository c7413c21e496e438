import Logging

/// A log handler that keeps every entry on one line, whatever the values in it: a line break, a control
/// or a format character (a right-to-left override) in the message or the metadata is written as an
/// escape (`\n`, `\u{202E}`). Member names, server answers, AI titles and bundle names reach log lines;
/// without this, a line break in one starts a forged entry of its own in the journal. The unit also sets
/// `SyslogLevelPrefix=no`, so a `<0>` at a line's start is not read as a priority.
public struct OneLineLogHandler: LogHandler {
    private var inner: any LogHandler

    public init(_ inner: any LogHandler) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(Self.escaped(event.message.description))"
        event.metadata = event.metadata.map { $0.mapValues(Self.escaped) }
        inner.log(event: event)
    }

    static func escaped(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(escaped(text))
        case .stringConvertible(let value): .string(escaped(value.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values): .dictionary(values.mapValues(escaped))
        }
    }

    /// The text with each control, format, line or paragraph separator written as an escape.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
