import SnapText
import Testing

@Suite("Words.Template: a text read once, filled many times")
struct TemplateTests {
    /// The placeholders `text` names, in order, without repeats.
    private func names(_ text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = String(rest[rest.index(after: open)..<close])
            if !names.contains(name) { names.append(name) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test(
        "should fill every text of every language as the fill by name does, each plural form too",
        arguments: Language.allCases)
    func sameAsByName(language: Language) {
        let words = Words(language)
        let english = Words(.en)
        var checked = 0
        for key in [
            "unit.kcal", "macros.line", "page.macros", "date.day", "page.history.day", "goal.kcal",
            "page.today.grams_goal", "page.chart.average", "page.shopping.choice",
        ] {
            let text = english(key, count: 2)
            var order = names(text).filter { $0 != "count" }
            order.append("count")
            let values = order.map { "<\($0)>" }
            let byName = Dictionary(uniqueKeysWithValues: zip(order, values))
            let template = words.template(key, order)
            for count in [0, 1, 2, 5, 21] {
                var counted = byName
                counted["count"] = words.integer(count)
                let filled = template(count: count, Array(values.dropLast()) + [words.integer(count)])
                #expect(filled == words(key, count: count, byName), "\(language) \(key) \(count)")
                checked += 1
            }
            #expect(template(values) == words(key, byName), "\(language) \(key)")
        }
        #expect(checked == 45)
    }

    @Test("should keep a placeholder it has no name for as written, and name a key the catalog lacks")
    func unnamed() {
        let words = Words(.en)
        #expect(words.template("unit.kcal", [])() == words("unit.kcal"))
        #expect(words.template("no.such.key", ["n"])("1") == "no.such.key")
    }
}
