import Foundation

/// Comma-separated values as RFC 4180 writes them, for spreadsheets.
public enum CSV {
    /// The rows with a UTF-8 byte-order mark before them (Excel reads UTF-8 only with it), the fields
    /// apart by `separator` (the language's: `;` where a decimal comma is written) and CRLF after each row.
    public static func document(_ rows: [[String]], separator: String) -> String {
        "\u{FEFF}" + rows.map { $0.map { field($0, separator) }.joined(separator: separator) + "\r\n" }.joined()
    }

    /// One field: quoted, with its quotes doubled, when it holds a `,`, a `;`, a tab, a quote or a line break,
    /// whatever the language's separator: a reader set to the other separator must not split it into cells
    /// (OWASP, CSV injection).
    public static func field(_ value: String, _ separator: String) -> String {
        let quoted = value.unicodeScalars.contains { scalar in
            scalar == "," || scalar == ";" || scalar == "\t" || scalar == "\"" || scalar.isNewlineLike
                || separator.unicodeScalars.contains(scalar)
        }
        guard quoted else { return value }
        // By scalar: a quote followed by a combining mark is one Character that a Character-wise
        // replacement would leave undoubled, ending the quoted field early (found by Tests/Fuzz `csv`).
        var doubled = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar == "\"" { doubled.append(scalar) }
            doubled.append(scalar)
        }
        return "\"" + String(doubled) + "\""
    }

    /// A text from the AI or the owner as a cell: with a `'` before it when a spreadsheet would take it for
    /// a formula, that is when it starts with `=`, `+`, `-`, `@`, a tab or a line break, also behind
    /// leading spaces, control, zero-width and combining characters (judged by Unicode scalar: "\r\n=1+2"
    /// is one grapheme, and "=\u{301}" another that starts with `=`).
    public static func cell(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard let first = scalars.first else { return value }
        let meaningful = scalars.first { !$0.isIgnoredBeforeFormula }
        let formula: Set<Unicode.Scalar> = ["=", "+", "-", "@"]
        guard
            formula.contains(first) || "\t\r\n".unicodeScalars.contains(first)
                || meaningful.map(formula.contains) == true
        else { return value }
        return "'" + value
    }
}

extension Unicode.Scalar {
    /// A line feed, carriage return, vertical tab, form feed, next line, or line or paragraph separator.
    fileprivate var isNewlineLike: Bool {
        ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"].contains(self)
    }

    /// What a spreadsheet skips before it reads a formula, or what shows nothing of its own: white space,
    /// control and format characters (zero-width joiners, direction marks) and combining marks.
    fileprivate var isIgnoredBeforeFormula: Bool {
        switch properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark,
            .enclosingMark, .spacingMark:
            true
        default:
            properties.isWhitespace
        }
    }
}
