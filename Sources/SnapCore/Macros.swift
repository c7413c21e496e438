/// Energy and macronutrients of a meal or of one item: kilocalories and grams.
public struct Macros: Sendable, Hashable, Codable {
    public var calories: Int
    public var protein: Int
    public var carbs: Int
    public var fats: Int

    public init(calories: Int, protein: Int, carbs: Int, fats: Int) {
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fats = fats
    }

    public static let zero = Macros(calories: 0, protein: 0, carbs: 0, fats: 0)

    /// The sum, saturating at the ends of `Int` rather than trapping: a day's totals are summed from
    /// stored meals, and no stored number, however absurd, may stop the station.
    public static func + (lhs: Macros, rhs: Macros) -> Macros {
        Macros(
            calories: saturating(lhs.calories, rhs.calories), protein: saturating(lhs.protein, rhs.protein),
            carbs: saturating(lhs.carbs, rhs.carbs), fats: saturating(lhs.fats, rhs.fats))
    }

    private static func saturating(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    /// How far `value` is toward `goal`: 1 at the goal, above 1 past it; nil without a goal (0).
    public static func progress(_ value: Int, of goal: Int) -> Double? {
        goal > 0 ? Double(max(0, value)) / Double(goal) : nil
    }

    /// Whether any of the four has a goal.
    public var hasAny: Bool { calories > 0 || protein > 0 || carbs > 0 || fats > 0 }
}
