import SnapCore

/// The CSV writer's promise, checked on any input: the bytes are cut into rows (at 0x01) and fields (at
/// 0x00), written as the export writes them with `,` and with `;`, and read back by an RFC 4180 reader
/// of its own; every row must come back as written, and no cell may start a formula.
enum CSVCheck {
    static func roundTrip(_ bytes: [UInt8]) {
        let rows = bytes.split(separator: 0x01, omittingEmptySubsequences: false).map { row in
            row.split(separator: 0x00, omittingEmptySubsequences: false).map {
                CSV.cell(String(decoding: $0, as: UTF8.self))
            }
        }
        for separator in [",", ";"] {
            let document = CSV.document(rows, separator: separator)
            let read = read(document, separator: separator.unicodeScalars.first!)
            precondition(read == rows, "the CSV read back differs with \(separator): \(rows) became \(read)")
            for cell in read.joined() { precondition(!startsFormula(cell), "a formula cell: \(cell.debugDescription)") }
        }
    }

    /// Whether a spreadsheet would run `cell`: a leading `=`, `+`, `-`, `@`, tab or line break, looked for
    /// behind white space, control, format and combining characters; a leading `'` makes it text.
    static func startsFormula(_ cell: String) -> Bool {
        guard let first = cell.unicodeScalars.first, first != "'" else { return false }
        if "\t\r\n".unicodeScalars.contains(first) { return true }
        let shown = cell.unicodeScalars.first { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark,
                .enclosingMark, .spacingMark:
                false
            default:
                !scalar.properties.isWhitespace
            }
        }
        return shown.map { "=+-@".unicodeScalars.contains($0) } ?? false
    }

    /// RFC 4180: fields apart by `separator`, rows ended by CRLF, a field in quotes may hold anything with
    /// its quotes doubled. The byte-order mark before the first row is skipped.
    static func read(_ document: String, separator: Unicode.Scalar) -> [[String]] {
        let scalars = Array(document.unicodeScalars.dropFirst(document.unicodeScalars.first == "\u{FEFF}" ? 1 : 0))
        var rows: [[String]] = []
        var row: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        var fieldStarts = true
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar == "\"" {
                    if index < scalars.count && scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" && fieldStarts {
                quoted = true
                fieldStarts = false
            } else if scalar == separator {
                row.append(String(field))
                field = String.UnicodeScalarView()
                fieldStarts = true
            } else if scalar == "\r" && index < scalars.count && scalars[index] == "\n" {
                index += 1
                row.append(String(field))
                rows.append(row)
                row = []
                field = String.UnicodeScalarView()
                fieldStarts = true
            } else {
                field.append(scalar)
                fieldStarts = false
            }
        }
        precondition(row.isEmpty && field.isEmpty && !quoted, "the document does not end with a row's CRLF")
        return rows
    }
}
