import SnapCore

extension OrderedJSON {
    /// A strict schema's object: every property required, in its order, and no others (OpenAI's strict
    /// structured outputs; the SDK's `_ensure_strict_json_schema` writes the same).
    static func strictObject(_ properties: [(String, OrderedJSON)]) -> OrderedJSON {
        .object([
            ("type", "object"), ("properties", .object(properties)),
            ("required", .array(properties.map { .string($0.0) })), ("additionalProperties", false),
        ])
    }

    /// What a food contains, as the dietary flags read it: an array of `FoodTag`'s names.
    static var foodTags: OrderedJSON {
        .object([
            ("type", "array"),
            ("items", .object([("type", "string"), ("enum", .array(FoodTag.allCases.map { .string($0.rawValue) }))])),
        ])
    }
}

/// The JSON the AI must answer with, as a strict `json_schema` response format, and its validation.
enum MealSchema {
    /// The schema sent in `response_format`. Strict mode needs every property listed as required and no
    /// additional properties; `required` follows `properties`' order, as the SDK's strict conversion
    /// writes it (`Tests/AI/check_openai_sdk.py` holds the two equal).
    ///
    /// The order is deliberate: a strict schema makes the model write its keys in this order, and each
    /// key is written knowing only what came before it. So the meal is named first, then each item by
    /// its name before its weight and its numbers, and the totals come after the items they sum (the
    /// answer is refused when they do not add up: `validated`), and the fun fact last.
    static var schema: OrderedJSON {
        let number: OrderedJSON = .object([("type", "integer")])
        let text: OrderedJSON = .object([("type", "string")])
        let object = OrderedJSON.strictObject
        let tags = OrderedJSON.foodTags
        let ingredient = object([
            ("name", text), ("amount", .object([("type", "number")])),
            ("unit", .object([("type", "string"), ("enum", ["g", "ml", "piece"])])),
        ])
        let item = object([
            ("name", text), ("grams", number), ("calories", number), ("protein", number), ("carbs", number),
            ("fats", number), ("contains", tags), ("ingredients", .object([("type", "array"), ("items", ingredient)])),
        ])
        return object([
            ("title", text), ("items", .object([("type", "array"), ("items", item)])), ("calories", number),
            ("protein", number), ("carbs", number), ("fats", number), ("fun_fact", text),
        ])
    }

    /// `analysis` written as the schema describes an answer, in its order: the first answer a correction
    /// sends back to the model.
    static func answer(_ analysis: MealAnalysis) -> OrderedJSON {
        .object([
            ("title", .string(analysis.title)),
            (
                "items",
                .array(
                    analysis.items.map { item in
                        .object([
                            ("name", .string(item.name)), ("grams", .integer(item.grams)),
                            ("calories", .integer(item.macros.calories)), ("protein", .integer(item.macros.protein)),
                            ("carbs", .integer(item.macros.carbs)), ("fats", .integer(item.macros.fats)),
                            ("contains", .array(item.contains.map(\.rawValue).sorted().map { .string($0) })),
                            (
                                "ingredients",
                                .array(
                                    item.ingredients.map { ingredient in
                                        .object([
                                            ("name", .string(ingredient.name)), ("amount", .number(ingredient.amount)),
                                            ("unit", .string(ingredient.unit)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
            ("calories", .integer(analysis.totals.calories)), ("protein", .integer(analysis.totals.protein)),
            ("carbs", .integer(analysis.totals.carbs)), ("fats", .integer(analysis.totals.fats)),
            ("fun_fact", .string(analysis.funFact ?? "")),
        ])
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
            /// Absent from servers that ignore the strict schema, and from answers before it was asked.
            var ingredients: [Ingredient]?
        }
        var title: String
        var calories: Int
        var protein: Int
        var carbs: Int
        var fats: Int
        var items: [Item]
        var funFact: String?

        enum CodingKeys: String, CodingKey {
            case title, calories, protein, carbs, fats, items
            case funFact = "fun_fact"
        }
    }

    /// What one plate can hold (`MealBounds`' answer's): beyond these an answer is not a meal the station
    /// believes.
    enum Bounds {
        static let items = MealBounds.answerItems
        static let title = MealBounds.answerTitle
        static let itemName = MealBounds.answerItemName
        static let itemGrams = MealBounds.answerItemGrams
        static let itemCalories = MealBounds.answerItemCalories
        static let itemMacroGrams = MealBounds.answerItemMacroGrams
        static let mealCalories = MealBounds.answerMealCalories
        static let mealMacroGrams = MealBounds.answerMealMacroGrams
        static let ingredients = MealBounds.answerIngredients
        static let ingredientAmount = MealBounds.answerIngredientAmount
        static let funFact = MealBounds.answerFunFact
    }

    /// The analysis, if the answer makes sense: every number within what a plate can hold (`Bounds`),
    /// 1 to 50 items, a title, and totals roughly the sum of the items (within 20 %, or 60 kcal for small
    /// meals).
    static func validated(_ answer: Answer) throws(AIFailure) -> MealAnalysis {
        guard Bounds.items.contains(answer.items.count) else {
            throw .malformedAnswer("\(answer.items.count) items (a meal has 1 to \(Bounds.items.upperBound))")
        }
        guard Bounds.title.contains(answer.title.count) else { throw .malformedAnswer("no title, or a title too long") }
        let totalsInRange =
            Bounds.mealCalories.contains(answer.calories)
            && [answer.protein, answer.carbs, answer.fats].allSatisfy(Bounds.mealMacroGrams.contains)
        guard totalsInRange else { throw .malformedAnswer("the meal's totals are outside what a plate holds") }
        for item in answer.items {
            let inRange =
                Bounds.itemName.contains(item.name.count) && Bounds.itemGrams.contains(item.grams)
                && Bounds.itemCalories.contains(item.calories)
                && [item.protein, item.carbs, item.fats].allSatisfy(Bounds.itemMacroGrams.contains)
            guard inRange else { throw .malformedAnswer("an item's numbers are outside what a plate holds") }
            let ingredients = item.ingredients ?? []
            let ingredientsInRange =
                Bounds.ingredients.contains(ingredients.count)
                && ingredients.allSatisfy {
                    Bounds.itemName.contains($0.name.count) && Bounds.ingredientAmount.contains($0.amount)
                        && MealBounds.answerIngredientUnits.contains($0.unit)
                }
            guard ingredientsInRange else { throw .malformedAnswer("an item's ingredients are not what a plate holds") }
        }
        let funFact = answer.funFact?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Bounds.funFact.contains(funFact?.count ?? 0) else {
            throw .malformedAnswer("the fun fact is longer than \(Bounds.funFact.upperBound) characters")
        }
        let totals = Macros(calories: answer.calories, protein: answer.protein, carbs: answer.carbs, fats: answer.fats)
        let items = answer.items.map { item in
            MealItem(
                name: item.name, grams: item.grams,
                macros: Macros(calories: item.calories, protein: item.protein, carbs: item.carbs, fats: item.fats),
                contains: Set(item.contains.compactMap(FoodTag.init(rawValue:))), ingredients: item.ingredients ?? [])
        }
        let sum = items.reduce(Macros.zero) { $0 + $1.macros }
        guard abs(sum.calories - totals.calories) <= max(60, totals.calories / 5) else {
            throw .malformedAnswer("the total of \(totals.calories) kcal is not the items' \(sum.calories) kcal")
        }
        return MealAnalysis(
            title: answer.title, totals: totals, items: items, funFact: funFact?.isEmpty == false ? funFact : nil)
    }
}
