/// What the AI service says a meal is: its title, totals, and the items with their weights.
public struct MealAnalysis: Sendable, Hashable, Codable {
    public var title: String
    public var totals: Macros
    public var items: [MealItem]
    /// One short line about the meal, for the jar's detail; nil for meals analysed before it was asked.
    public var funFact: String?

    public init(title: String, totals: Macros, items: [MealItem], funFact: String? = nil) {
        self.title = title
        self.totals = totals
        self.items = items
        self.funFact = funFact
    }
}

/// What a dish is made of, as a shopping list wants it: "spaghetti, 100 g".
public struct Ingredient: Sendable, Hashable, Codable {
    public var name: String
    public var amount: Double
    /// "g", "ml" or "piece".
    public var unit: String

    public init(name: String, amount: Double, unit: String) {
        self.name = name
        self.amount = amount
        self.unit = unit
    }
}

/// One item of a meal, with what the dietary flags need to know about it.
public struct MealItem: Sendable, Hashable, Codable {
    public var name: String
    public var grams: Int
    public var macros: Macros
    public var contains: Set<FoodTag>
    /// What the item is made of, when it is a dish of several; empty for a plain food (and for items
    /// analysed before ingredients were asked for).
    public var ingredients: [Ingredient]
    /// The portion the item's numbers were estimated for (the AI's, or the owner's own numbers), kept
    /// once the owner changes its grams: a new weight scales from it, so edits do not pile up rounding.
    /// nil while the item is as estimated (its own grams and macros are the estimate).
    public var estimate: Portion?

    /// A weight and the macros it has.
    public struct Portion: Sendable, Hashable, Codable {
        public var grams: Int
        public var macros: Macros
        public init(grams: Int, macros: Macros) {
            self.grams = grams
            self.macros = macros
        }

        /// The macros of `grams` of the same food, by its per-gram values, rounded to whole numbers.
        public func scaled(to grams: Int) -> Macros {
            guard self.grams > 0 else { return macros }
            func scale(_ value: Int) -> Int { Int((Double(value) * Double(grams) / Double(self.grams)).rounded()) }
            return Macros(
                calories: scale(macros.calories), protein: scale(macros.protein), carbs: scale(macros.carbs),
                fats: scale(macros.fats))
        }
    }

    /// This item at `grams`: its macros scaled from the estimate's per-gram values, the estimate kept.
    public func portion(_ grams: Int) -> MealItem {
        var item = self
        let basis = estimate ?? Portion(grams: self.grams, macros: macros)
        item.estimate = basis
        item.grams = grams
        item.macros = basis.scaled(to: grams)
        return item
    }

    public init(
        name: String, grams: Int, macros: Macros, contains: Set<FoodTag> = [], ingredients: [Ingredient] = []
    ) {
        self.name = name
        self.grams = grams
        self.macros = macros
        self.contains = contains
        self.ingredients = ingredients
    }

    private enum CodingKeys: String, CodingKey { case name, grams, macros, contains, ingredients, estimate }

    /// Reads items stored before `ingredients` existed as having none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        grams = try container.decode(Int.self, forKey: .grams)
        macros = try container.decode(Macros.self, forKey: .macros)
        contains = try container.decode(Set<FoodTag>.self, forKey: .contains)
        ingredients = try container.decodeIfPresent([Ingredient].self, forKey: .ingredients) ?? []
        estimate = try container.decodeIfPresent(Portion.self, forKey: .estimate)
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
        clashes(of: item.contains, with: preferences)
    }

    /// The preferences that food with these tags clashes with (a planned meal's categories, an item's).
    public static func clashes(of tags: Set<FoodTag>, with preferences: Set<DietaryPreference>)
        -> [DietaryPreference]
    {
        allCases.filter { preferences.contains($0) && !$0.forbiddenTags.isDisjoint(with: tags) }
    }
}
