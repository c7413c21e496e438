import Foundation
import SnapCore
import Testing

@Suite("PhotoID and MemberName: what another party sends, parsed at the edge")
struct PhotoIDTests {
    @Test("should take only 1 to 64 of letters, digits, _ and - as a photo id")
    func parsing() throws {
        let hostile = [
            "", "../../x", "../../../victim-file", "/etc/passwd", "a/../../x", "x\u{0}y", ".", "..", "a.jpg",
            String(repeating: "a", count: 300), String(repeating: "a", count: 65), "e\u{301}", "a b", "a\nb",
            "\u{FF21}", "+\u{200D}5",
        ]
        for text in hostile { #expect(PhotoID(parsing: text) == nil, "\(text.debugDescription) is no photo id") }
        for text in ["a", "20260310-090000-1a2b", "kitchen_1", String(repeating: "Z", count: 64)] {
            #expect(PhotoID(parsing: text)?.rawValue == text)
        }
        let new = PhotoID.new(at: Date(), in: TimeZone(identifier: "Europe/Berlin")!)
        #expect(PhotoID(parsing: new.rawValue) == new, "the station's own ids parse")
    }

    @Test("should refuse a malformed id when decoding, as parsing does")
    func decoding() throws {
        #expect(try JSONDecoder().decode([PhotoID].self, from: Data(#"["ok-1"]"#.utf8)) == [PhotoID("ok-1")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PhotoID].self, from: Data(#"["../x"]"#.utf8)) }
        #expect(String(decoding: try JSONEncoder().encode(PhotoID("ok-1")), as: UTF8.self) == #""ok-1""#)
    }

    @Test("should show a member's name without line breaks, control or direction characters, at most 60")
    func memberNames() {
        #expect(MemberName("Hall").description == "Hall")
        #expect(MemberName("Mallory\ninfo: forged line").text == "Malloryinfo: forged line")
        #expect(MemberName("\u{202E}gpj.exe\u{0}").text == "gpj.exe")
        #expect(MemberName("  ").description == "a member")
        #expect(MemberName(String(repeating: "x", count: 200)).text.count == 60)
    }
}
