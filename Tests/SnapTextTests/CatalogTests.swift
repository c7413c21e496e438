import Foundation
import SnapTestSupport
import SnapText
import Testing

@Suite("The catalogs: every text in every language")
struct CatalogTests {
    static let english = Catalog.of(.en)

    @Test("should translate every key of English's, with the same placeholders", arguments: Language.allCases)
    func complete(language: Language) {
        let problems = Catalog.of(language).problems(against: Self.english)
        #expect(problems.isEmpty, "\(problems.count) problem(s):\n\(problems.joined(separator: "\n"))")
    }

    /// A language other than English whose text is English's word for word has not been translated; the
    /// texts that are the same in both are listed here (names, units, symbols, loanwords).
    @Test("should not leave English texts untranslated", arguments: Language.allCases.filter { $0 != .en })
    func translated(language: Language) {
        let catalog = Catalog.of(language)
        let same = catalog.entries.filter { key, entry in
            guard let english = Self.english.entries[key], entry == english else { return false }
            // Words without letters (a unit, a number's format) read the same everywhere.
            let letters = english.forms.contains { $0.replacing(/\{[a-z_]+\}/, with: "").contains(where: \.isLetter) }
            return letters && !Self.sameInEvery.contains(key)
                && !Self.sameIn[language, default: []].contains(key)
        }
        #expect(same.isEmpty, "left in English: \(same.keys.sorted())")
    }

    /// Keys whose English text is right in every language.
    static let sameInEvery: Set<String> = [
        "unit.kcal", "result.item", "sample.item.pasta", "page.macro.kcal", "page.settings.seconds",
        "page.meal.grams", "goal.kcal", "macro.amount", "macro.against", "page.today.grams_goal", "page.backup.size",
        "page.keys.mqtt", "page.settings.mqtt_legend",
    ]
    /// Keys whose English text is also right in one language.
    static let sameIn: [Language: Set<String>] = [
        .de: [
            "date.month.4", "date.month.8", "date.month.9", "date.month.11", "dietary.vegan", "sample.item.cheese",
            "page.macro.fats", "page.nav.status", "page.status.title", "page.status.version", "page.status.backend",
            "page.meal.form.name", "page.settings.filter", "page.settings.countdown", "page.pair.code",
            "page.group.received_from", "page.status.storage_line", "macro.letter.fats", "page.update.slot",
            "page.update.slot_version", "page.backup.passphrase", "home.problem", "page.settings.mqtt_url",
            "person.unnamed", "sample.person", "page.colour.pink", "page.people.name", "page.colour.orange",
        ],
        .es: [
            "macro.letter.protein", "menu.flash", "page.food.gluten", "page.filter.sepia", "page.macro.protein",
            "page.status.uptime",
        ],
        .fr: [
            "macro.letter.protein", "menu.flash", "sample.item.cheese", "sample.jar.9", "page.status.mode",
            "page.settings.summary.mode",
            "page.food.lactose", "page.status.version", "page.food.gluten", "page.filter.vignette",
            "page.settings.mode",
            "page.macro.protein", "page.pair.code", "page.plan.portions", "page.plan.portion_count",
            "page.update.slot_version", "page.settings.notify_legend", "page.settings.mqtt_url", "page.colour.orange",
            "page.log.photo.choose",
        ],
        .it: [
            "macro.letter.protein", "macro.letter.carbs", "menu.flash", "sample.jar.9", "date.day", "number.percent",
            "page.macro.protein", "page.backup.passphrase",
            "page.status.storage_line",
            "page.macro.carbs", "page.status.backend", "page.group.received_from", "page.update.slot",
            "page.keys.account_email", "page.settings.mqtt_url",
        ],
    ]

