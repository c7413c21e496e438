import SnapCore
import SnapServices

/// The shopping list's planned meals through the station's analyser, with the dietary preferences and the
/// language in force at the moment of asking (`LiveSettings`), as `StationCorrector` asks for corrections.
struct StationPlanner: MealPlanner {
    let analyzer: any MealAnalyzer
    let live: LiveSettings

    func plan(_ request: PlanRequest) async throws(AIFailure) -> MealPlan {
        try await analyzer.plan(request, dietary: live.dietary, language: live.language)
    }
}
