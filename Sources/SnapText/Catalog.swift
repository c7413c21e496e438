import Foundation

/// What is wrong with a catalog, for the test that reads them all and for the log.
public struct CatalogProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public init(_ text: String) { self.text = text }
    public var description: String { text }
}

/// One language's texts: the JSON file `Catalogs/<code>.json`, embedded in the binary by SwiftPM
/// (`.embedInCode`), so nothing is installed beside it.
///
///     {
///       "plural": { "one": "i = 1 and v = 0" },
///       "texts": {
///         "lock.group": "You've shared with {group} today — see you tomorrow!",
///         "ready.meals": { "one": "{count} meal", "other": "{count} meals" }
///       }
///     }
///
/// A text's placeholders are named (`{group}`); a text with plural forms is an object of CLDR categories
/// with `{count}` in each. `Words` reads a text in the language asked for, and English's where a key is
/// missing (which `CatalogTests` do not let pass).
public struct Catalog: Sendable {
    public enum Entry: Sendable, Hashable {
        case text(String)
        case plural([PluralRule.Category: String])

        /// Every form of the text, for the checks.
        public var forms: [String] {
            switch self {
            case .text(let text): [text]
            case .plural(let forms): forms.sorted { $0.key < $1.key }.map(\.value)
            }
        }
    }

    public let language: Language
    public let plural: PluralRule
    public let entries: [String: Entry]

    /// Reads a catalog's JSON files (the display's and the page's); the first holds the plural rule.
    /// Throws with the file, the key and what was expected.
    public init(_ language: Language, files: [(name: String, json: [UInt8])]) throws(CatalogProblem) {
        self.language = language
        var plural: PluralRule?
        var entries: [String: Entry] = [:]
        for (name, json) in files {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(json))
            } catch {
                throw CatalogProblem("\(name) is not JSON: \(error.localizedDescription)")
            }
            guard let top = object as? [String: Any], let texts = top["texts"] as? [String: Any] else {
                throw CatalogProblem("\(name): expected an object with \"texts\"")
            }
            if plural == nil {
                guard let rules = (top["plural"] ?? [String: String]()) as? [String: String] else {
                    throw CatalogProblem("\(name): \"plural\" should map categories to CLDR conditions")
                }
                plural = try PluralRule(rules)
            }
            for (key, value) in texts {
                guard entries[key] == nil else { throw CatalogProblem("\(name): \(key) is in two files") }
                if let text = value as? String {
                    entries[key] = .text(text)
                } else if let forms = value as? [String: String] {
                    var plural: [PluralRule.Category: String] = [:]
                    for (category, text) in forms {
                        guard let category = PluralRule.Category(rawValue: category) else {
                            throw CatalogProblem("\(name): \(key): \"\(category)\" is not a plural category")
                        }
                        plural[category] = text
                    }
                    entries[key] = .plural(plural)
                } else {
                    throw CatalogProblem("\(name): \(key): expected a text or an object of plural forms")
                }
            }
        }
        if let plural {
            self.plural = plural
        } else {
            self.plural = try PluralRule([:])
        }
        self.entries = entries
    }

    /// The catalog of `language`, read once. A catalog that does not read is a build that cannot ship:
    /// `CatalogTests` read every one, so this never fails in a tested build.
    public static func of(_ language: Language) -> Catalog { catalogs[language]! }

    private static let catalogs: [Language: Catalog] = {
        var catalogs: [Language: Catalog] = [:]
        for language in Language.allCases {
            do {
                catalogs[language] = try Catalog(language, files: embedded(language))
            } catch {
                fatalError("the \(language.rawValue) catalog does not read: \(error)")
            }
        }
        return catalogs
    }()

    /// The display's file and the page's, as SwiftPM embedded them.
    static func embedded(_ language: Language) -> [(name: String, json: [UInt8])] {
        let (display, page) =
            switch language {
            case .en: (PackageResources.en_json, PackageResources.en_page_json)
            case .de: (PackageResources.de_json, PackageResources.de_page_json)
            case .es: (PackageResources.es_json, PackageResources.es_page_json)
            case .fr: (PackageResources.fr_json, PackageResources.fr_page_json)
            case .it: (PackageResources.it_json, PackageResources.it_page_json)
            }
        return [("\(language.rawValue).json", display), ("\(language.rawValue)-page.json", page)]
    }

    /// The names of the placeholders in `text`, as a set (`{group}` → "group").
    public static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.insert(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }

    /// What keeps this catalog from standing beside English's: keys missing or extra, placeholders that
    /// differ, plural forms its rule needs and lacks. Empty for English against itself.
    public func problems(against english: Catalog) -> [String] {
        var problems: [String] = []
        let code = language.rawValue
        for key in english.entries.keys.sorted() where entries[key] == nil {
            problems.append("\(code): \(key) is missing")
        }
        for key in entries.keys.sorted() where english.entries[key] == nil {
            problems.append("\(code): \(key) is not in English's catalog")
        }
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let source = english.entries[key] else { continue }
            let expected = source.forms.reduce(into: Set<String>()) { $0.formUnion(Self.placeholders(in: $1)) }
            switch (source, entry) {
            case (.text, .plural), (.plural, .text):
                problems.append("\(code): \(key) should be \(source.forms.count > 1 ? "plural forms" : "one text")")
            case (.plural, .plural(let forms)):
                let missing = plural.categories.filter { forms[$0] == nil }
                if !missing.isEmpty {
                    problems.append("\(code): \(key) lacks the forms \(missing.map(\.rawValue)) its plural rule needs")
                }
                // A form may leave the number out ("one": "a meal"), never another placeholder.
                for text in forms.values.sorted()
                where Self.placeholders(in: text).subtracting(["count"]) != expected.subtracting(["count"]) {
                    problems.append("\(code): \(key) \"\(text)\" has placeholders other than \(expected.sorted())")
                }
            case (.text, .text(let text)):
                if Self.placeholders(in: text) != expected {
                    problems.append(
                        "\(code): \(key) has \(Self.placeholders(in: text).sorted()), English \(expected.sorted())")
                }
            }
            // A separator may be a space (French groups digits with U+202F), never nothing.
            if entry.forms.contains(where: \.isEmpty) {
                problems.append("\(code): \(key) is empty")
            }
        }
        return problems
    }
}
