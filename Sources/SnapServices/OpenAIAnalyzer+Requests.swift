import Foundation
import SnapCore
import SnapImaging
import SnapText

/// The requests' bodies: a meal's photo, a correction's turns after it, a meal described in a sentence, and a
/// planned meal in words.
extension OpenAIAnalyzer {
    /// The chat-completions request body for `image`, at the configured detail or at `detail`, for a
    /// person who eats `dietary` (the configured preferences when nil), answered in `language`.
    public func requestBody(
        image: [UInt8], detail: AIImage.Detail? = nil, dietary: [DietaryPreference]? = nil, language: Language = .en,
        correction: (first: MealAnalysis, sentence: String)? = nil
    ) -> [UInt8] {
        let instructions = Self.mealInstructions(
            from: "one photo", items: "item you can see", dietary: dietary ?? settings.dietary, language: language)
        let picture: OrderedJSON = .object([
            ("url", .string("data:image/jpeg;base64," + Data(image).base64EncodedString())),
            ("detail", .string((detail ?? settings.detail).rawValue)),
        ])
        let question: [OrderedJSON] = [
            .object([("role", "system"), ("content", .string(instructions))]),
            .object([
                ("role", "user"),
                (
                    "content",
                    [
                        .object([("type", "text"), ("text", "What is in this meal?")]),
                        .object([("type", "image_url"), ("image_url", picture)]),
                    ]
                ),
            ]),
        ]
        return mealBody(question + (correction.map(Self.correctionTurns) ?? []))
    }

    /// A described meal's request: the photo's instructions for a description, the person's sentence
    /// quoted, so that it reads as what they said and not as new instructions; the photo's strict schema.
    public func describeBody(_ sentence: String, dietary: [DietaryPreference], language: Language) -> [UInt8] {
        let instructions = Self.mealInstructions(
            from: "a person's description of what they ate", items: "item they name", dietary: dietary,
            language: language)
        return mealBody([
            .object([("role", "system"), ("content", .string(instructions))]),
            .object([
                ("role", "user"),
                (
                    "content",
                    .string(
                        "The person says they ate: \"\(sentence)\". Where they give no amount, estimate an "
                            + "ordinary portion.")
                ),
            ]),
        ])
    }

    /// The request around a meal's messages: the model, and the answer held to `MealSchema`.
    private func mealBody(_ messages: [OrderedJSON]) -> [UInt8] {
        var payload: [(String, OrderedJSON)] = [
            ("model", .string(settings.model)),
            ("messages", .array(messages)),
            (
                "response_format",
                .object([
                    ("type", "json_schema"),
                    (
                        "json_schema",
                        .object([("name", "meal_macros"), ("strict", true), ("schema", MealSchema.schema)])
                    ),
                ])
            ),
        ]
        if isOpenAI { payload.append(("max_completion_tokens", .integer(Self.openAIAnswerTokens))) }
        return OrderedJSON.object(payload).bytes
    }

    /// What the model is told about a meal, seen in `from` (a photo, a description), each of whose `items`
    /// it lists.
    static func mealInstructions(from: String, items: String, dietary: [DietaryPreference], language: Language)
        -> String
    {
        let tags = FoodTag.allCases.map(\.rawValue).joined(separator: ", ")
        var instructions = """
            You estimate the nutrition of a meal from \(from). Name the meal in a short title. List each \
            \(items) with its weight in grams and its kcal, protein, carbs and fats in grams, rounded \
            to whole numbers; the meal's totals are the sums of the items. For each item, list in "contains" \
            which of these it contains: \(tags). For an item that is a dish made of several ingredients (a \
            sauce, a salad), list them in "ingredients" with the amount each needs in g, ml or pieces, as a \
            shopping list would; leave it empty for a plain food. Add one short, friendly "fun_fact" about the \
            meal, at most 120 characters. Write the title, the item names, the ingredients' names and units \
            and the fun fact in \(language.englishName), as a person in a \(language.englishName)-speaking \
            kitchen says them; the JSON keys and the "contains" values stay as given.
            """
        if !dietary.isEmpty {
            instructions +=
                " The person eats " + dietary.map(\.rawValue).joined(separator: " and ")
                + ": be exact about \"contains\", it is used to warn them."
        }
        return instructions
    }

    /// A correction's turns after the question: the first answer as the model gave it, and the person's
    /// sentence, quoted so that it reads as what they said and not as new instructions.
    static func correctionTurns(_ correction: (first: MealAnalysis, sentence: String)) -> [OrderedJSON] {
        [
            .object([("role", "assistant"), ("content", .string(MealSchema.answer(correction.first).text))]),
            .object([
                ("role", "user"),
                (
                    "content",
                    .string(
                        "The person who ate it says this estimate is wrong: \"\(correction.sentence)\". Estimate the meal "
                            + "again from the photo with their correction, in the same form; keep what they did not correct."
                    )
                ),
            ]),
        ]
    }

    /// A planned meal's request: text only, its own schema (`PlanSchema`), the household's dietary
    /// preferences and language. The meal's name is quoted, so that it reads as a name and not as
    /// instructions; the portions and how often go along, but the amounts asked for are one portion's
    /// (`MealPlan.week` multiplies).
    public func planBody(_ request: PlanRequest, dietary: [DietaryPreference], language: Language) -> [UInt8] {
        let tags = FoodTag.allCases.map(\.rawValue).joined(separator: ", ")
        let units =
            switch request.units {
            case .metric: "grams (g), millilitres (ml), pieces (piece), tablespoons (tbsp) or teaspoons (tsp)"
            case .us:
                "ounces (oz), pounds (lb), cups (cup), fluid ounces (fl oz), tablespoons (tbsp), teaspoons (tsp) or "
                    + "pieces (piece)"
            }
        var instructions = """
            You plan the shopping for a meal a household will cook at home. Name the meal in a short title. List \
            in "contains" which of these the meal contains: \(tags). List every ingredient to buy, each once, \
            with the amount ONE portion needs in "amount_per_portion", in \(units); the household multiplies it \
            by the portions and the times a week itself. Write the title and the ingredients' names in \
            \(language.englishName), as a person in a \(language.englishName)-speaking kitchen writes a \
            shopping list; the JSON keys, the "contains" values and the units stay as given.
            """
        if !dietary.isEmpty {
            instructions +=
                " The household eats " + dietary.map(\.rawValue).joined(separator: " and ")
                + ": choose ingredients that suit it (a gluten-free household buys gluten-free pasta), and be "
                + "exact about \"contains\", it is used to warn them."
        }
        let question = """
            The meal: "\(request.name)". It is cooked for \(request.portions) \
            \(request.portions == 1 ? "portion" : "portions"), \(request.timesAWeek) \
            \(request.timesAWeek == 1 ? "time" : "times") a week.
            """
        var payload: [(String, OrderedJSON)] = [
            ("model", .string(settings.model)),
            (
                "messages",
                [
                    .object([("role", "system"), ("content", .string(instructions))]),
                    .object([("role", "user"), ("content", .string(question))]),
                ]
            ),
            (
                "response_format",
                .object([
                    ("type", "json_schema"),
                    (
                        "json_schema",
                        .object([
                            ("name", .string(PlanSchema.name)), ("strict", true),
                            ("schema", PlanSchema.schema(request.units)),
                        ])
                    ),
                ])
            ),
        ]
        if isOpenAI { payload.append(("max_completion_tokens", .integer(Self.openAIAnswerTokens))) }
        return OrderedJSON.object(payload).bytes
    }
}
