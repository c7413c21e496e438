import SnapCore

/// The JSON the AI must answer with, as a strict `json_schema` response format, and its validation.
enum MealSchema {
    /// The schema sent in `response_format`. Strict mode needs every property listed as required and no
    /// additional properties.
    static var schema: [String: Any] {
        let number: [String: Any] = ["type": "integer"]
        let tags: [String: Any] = [
            "type": "array", "items": ["type": "string", "enum": FoodTag.allCases.map(\.rawValue)],
        ]
        let item: [String: Any] = [
            "type": "object", "additionalProperties": false,
            "required": ["name", "grams", "calories", "protein", "carbs", "fats", "contains"],
            "properties": [
                "name": ["type": "string"], "grams": number, "calories": number, "protein": number, "carbs": number,
                "fats": number, "contains": tags,
            ],
        ]
        return [
            "type": "object", "additionalProperties": false,
            "required": ["title", "calories", "protein", "carbs", "fats", "items"],
            "properties": [
                "title": ["type": "string"], "calories": number, "protein": number, "carbs": number, "fats": number,
                "items": ["type": "array", "items": item],
            ],
        ]
    }

    /// The answer as the schema describes it.
    struct Answer: Decodable {
        struct Item: Decodable {
            var name: String
            var grams: Int
            var calories: Int
            var protein: Int
            var carbs: Int
            var fats: Int
            var contains: [String]
        }
        var title: String
        var calories: Int
        var protein: Int
        var carbs: Int
        var fats: Int
        var items: [Item]
    }

    /// The analysis, if the answer makes sense: no negative numbers, at least one item, and totals roughly
    /// the sum of the items (within 20 %, or 60 kcal for small meals).
    static func validated(_ answer: Answer) throws(AIFailure) -> MealAnalysis {
        let totals = Macros(calories: answer.calories, protein: answer.protein, carbs: answer.carbs, fats: answer.fats)
        let items = answer.items.map { item in
            MealItem(
                name: item.name, grams: item.grams,
                macros: Macros(calories: item.calories, protein: item.protein, carbs: item.carbs, fats: item.fats),
                contains: Set(item.contains.compactMap(FoodTag.init(rawValue:))))
        }
        let numbers =
            [totals.calories, totals.protein, totals.carbs, totals.fats]
            + items.flatMap { [$0.grams, $0.macros.calories, $0.macros.protein, $0.macros.carbs, $0.macros.fats] }
        guard numbers.allSatisfy({ $0 >= 0 }) else { throw .malformedAnswer("a negative amount") }
        guard !items.isEmpty, !answer.title.isEmpty else { throw .malformedAnswer("no title or no items") }
        let sum = items.reduce(Macros.zero) { $0 + $1.macros }
        guard abs(sum.calories - totals.calories) <= max(60, totals.calories / 5) else {
            throw .malformedAnswer("the total of \(totals.calories) kcal is not the items' \(sum.calories) kcal")
        }
        return MealAnalysis(title: answer.title, totals: totals, items: items)
    }
}
