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

    public static func + (lhs: Macros, rhs: Macros) -> Macros {
        Macros(
            calories: lhs.calories + rhs.calories, protein: lhs.protein + rhs.protein,
            carbs: lhs.carbs + rhs.carbs, fats: lhs.fats + rhs.fats)
    }
}
