import SnapCore
import SnapServices

/// The page's corrections through the station's analyser, with the dietary preferences and the language
/// in force at the moment of asking (`LiveSettings`).
struct StationCorrector: MealCorrector {
    let analyzer: any MealAnalyzer
    let live: LiveSettings

    func correct(photo: [UInt8], first: MealAnalysis, sentence: String) async throws(AIFailure) -> MealAnalysis {
        try await analyzer.correct(
            jpeg: photo, first: first, sentence: sentence, dietary: live.dietary, language: live.language)
    }
}
