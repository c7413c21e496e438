/// What the AI service says a meal is: its title, totals, and the items with their weights.
public struct MealAnalysis: Sendable, Hashable, Codable {
    public var title: String
    public var totals: Macros
    public var items: [MealItem]

    public init(title: String, totals: Macros, items: [MealItem]) {
        self.title = title
        self.totals = totals
        self.items = items
    }
}

/// One item of a meal, with what the dietary flags need to know about it.
public struct MealItem: Sendable, Hashable, Codable {
    public var name: String
    public var grams: Int
    public var macros: Macros
    public var contains: Set<FoodTag>

    public init(name: String, grams: Int, macros: Macros, contains: Set<FoodTag> = []) {
        self.name = name
        self.grams = grams
        self.macros = macros
        self.contains = contains
    }
}

/// Ingredients that dietary preferences care about.
public enum FoodTag: String, Sendable, Hashable, Codable, CaseIterable {
    case gluten, lactose, dairy, egg, meat, fish, shellfish, honey
}

/// A dietary preference set in the config; items that clash with it are flagged on the result screen.
public enum DietaryPreference: String, Sendable, Hashable, Codable, CaseIterable {
    case glutenFree = "gluten-free"
    case lactoseFree = "lactose-free"
    case vegan
    case vegetarian

    /// The tags an item must not carry for this preference.
    public var forbiddenTags: Set<FoodTag> {
        switch self {
        case .glutenFree: [.gluten]
        case .lactoseFree: [.lactose]
        case .vegetarian: [.meat, .fish, .shellfish]
        case .vegan: [.meat, .fish, .shellfish, .dairy, .lactose, .egg, .honey]
        }
    }

    /// The preferences among `preferences` that `item` clashes with, in a stable order.
    public static func clashes(of item: MealItem, with preferences: Set<DietaryPreference>) -> [DietaryPreference] {
        allCases.filter { preferences.contains($0) && !$0.forbiddenTags.isDisjoint(with: item.contains) }
    }
}
