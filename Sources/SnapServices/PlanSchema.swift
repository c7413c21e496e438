import SnapCore

/// The JSON the AI must answer a planned meal with (`MealPlan`), as a strict `json_schema`, and its
/// validation. Like `MealSchema`, the order is the order the model writes in: the meal's name, what it
/// contains, then its ingredients, each named before its amount and unit.
enum PlanSchema {
    static let name = "meal_plan"

    /// The schema for a plan in `units`: the unit is an enum of those units only, so that a line the
    /// station merges with another names the same unit.
    static func schema(_ units: PlanRequest.Units) -> OrderedJSON {
        let text: OrderedJSON = .object([("type", "string")])
        let object = OrderedJSON.strictObject
        let tags = OrderedJSON.foodTags
        let ingredient = object([
            ("name", text), ("amount_per_portion", .object([("type", "number")])),
            ("unit", .object([("type", "string"), ("enum", .array(units.allowed.map { .string($0.rawValue) }))])),
        ])
        return object([
            ("title", text), ("contains", tags), ("ingredients", .object([("type", "array"), ("items", ingredient)])),
        ])
    }

    /// The answer as the schema describes it.
    struct Answer: Decodable {
        struct Line: Decodable {
            var name: String
            var amountPerPortion: Double
            var unit: String

            enum CodingKeys: String, CodingKey {
                case name, unit
                case amountPerPortion = "amount_per_portion"
            }
        }
        var title: String
        var contains: [String]
        var ingredients: [Line]
    }

    /// What a recipe can hold: beyond these the answer is not a meal's shopping.
    enum Bounds {
        static let ingredients = 1...40
        static let title = 1...120
        static let name = 1...80
        /// Per portion: 5 kg of one thing is no portion.
        static let amount = 0.0...5_000
    }

    /// The plan, if the answer makes sense: a title, 1 to 40 ingredients each named, with an amount a
    /// portion can hold, in one of the units asked for.
    static func validated(_ answer: Answer, units: PlanRequest.Units) throws(AIFailure) -> MealPlan {
        let title = answer.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Bounds.title.contains(title.count) else { throw .malformedAnswer("no title, or a title too long") }
        guard Bounds.ingredients.contains(answer.ingredients.count) else {
            throw .malformedAnswer(
                "\(answer.ingredients.count) ingredients (a meal has 1 to \(Bounds.ingredients.upperBound))")
        }
        var lines: [PlannedIngredient] = []
        for line in answer.ingredients {
            let name = line.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard Bounds.name.contains(name.count), Bounds.amount.contains(line.amountPerPortion) else {
                throw .malformedAnswer("an ingredient's name or amount is not what a portion holds")
            }
            guard let unit = PlanUnit(rawValue: line.unit), units.allowed.contains(unit) else {
                throw .malformedAnswer("an ingredient in \"\(line.unit)\", not one of the units asked for")
            }
            lines.append(PlannedIngredient(name: name, amount: line.amountPerPortion, unit: unit))
        }
        return MealPlan(
            title: title, contains: Set(answer.contains.compactMap(FoodTag.init(rawValue:))), perPortion: lines)
    }
}