    /// Every `words("key"…)` and `self("key"…)` (in a `Words` extension) in the sources names a key English
    /// has, and so does every `"page.…"` literal of the page's sources (a label passed on to `words`): a
    /// typo shows as the key itself on the screen, and this finds it first.
    @Test("should know every key the sources use")
    func keysUsed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources").path
        let pattern = try Regex(#"(?:words|self)\(\s*(?:[a-z.]+ \? )?"([a-z0-9_.]+)"(?:\s*:\s*"([a-z0-9_.]+)")?"#)
        let literal = try Regex(#""(page\.[a-z0-9_.]+)""#)
        var used: Set<String> = []
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                for index in 1..<match.output.count {
                    if let key = match.output[index].substring { used.insert(String(key)) }
                }
            }
            if file.hasPrefix("SnapWeb/") {
                // The page's script, page.js, is a file, not a key.
                for match in text.matches(of: literal) where match.output[1].substring != "page.js" {
                    if let key = match.output[1].substring { used.insert(String(key)) }
                }
            }
        }
        #expect(used.count > 100, "the scan found \(used.count) keys: is the pattern still right?")
        let missing = used.filter { Self.english.entries[$0] == nil }.sorted()
        #expect(missing.isEmpty, "used but not in English's catalog: \(missing)")
    }

    @Test("should fill placeholders by name and choose the plural form")
    func words() {
        let english = Words(.en)
        #expect(english("sent.title", ["group": "Family"]) == "Sent to Family")
        #expect(english("ready.analyses_left", count: 1) == "1 analysis left today")
        #expect(english("ready.analyses_left", count: 2) == "2 analyses left today")
        let french = Words(.fr)
        #expect(
            french("ready.analyses_left", count: 0) == french("ready.analyses_left", count: 1).replacing("1", with: "0")
        )
        #expect(english("no.such.key") == "no.such.key")
    }

    @Test("should write numbers as each language does")
    func numbers() {
        #expect(Words(.en).decimal(0.5, digits: 1) == "0.5")
        #expect(Words(.de).decimal(0.5, digits: 1) == "0,5")
        #expect(Words(.fr).decimal(-2.25, digits: 2) == "-2,25")
        #expect(Words(.en).integer(1250) == "1250")
        #expect(Words(.en).integer(12500) == "12,500")
        #expect(Words(.de).integer(12500) == "12.500")
        #expect(Words(.en).percent(42) == "42%")
        #expect(Words(.de).percent(42) == "42\u{A0}%", "a no-break space keeps the sign by its number")
        #expect(Words.clock(hour: 7, minute: 5) == "07:05")
    }

    @Test("should name days and months in each language")
    func dates() {
        #expect(Words(.en).day(year: 2026, month: 3, day: 2, weekday: 1) == "Monday 2 March")
        #expect(Words(.de).day(year: 2026, month: 3, day: 2, weekday: 1) == "Montag, 2. März")
        #expect(Words(.es).month(12) == "diciembre")
        #expect(Words(.it).weekday(7) == "domenica")
    }

    @Test("should say what is wrong with a catalog that does not read")
    func broken() {
        #expect(throws: CatalogProblem("x.json: expected an object with \"texts\"")) {
            try Catalog(.en, files: [("x.json", Array(#"{"text": {}}"#.utf8))])
        }
        #expect(throws: CatalogProblem("x.json: a: \"several\" is not a plural category")) {
            try Catalog(.en, files: [("x.json", Array(#"{"texts": {"a": {"several": "x"}}}"#.utf8))])
        }
        #expect(throws: CatalogProblem("y.json: a is in two files")) {
            try Catalog(
                .en,
                files: [
                    ("x.json", Array(#"{"texts": {"a": "x"}}"#.utf8)),
                    ("y.json", Array(#"{"texts": {"a": "y"}}"#.utf8)),
                ])
        }
    }

    @Test("should find a missing key, a changed placeholder and a missing plural form")
    func problemsFound() throws {
        let english = try Catalog(
            .en,
            files: [
                (
                    "en.json",
                    Array(
                        #"{"plural": {"one": "i = 1"}, "texts": {"a": "to {group}", "b": "x", "c": {"one": "{count} meal", "other": "{count} meals"}}}"#
                            .utf8)
                )
            ])
        let german = try Catalog(
            .de,
            files: [
                (
                    "de.json",
                    Array(
                        #"{"plural": {"one": "i = 1"}, "texts": {"a": "an {gruppe}", "c": {"other": "{count} Mahlzeiten"}, "d": "y"}}"#
                            .utf8)
                )
            ])
        #expect(
            german.problems(against: english) == [
                "de: b is missing", "de: d is not in English's catalog", "de: a has [\"gruppe\"], English [\"group\"]",
                "de: c lacks the forms [\"one\"] its plural rule needs",
            ])
    }
}
