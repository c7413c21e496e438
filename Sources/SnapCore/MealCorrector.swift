/// Asks the AI service again about a saved meal with what the owner says was wrong with its estimate
/// ("two eggs, not three; no oil"), as the page does. SnapApp's `StationCorrector` implements it over the
/// station's analyser, with the dietary preferences and the language in force.
public protocol MealCorrector: Sendable {
    /// The new estimate for the photo (JPEG bytes) given the first one and the sentence; the failure the
    /// page shows otherwise.
    func correct(photo: [UInt8], first: MealAnalysis, sentence: String) async throws(AIFailure) -> MealAnalysis
}
