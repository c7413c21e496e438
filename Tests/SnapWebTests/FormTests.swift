import Foundation
import SnapText
import Testing

@testable import SnapWeb

/// A form's text fields, read at the edge: every name, title, sentence and code the owner's page takes
/// goes through `Form.text` before anything uses it.
@Suite("Form: the text a submitted form holds, read at the edge")
struct FormTests {
    let words = Words(.en)

    private func text(_ value: String?, maxLength: Int = 5, allowEmpty: Bool = false) throws(FormProblem) -> String {
        let form = Form(fields: value.map { [("title", $0)] } ?? [], words: words)
        return try form.text("title", label: "Title", maxLength: maxLength, allowEmpty: allowEmpty)
    }

    @Test("should trim a text field, and refuse it empty unless empty is allowed")
    func trimmedAndEmpty() throws {
        #expect(try text("  Soup \n") == "Soup")
        #expect(try text("\t\r\nab c\u{3000}") == "ab c", "any white space at either end, not between")
        for empty in [nil, "", "   ", "\n\t"] {
            #expect(throws: FormProblem("Title is empty", field: "title"), "\(empty.debugDescription)") {
                try text(empty)
            }
            #expect(try text(empty, allowEmpty: true) == "")
        }
        let typed = try Form(parsing: "title=+Soup%20%0A&other=1", words: words)
        #expect(try typed.text("title", label: "Title", maxLength: 5) == "Soup", "as a browser sends it")
    }

    @Test("should refuse text longer than the field's maximum, counted after trimming and in characters")
    func maximumLength() throws {
        #expect(try text("abcde") == "abcde")
        #expect(try text("   abcde   ") == "abcde", "the spaces trimmed are not counted")
        #expect(try text("e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}") == "e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}")
        #expect(try text("👨‍👩‍👧👨‍👩‍👧") == "👨‍👩‍👧👨‍👩‍👧", "what the person sees as one is one")
        #expect(throws: FormProblem("Title is longer than 5 characters", field: "title")) { try text("abcdef") }
        #expect(throws: FormProblem("Title is longer than 5 characters", field: "title")) {
            try text(String(repeating: "a", count: 10_000))
        }
        #expect(throws: FormProblem("Title is longer than 1 character", field: "title")) {
            try text("ab", maxLength: 1)
        }
    }

    @Test("should refuse text holding a control character anywhere inside it")
    func controlCharacters() throws {
        let hostile = ["a\u{0}b", "a\u{7}", "\u{1B}[1m", "a\tb", "a\nb", "a\r\nb", "a\u{7F}b", "a\u{85}b", "a\u{9B}b"]
        for hostile in hostile {
            #expect(
                throws: FormProblem("Title contains control characters", field: "title"), "\(hostile.debugDescription)"
            ) {
                try text(hostile)
            }
        }
        let typed = try Form(parsing: "title=a%0Db", words: words)
        #expect(throws: FormProblem("Title contains control characters", field: "title")) {
            try typed.text("title", label: "Title", maxLength: 5)
        }
    }
}
