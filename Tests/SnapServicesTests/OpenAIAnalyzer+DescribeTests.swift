import Foundation
import Logging
import SnapCore
import SnapServices
import SnapTestSupport
import SnapText
import Testing

/// A meal described in a sentence, asked of the OpenAI stand-in in text alone with the photo's strict
/// schema: the sentence is quoted as what the person said, and the answer is read as a photo's.
@Suite("OpenAIAnalyzer estimates a described meal against the OpenAI stand-in", .serialized, .startsProcesses)
struct OpenAIAnalyzerDescribeTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func analyzer() -> OpenAIAnalyzer { fake.textAnalyzer(label: "describe-test") }

    @Test("should ask in text alone, the sentence quoted, held to the meal's strict schema, in the language asked")
    func describes() async throws {
        let sentence = "two slices of rye bread with butter, and a boiled egg"
        let meal = try await analyzer().describe(sentence, dietary: [.vegetarian], language: .de)
        let request = try #require(try await fake.requests().last)
        #expect(request["bad_request"] == nil, "OpenAI takes the request: \(request["bad_request"] ?? "")")
        let prompt = try #require(request["prompt"] as? String)
        #expect(prompt.contains("The person says they ate: \"\(sentence)\""))
        #expect(prompt.contains("from a person's description") && prompt.contains("vegetarian"))
        #expect(prompt.contains("fun fact in German"))
        #expect(request["detail"] == nil && request["image_size"] == nil, "no photo goes")
        let body = try #require(request["body"] as? [String: Any])
        let format = try #require(body["response_format"] as? [String: Any])
        let schema = try #require(format["json_schema"] as? [String: Any])
        #expect(schema["name"] as? String == "meal_macros" && schema["strict"] as? Bool == true)
        // The stand-in's rule: an item of 150 kcal for each part between commas and "and".
        #expect(meal.items.map(\.name) == ["Two slices of rye bread with butter", "A boiled egg"])
        #expect(meal.totals.calories == 300 && meal.title.hasPrefix("Two slices"))
    }

    @Test("should say that a station without a key cannot describe")
    func unconfigured() async throws {
        await #expect(throws: AIFailure.notConfigured) {
            try await UnconfiguredAnalyzer().describe("an apple", dietary: [], language: .en)
        }
    }
}
