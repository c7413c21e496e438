import Foundation
import Logging
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import SnapText
import Testing

@testable import SnapWeb

/// The station's corrector as SnapApp wires it, over the analyser, against the OpenAI stand-in.
private struct Corrector: MealCorrector {
    let analyzer: OpenAIAnalyzer
    func correct(photo: [UInt8], first: MealAnalysis, sentence: String) async throws(AIFailure) -> MealAnalysis {
        try await analyzer.correct(jpeg: photo, first: first, sentence: sentence, dietary: [], language: .en)
    }
}

/// A saved meal corrected in a sentence on its page: the AI asked again with the photo, the first answer
/// and the sentence (the stand-in's model drops what the sentence says there was none of).
@Suite("The owner's page: a meal corrected in a sentence", .serialized, .startsProcesses)
struct CorrectionTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func station() throws -> WebTestStation {
        let analyzer = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: fake.baseURL + "/v1", key: "test-key", attempts: 1),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: "correction-test"))
        return try WebTestStation(corrector: Corrector(analyzer: analyzer))
    }

    @Test("should replace the estimate with the answer, keep the first in the meal's history and spend one use")
    func corrects() async throws {
        let station = try station()
        let browser = try await station.pair()
        let meal = try station.meal("m1")  // Spaghetti 320 kcal, Tomato sauce 210 kcal
        let page = await station.get("/meal/m1", cookie: browser.cookie).text
        #expect(page.contains("action=\"/meal/m1/correct\"") && page.contains("uses 1 of the 10 analyses left today"))
        let reply = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "1"), ("sentence", "No tomato sauce at all")],
            cookie: browser.cookie)
        #expect(reply.status == 303 && reply.header("Location") == "/meal/m1", "\(reply.text)")
        // The page answers at once; the meal's page says the AI is asked and reloads itself until it answers.
        let asking = await station.get("/meal/m1", cookie: browser.cookie).text
        #expect(asking.contains("http-equiv=\"refresh\"") || asking.contains("Corrected: the AI"))
        #expect(
            await eventually { (try? station.store.storedMeal(PhotoID("m1")))??.version == 2 },
            "the answer is kept")
        let request = try #require(try await fake.requests().last)
        #expect(request["correction"] as? String == "No tomato sauce at all")
        #expect((request["first_answer"] as? [String: Any])?["calories"] as? Int == meal.analysis.totals.calories)
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.meal.analysis.items.map(\.name) == ["Spaghetti"] && stored.meal.analysis.totals.calories == 320)
        #expect(stored.version == 2 && !stored.totalsSetByOwner)
        let history = try station.store.replacedEstimates(PhotoID("m1"))
        #expect(history.map(\.sentence) == ["No tomato sauce at all"] && history.first?.analysis == meal.analysis)
        #expect(try station.store.aiUses(on: station.today) == 1)
        #expect(station.link.events.contains(.answeredForThePage(day: station.today)))
        #expect(
            await eventually {
                station.link.events.contains { if case .mealsChanged = $0 { true } else { false } }
            })
        let after = await station.get("/meal/m1", cookie: browser.cookie).text
        #expect(after.contains("Corrected: the AI") && after.contains("“No tomato sauce at all”"))
    }

    @Test("should leave the first estimate as it was on a refusal, which still counts, and keep the sentence")
    func refusalKeepsTheFirst() async throws {
        let station = try station()
        let browser = try await station.pair()
        let meal = try station.meal("m1")
        try await fake.queue("openai", ["refusal"])
        let reply = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "1"), ("sentence", "half the pasta")],
            cookie: browser.cookie)
        #expect(reply.status == 303)
        var shown = ""
        #expect(
            await eventually {
                shown = await station.get("/meal/m1", cookie: browser.cookie).text
                return shown.contains("Not corrected")
            })
        #expect(shown.contains("Not corrected: The AI declined this photo"))
        #expect(shown.contains(">half the pasta</textarea>"), "what was typed is kept")
        let stored = try #require(try station.store.storedMeal(PhotoID("m1")))
        #expect(stored.meal.analysis == meal.analysis && stored.version == 1)
        #expect(try station.store.replacedEstimates(PhotoID("m1")).isEmpty)
        #expect(try station.store.aiUses(on: station.today) == 1, "the service answered: it counts")
        // A failure that is not an answer (the service down) spends nothing.
        try await fake.queue("openai", ["500"])
        let down = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "1"), ("sentence", "half the pasta")],
            cookie: browser.cookie)
        #expect(down.status == 303)
        #expect(
            await eventually {
                await station.get("/meal/m1", cookie: browser.cookie).text.contains(
                    "Not corrected: The AI service failed")
            })
        #expect(try station.store.aiUses(on: station.today) == 1)
        let empty = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "1"), ("sentence", "  ")], cookie: browser.cookie)
        #expect(empty.status == 400)
    }

    @Test("should correct the result on the station's screen: the station saves it first, then the AI is asked")
    func correctsTheShownResult() async throws {
        let station = try station()
        let browser = try await station.pair()
        let template = try station.meal("m1")
        let paths = station.store.paths(for: PhotoID("r1"), day: station.today)
        let photo = ProcessedPhoto(
            id: PhotoID("r1"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        station.link.show(
            .mealResult(
                MealResultScreen(photo: photo, analysis: template.analysis, clashes: [[], []], autoSaveIn: 12)))
        // The station's loop: a submitted review is saved as sent.
        let store = station.store
        let day = station.today
        station.link.onEvent.withLock {
            $0 = { event in
                if case .reviewSubmitted(_, let sent?) = event {
                    try? store.saveMeal(Meal(photo: photo, day: day, analysis: sent))
                }
            }
        }
        let review = await station.get("/review", cookie: browser.cookie).text
        #expect(review.contains("action=\"/review/correct\"") && review.contains("The station saves the meal first"))
        let reply = await station.post(
            "/review/correct", [("csrf", browser.csrf), ("photo", "r1"), ("sentence", "No tomato sauce at all")],
            cookie: browser.cookie)
        #expect(reply.status == 303 && reply.header("Location") == "/meal/r1", "\(reply.text)")
        #expect(
            station.link.events.contains { event in
                if case .reviewSubmitted(PhotoID("r1"), template.analysis?) = event { true } else { false }
            }, "the shown result is saved as it is")
        #expect(
            await eventually { (try? station.store.storedMeal(PhotoID("r1")))??.version == 2 },
            "the answer is kept")
        let stored = try #require(try station.store.storedMeal(PhotoID("r1")))
        #expect(stored.meal.analysis.items.map(\.name) == ["Spaghetti"])
        #expect(try station.store.replacedEstimates(PhotoID("r1")).first?.analysis == template.analysis)
        #expect(try station.store.aiUses(on: station.today) == 1)
        // An empty sentence is refused on the review page, with nothing saved or spent.
        station.link.show(
            .mealResult(
                MealResultScreen(photo: photo, analysis: template.analysis, clashes: [[], []], autoSaveIn: 12)))
        let empty = await station.post(
            "/review/correct", [("csrf", browser.csrf), ("photo", "r1"), ("sentence", " ")], cookie: browser.cookie)
        #expect(empty.status == 400 && empty.text.contains("action=\"/review/correct\""))
    }

    @Test("should count a correction on the station's day when the clock was set back, not on the clock's")
    func clockSetBack() async throws {
        let station = try station()
        let browser = try await station.pair()
        let usedDay = station.today
        try station.meal("m1", day: usedDay)
        for _ in 0..<9 { try station.store.recordAIUse(on: usedDay) }
        // The clock goes back two days (a Pi without a real-time clock, before NTP answers).
        station.advance(-2 * 86_400)
        #expect(station.today == usedDay.adding(days: -2))
        let today = await station.get("/", cookie: browser.cookie).text
        #expect(today.contains("Spaghetti"), "the page's Today is the station's day, with its meal")
        let reply = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "1"), ("sentence", "No tomato sauce at all")],
            cookie: browser.cookie)
        #expect(reply.status == 303, "\(reply.text)")
        #expect(await eventually { (try? station.store.aiUses(on: usedDay)) == 10 })
        #expect(try station.store.aiUses(on: station.today) == 0, "nothing counted on the clock's day")
        #expect(station.link.events.contains(.answeredForThePage(day: usedDay)))
        // The station's day has no analysis left, so the page offers none, whatever the clock says.
        let again = await station.post(
            "/meal/m1/correct", [("csrf", browser.csrf), ("version", "2"), ("sentence", "And no cheese")],
            cookie: browser.cookie)
        #expect(again.status == 409 && again.text.contains("used up"), "\(again.text)")
    }
}
