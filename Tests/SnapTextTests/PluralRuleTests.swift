import SnapText
import Testing

@Suite("Plural rules in CLDR's syntax")
struct PluralRuleTests {
    @Test("should give English and German one for 1 and other for the rest")
    func english() throws {
        let rule = try PluralRule(["one": "i = 1 and v = 0"])
        #expect([0, 1, 2, 11, 21].map(rule.category) == [.other, .one, .other, .other, .other])
    }

    @Test("should give French one for 0 and 1")
    func french() throws {
        let rule = try PluralRule(["one": "i = 0,1", "many": "e = 0 and i != 0 and i % 1000000 = 0 and v = 0"])
        #expect([0, 1, 2, 1_000_000].map(rule.category) == [.one, .one, .other, .many])
    }

    /// Polish, from CLDR's plurals.xml: a language with four forms is data, not code.
    @Test("should read Polish's few and many")
    func polish() throws {
        let rule = try PluralRule([
            "one": "i = 1 and v = 0 @integer 1",
            "few": "v = 0 and i % 10 = 2..4 and i % 100 != 12..14 @integer 2~4, 22~24, 32~34",
            "many":
                "v = 0 and i != 1 and i % 10 = 0..1 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 12..14",
        ])
        #expect(rule.category(1) == .one)
        #expect([2, 3, 4, 22, 104].allSatisfy { rule.category($0) == .few })
        #expect([0, 5, 11, 12, 14, 25, 111].allSatisfy { rule.category($0) == .many })
        #expect(rule.categories == [.one, .few, .many, .other])
    }

    @Test(
        "should name the category and what was expected in a faulty rule",
        arguments: [
            (["single": "i = 1"], "plural rule \"single\": expected zero, one, two, few or many"),
            (["one": "x = 1"], "plural rule \"one\": \"x\" is not an operand (n, i, v, w, f, t, c or e)"),
            (["one": "i > 1"], "plural rule \"one\": expected = or != after i"),
            (["one": "i = 4..2"], "plural rule \"one\": \"4..2\" is not a number or a range like 2..4"),
            (["one": "i = 1 or"], "plural rule \"one\": \"or\" with nothing on one side"),
        ])
    func faulty(rules: [String: String], message: String) {
        #expect(throws: CatalogProblem(message)) { try PluralRule(rules) }
    }
}
