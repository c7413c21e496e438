/// A piece of HTML. Text interpolated into it is escaped; other HTML, numbers and lists of HTML go in as
/// they are. Every page is built from these, so a meal's title or a browser's name can never become
/// markup: the escaping is in the type, not in the care of whoever writes a page.
public struct HTML: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var text: String

    public init(stringLiteral value: String) {
        text = value
    }

    public init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    /// HTML that is already safe (made here, never from input).
    init(trusted text: String) {
        self.text = text
    }

    public var description: String { text }

    public struct Interpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation(_ value: String) { HTML.escape(value, into: &text) }
        public mutating func appendInterpolation(_ value: Substring) { HTML.escape(String(value), into: &text) }
        public mutating func appendInterpolation(_ html: HTML) { text += html.text }
        public mutating func appendInterpolation(_ html: HTML?) { text += html?.text ?? "" }
        public mutating func appendInterpolation(_ list: [HTML]) {
            for html in list { text += html.text }
        }
        public mutating func appendInterpolation(_ value: Int) { text += String(value) }
        public mutating func appendInterpolation(_ value: Int64) { text += String(value) }
    }

    /// Escapes the five characters that matter in text and in quoted attribute values.
    static func escape(_ value: String, into text: inout String) {
        // Most text has none of them: one pass over the bytes, then append it whole.
        if !value.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) {
            text += value
            return
        }
        for character in value.unicodeScalars {
            switch character {
            case "&": text += "&amp;"
            case "<": text += "&lt;"
            case ">": text += "&gt;"
            case "\"": text += "&quot;"
            case "'": text += "&#39;"
            default: text.unicodeScalars.append(character)
            }
        }
    }

    public static func escaped(_ value: String) -> String {
        var text = ""
        escape(value, into: &text)
        return text
    }

    /// One HTML after the other.
    public static func joined(_ parts: some Sequence<HTML>) -> HTML {
        HTML(trusted: parts.map(\.text).joined())
    }
}
