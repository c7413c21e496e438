/// What a meal the station keeps can hold. Two writers make meals, each with its own bounds: the AI's
/// answer (`answer*`, checked by `MealSchema.validated`: a model that answers 5×10¹⁸ kcal is wrong, and its
/// numbers must not reach the day's totals) and the page's meal form (`form*`, `MealsRoom.readMealForm`).
/// A meal read back from a backup (`isKeepable`) must be one of the two could have written.
public enum MealBounds {
    public static let answerItems = 1...50
    public static let answerTitle = 1...120
    public static let answerItemName = 1...80
    public static let answerItemGrams = 0...5_000
    public static let answerItemCalories = 0...10_000
    public static let answerItemMacroGrams = 0...2_000
    public static let answerMealCalories = 0...30_000
    public static let answerMealMacroGrams = 0...5_000
    public static let answerIngredients = 0...20
    public static let answerIngredientAmount = 0.0...10_000
    public static let answerIngredientUnits: Set<String> = ["g", "ml", "piece"]
    public static let answerFunFact = 0...140

    /// The longest name the form takes: a meal's title, an item's, a shopping line's.
    public static let formName = 80
    public static let formItems = 50
    public static let formGrams = 5000
    public static let formKcal = 10_000
    public static let formMacro = 1000

    /// Whether `analysis` is a meal the AI or the form could have kept: every number in the looser of their
    /// bounds (a form's totals by hand reach 50 items' worth), every text within its length and without
    /// control characters.
    public static func isKeepable(_ analysis: MealAnalysis) -> Bool {
        let items = formItems  // the form's and the answer's most items are the same
        func text(_ value: String, _ most: Int, empty: Bool = true) -> Bool {
            (empty || !value.isEmpty) && value.count <= most
                && !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        func macros(_ value: Macros, kcal: Int, grams: Int) -> Bool {
            (0...kcal).contains(value.calories)
                && [value.protein, value.carbs, value.fats].allSatisfy { (0...grams).contains($0) }
        }
        let itemKcal = max(answerItemCalories.upperBound, formKcal)
        let itemGrams = max(answerItemMacroGrams.upperBound, formMacro)
        return text(analysis.title, answerTitle.upperBound) && (0...items).contains(analysis.items.count)
            && macros(
                analysis.totals, kcal: max(answerMealCalories.upperBound, formKcal * items),
                grams: max(answerMealMacroGrams.upperBound, formMacro * items))
            && text(analysis.funFact ?? "", answerFunFact.upperBound)
            && analysis.items.allSatisfy { item in
                text(item.name, formName, empty: false) && (0...formGrams).contains(item.grams)
                    && macros(item.macros, kcal: itemKcal, grams: itemGrams)
                    && item.estimate.map {
                        (0...formGrams).contains($0.grams) && macros($0.macros, kcal: itemKcal, grams: itemGrams)
                    } != false
                    && answerIngredients.contains(item.ingredients.count)
                    && item.ingredients.allSatisfy {
                        text($0.name, answerItemName.upperBound, empty: false)
                            && answerIngredientAmount.contains($0.amount)
                            && answerIngredientUnits.contains($0.unit)
                    }
            }
    }
}
