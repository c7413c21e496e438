/// A meal the owner means to cook, as the shopping list's "add a meal to cook" asks about it.
public struct PlanRequest: Sendable, Hashable {
    /// The units the ingredients are bought in.
    public enum Units: String, Sendable, Hashable, CaseIterable {
        case metric
        /// US customary: ounces, pounds, cups, spoons.
        case us

        /// The units the AI may answer in (the schema's enum), each a `PlanUnit`.
        public var allowed: [PlanUnit] {
            switch self {
            case .metric: [.g, .ml, .piece, .tbsp, .tsp]
            case .us: [.oz, .lb, .cup, .flOz, .tbsp, .tsp, .piece]
            }
        }
    }

    public var name: String
    /// How many people eat it each time it is cooked.
    public var portions: Int
    public var units: Units
    /// How often a week it is cooked.
    public var timesAWeek: Int

    public static let portionRange = 1...20
    public static let timesRange = 1...14
    public static let nameLength = 1...80

    public init(name: String, portions: Int, units: Units, timesAWeek: Int) {
        self.name = name
        self.portions = portions
        self.units = units
        self.timesAWeek = timesAWeek
    }

    /// How many portions the week's shopping is for.
    public var portionsAWeek: Int { portions * timesAWeek }
}

/// A unit a planned ingredient is bought in, and how a shop sells a scaled amount of it.
public enum PlanUnit: String, Sendable, Hashable, CaseIterable, Codable {
    case g, ml, piece, tbsp, tsp, oz, lb, cup
    case flOz = "fl oz"

    /// `amount` rounded as one buys it: whole grams and millilitres, whole pieces (up: half an onion is
    /// still one to buy), and quarters of the US units and spoons (up, for the same reason).
    public func rounded(_ amount: Double) -> Double {
        guard amount.isFinite, amount > 0 else { return 0 }
        switch self {
        case .g, .ml: return max(1, amount.rounded())
        case .piece: return (amount - 1e-9).rounded(.up)
        case .tbsp, .tsp, .oz, .lb, .cup, .flOz: return ((amount - 1e-9) * 4).rounded(.up) / 4
        }
    }
}

/// What the AI says a planned meal needs: its name as it would write it, the food categories it contains
/// (the dietary flags' tags), and each ingredient's amount for ONE portion.
///
/// The AI is asked for one portion, and the station multiplies (`week`): a model's arithmetic over
/// portions and days is where it slips, the station's is exact, and a test can predict it. The request
/// still tells the model the portions and how often, so that it can suggest what keeps for the week.
public struct MealPlan: Sendable, Hashable, Codable {
    public var title: String
    public var contains: Set<FoodTag>
    public var perPortion: [PlannedIngredient]

    public init(title: String, contains: Set<FoodTag>, perPortion: [PlannedIngredient]) {
        self.title = title
        self.contains = contains
        self.perPortion = perPortion
    }

    /// What to buy for the week: each ingredient times the week's portions, rounded as a shop sells it.
    public func week(for request: PlanRequest) -> [PlannedIngredient] {
        perPortion.map { ingredient in
            PlannedIngredient(
                name: ingredient.name,
                amount: ingredient.unit.rounded(ingredient.amount * Double(request.portionsAWeek)),
                unit: ingredient.unit)
        }
    }
}

/// One ingredient of a planned meal, in one of the plan's units.
public struct PlannedIngredient: Sendable, Hashable, Codable {
    public var name: String
    public var amount: Double
    public var unit: PlanUnit

    public init(name: String, amount: Double, unit: PlanUnit) {
        self.name = name
        self.amount = amount
        self.unit = unit
    }
}

/// Asks the AI service what a meal the owner plans needs, as the shopping list's page does. SnapApp's
/// `StationPlanner` implements it over the station's analyser, with the dietary preferences and the
/// language in force.
public protocol MealPlanner: Sendable {
    /// The plan for `request` (text only, no photo), or the failure the page shows.
    func plan(_ request: PlanRequest) async throws(AIFailure) -> MealPlan
}
