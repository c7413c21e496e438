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

    /// A catalog's text with HTML in its placeholders: the text is escaped, and each `{name}` becomes
    /// `values[name]` as it is (a link, a bold name), so a sentence keeps its markup in every language's
    /// word order. A placeholder without a value stays as written. The text comes from `Words` called
    /// without values, which leaves its placeholders for this to fill.
    ///
    ///     HTML(filling: words("page.group.no_photo_today"), ["group": "<b>\(group)</b>"])
    init(filling text: String, _ values: [String: HTML]) {
        var html = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            HTML.escape(String(rest[..<open]), into: &html)
            let placeholder = rest[open...close]
            if let value = values[String(placeholder.dropFirst().dropLast())] {
                html += value.text
            } else {
                HTML.escape(String(placeholder), into: &html)
            }
            rest = rest[rest.index(after: close)...]
        }
        HTML.escape(String(rest), into: &html)
        self.init(trusted: html)
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
        public mutating func appendInterpolation(_ html: HTML) {
            // A long part (a page's rows) brings room for what follows it: appended to a string only just
            // large enough, the next literal would copy the whole again into one twice its size.
            let length = html.text.utf8.count
            if length > 4096 { text.reserveCapacity(text.utf8.count + length + 4096) }
            text += html.text
        }
        public mutating func appendInterpolation(_ html: HTML?) { text += html?.text ?? "" }
        public mutating func appendInterpolation(_ list: [HTML]) {
            for html in list { text += html.text }
        }
        public mutating func appendInterpolation(_ value: Int) { text += String(value) }
        public mutating func appendInterpolation(_ value: Int64) { text += String(value) }
    }

    /// Escapes the five characters that matter in text and in quoted attribute values.
    static func escape(_ value: String, into text: inout String) {
        // Most text has none of them: one pass over the bytes in place, then append it whole.
        if isClean(value) {
            text += value
            return
        }
        var bytes: [UInt8] = []
        escape(value, into: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// The same, written as bytes (`MarkupWriter`).
    static func escape(_ value: String, into bytes: inout [UInt8]) {
        let utf8 = value.utf8
        if isClean(value) {
            bytes += utf8
            return
        }
        // The runs between the five characters go in whole: a title of a page's 500 rows with one `&`
        // was appended a scalar at a time.
        var copied = utf8.startIndex
        for index in utf8.indices {
            let entity: StaticString
            switch utf8[index] {
            case 0x26: entity = "&amp;"
            case 0x3C: entity = "&lt;"
            case 0x3E: entity = "&gt;"
            case 0x22: entity = "&quot;"
            case 0x27: entity = "&#39;"
            default: continue
            }
            bytes += utf8[copied..<index]
            bytes += UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount)
            copied = utf8.index(after: index)
        }
        bytes += utf8[copied...]
    }

    /// Whether `value` has none of the five characters.
    private static func isClean(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }
        } ?? false
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
