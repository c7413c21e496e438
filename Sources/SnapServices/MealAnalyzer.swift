import SnapCore

/// The AI service that estimates a meal's macros from a photo.
public protocol MealAnalyzer: Sendable {
    /// Analyses one processed photo (JPEG bytes), telling the service what the person eats (the owner
    /// can change that at run time); throws the failure the station shows.
    func analyse(jpeg: [UInt8], dietary: [DietaryPreference]) async throws(AIFailure) -> MealAnalysis
}

/// The analyser of a station without an AI key: it always says so.
public struct UnconfiguredAnalyzer: MealAnalyzer {
    public init() {}
    public func analyse(jpeg: [UInt8], dietary: [DietaryPreference]) async throws(AIFailure) -> MealAnalysis {
        throw .notConfigured
    }
}
