import Foundation
import Logging
import SnapCore
import SnapServices
import SnapTestSupport
import SnapText
import Testing

/// A meal planned into the shopping list, asked of the OpenAI stand-in in text alone: the request carries
/// the meal, its portions, how often, the units and the household's dietary preferences; the answer is one
/// portion's amounts, which the station multiplies for the week.
@Suite("OpenAIAnalyzer plans a meal against the OpenAI stand-in", .serialized, .startsProcesses)
struct OpenAIAnalyzerPlanTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func analyzer() -> OpenAIAnalyzer { fake.textAnalyzer(label: "plan-test") }

    @Test("should ask in text alone with the portions, the times a week, the units and the dietary preferences")
    func request() async throws {
        let asked = PlanRequest(name: "spaghetti bolognese", portions: 4, units: .metric, timesAWeek: 2)
        let plan = try await analyzer().plan(asked, dietary: [.glutenFree], language: .en)
        let request = try #require(try await fake.requests().last)
        #expect(request["bad_request"] == nil, "OpenAI takes the request: \(request["bad_request"] ?? "")")
        let prompt = try #require(request["prompt"] as? String)
        #expect(prompt.contains("\"spaghetti bolognese\"") && prompt.contains("4 portions"))
        #expect(prompt.contains("2 times a week") && prompt.contains("gluten-free") && prompt.contains("grams (g)"))
        #expect(request["detail"] == nil && request["image_size"] == nil, "no photo goes")
        let body = try #require(request["body"] as? [String: Any])
        let format = try #require(body["response_format"] as? [String: Any])
        #expect((format["json_schema"] as? [String: Any])?["name"] as? String == "meal_plan")
        // The stand-in answers one portion; the household is gluten-free, so its pasta is.
        #expect(plan.title == "Spaghetti bolognese" && plan.contains == [.meat])
        #expect(plan.perPortion.first == PlannedIngredient(name: "Gluten-free spaghetti", amount: 100, unit: .g))
        let week = plan.week(for: asked)
        #expect(week.map(\.amount) == [800, 1000, 1200, 4, 4], "8 portions a week of 100 g, 125 g, 150 ml, ½, ½ tbsp")
        #expect(week.map(\.unit) == [.g, .g, .ml, .piece, .tbsp])
    }

    @Test("should scale with portions and times a week, rounded as a shop sells it, in US units when asked")
    func scales() async throws {
        let once = PlanRequest(name: "chili", portions: 3, units: .us, timesAWeek: 1)
        let plan = try await analyzer().plan(once, dietary: [], language: .en)
        #expect(plan.contains == [.gluten, .meat])
        #expect(plan.perPortion.map(\.unit) == [.oz, .oz, .cup, .piece, .tbsp])
        // 3 × 3.5 oz, 3 × 4.5 oz, 3 × ⅝ cup up to a quarter, 3 × ½ onion up to whole ones, 3 × ½ tbsp.
        #expect(plan.week(for: once).map(\.amount) == [10.5, 13.5, 2, 2, 1.5])
        let twice = PlanRequest(name: "chili", portions: 3, units: .us, timesAWeek: 2)
        #expect(plan.week(for: twice).map(\.amount) == [21, 27, 3.75, 3, 3])
        let prompt = try #require(try await fake.requests().last?["prompt"] as? String)
        #expect(prompt.contains("3 portions, 1 time a week") && prompt.contains("ounces (oz)"))
    }

    @Test("should answer in the household's language, and say a refusal and a broken answer as such")
    func languageAndFailures() async throws {
        let asked = PlanRequest(name: "Spaghetti Bolognese", portions: 2, units: .metric, timesAWeek: 1)
        let plan = try await analyzer().plan(asked, dietary: [], language: .de)
        #expect(plan.perPortion.map(\.name).contains("Rinderhackfleisch"))
        try await fake.queue("openai", ["refusal"])
        await #expect(throws: AIFailure.refused("I can't help with identifying that.")) {
            try await analyzer().plan(asked, dietary: [], language: .en)
        }
        try await fake.queue("openai", ["malformed"])
        await #expect(throws: AIFailure.malformedAnswer("not the JSON the schema asks for")) {
            try await analyzer().plan(asked, dietary: [], language: .en)
        }
    }
}
