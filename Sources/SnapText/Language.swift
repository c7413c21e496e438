/// A language the station speaks: its display, its page and the AI's answers (`station.language`).
///
/// Adding one is data, not code: a catalog file `Catalogs/<code>.json` (with its plural rule), one case
/// here and one line in Package.swift's resources. `CatalogTests` fail until every key is translated.
public enum Language: String, Sendable, Hashable, Codable, CaseIterable {
    case en, de, es, fr, it

    /// The language's name in itself, as the page's language list shows it ("Deutsch").
    public var name: String { Words(self)("language.name") }

    /// The language's name in English, as the AI's instructions name it ("German").
    public var englishName: String {
        switch self {
        case .en: "English"
        case .de: "German"
        case .es: "Spanish"
        case .fr: "French"
        case .it: "Italian"
        }
    }

    /// The codes `station.language` accepts, for a config error.
    public static let codes = allCases.map(\.rawValue)
}
