import SnapCore
import SnapText

/// The AI service that estimates a meal's macros from a photo.
public protocol MealAnalyzer: Sendable {
    /// Analyses one processed photo (JPEG bytes), telling the service what the person eats and the
    /// language to answer in (the owner can change both at run time); throws the failure the station shows.
    func analyse(jpeg: [UInt8], dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis

    /// Asks again about the same photo with the first answer and what the person says was wrong with it
    /// ("two eggs, not three; no oil"): the new estimate, or the failure the page shows.
    func correct(
        jpeg: [UInt8], first: MealAnalysis, sentence: String, dietary: [DietaryPreference], language: Language
    ) async throws(AIFailure) -> MealAnalysis

    /// A meal eaten away from the station, as the person describes it ("two slices of rye bread with butter
    /// and a boiled egg"): asked in text alone, answered in the photo's schema, or the failure the page shows.
    func describe(_ sentence: String, dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis

    /// What a meal the household plans to cook needs (no photo: the meal's name, portions and how often),
    /// for the shopping list: the plan, or the failure the page shows.
    func plan(_ request: PlanRequest, dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealPlan
}

extension MealAnalyzer {
    /// Analyses with the answer in English.
    public func analyse(jpeg: [UInt8], dietary: [DietaryPreference]) async throws(AIFailure) -> MealAnalysis {
        try await analyse(jpeg: jpeg, dietary: dietary, language: .en)
    }
}

/// The analyser of a station without an AI key: it always says so.
public struct UnconfiguredAnalyzer: MealAnalyzer {
    public init() {}
    public func analyse(jpeg: [UInt8], dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealAnalysis
    {
        throw .notConfigured
    }

    public func correct(
        jpeg: [UInt8], first: MealAnalysis, sentence: String, dietary: [DietaryPreference], language: Language
    ) async throws(AIFailure) -> MealAnalysis {
        throw .notConfigured
    }

    public func describe(_ sentence: String, dietary: [DietaryPreference], language: Language)
        async throws(AIFailure) -> MealAnalysis
    {
        throw .notConfigured
    }

    public func plan(_ request: PlanRequest, dietary: [DietaryPreference], language: Language) async throws(AIFailure)
        -> MealPlan
    {
        throw .notConfigured
    }
}
