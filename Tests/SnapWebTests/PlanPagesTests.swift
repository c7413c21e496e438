import Foundation
import Logging
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import SnapText
import Testing

@testable import SnapWeb

/// The station's planner as SnapApp wires it, over the analyser, against the OpenAI stand-in, for a
/// gluten-free household.
private struct Planner: MealPlanner {
    let analyzer: OpenAIAnalyzer
    func plan(_ request: PlanRequest) async throws(AIFailure) -> MealPlan {
        try await analyzer.plan(request, dietary: [.glutenFree], language: .en)
    }
}

/// A meal planned into the shopping list on the page: asked of the AI (the stand-in's model answers one
/// portion's amounts by a rule), reviewed, put on the list merged with what is there, and deleted again
/// with its lines.
@Suite("The owner's page: meals planned into the shopping list", .serialized, .startsProcesses)
struct PlanPagesTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func station() throws -> WebTestStation {
        let analyzer = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: fake.baseURL + "/v1", key: "test-key", attempts: 1),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: "plan-test"))
        return try WebTestStation(planner: Planner(analyzer: analyzer))
    }

    /// Asks for a plan and waits for its draft's id.
    private func ask(
        _ station: WebTestStation, _ browser: WebTestStation.Browser, name: String, portions: String = "4",
        times: String = "2", units: String = "metric"
    ) async throws -> String {
        let reply = await station.post(
            "/shopping/plan",
            [
                ("csrf", browser.csrf), ("plan_name", name), ("plan_portions", portions), ("plan_times", times),
                ("plan_units", units),
            ], cookie: browser.cookie)
        #expect(reply.status == 303 && reply.header("Location") == "/shopping/plan", "\(reply.text)")
        var location = ""
        let answered = await eventually {
            let page = await station.get("/shopping/plan", cookie: browser.cookie)
            location = page.header("Location") ?? ""
            return location.hasPrefix("/plan/")
        }
        try #require(answered, "the AI's answer became a draft")
        return String(location.dropFirst("/plan/".count))
    }

    @Test("should ask the AI, let the owner review the week's lines, and merge them into the list")
    func plansAMeal() async throws {
        let station = try station()
        let browser = try await station.pair()
        // Already on the list: 200 g of minced beef, typed by hand. The plan's beef merges into it.
        try station.store.addToShopping([Ingredient(name: "minced beef", amount: 200, unit: "g")])
        let list = await station.get("/shopping", cookie: browser.cookie).text
        #expect(list.contains("action=\"/shopping/plan\"") && list.contains("uses 1 of the 10 analyses left today"))
        let id = try await ask(station, browser, name: "spaghetti bolognese")
        #expect(try station.store.aiUses(on: station.today) == 1)
        #expect(station.link.events.contains(.answeredForThePage(day: station.today)))
        let draft = await station.get("/plan/\(id)", cookie: browser.cookie).text
        #expect(draft.contains("Review: Spaghetti bolognese") && draft.contains("4 portions, 2 times a week"))
        #expect(draft.contains("value=\"Gluten-free spaghetti\"") && draft.contains("value=\"800\""))
        #expect(draft.contains("contains meat") && !draft.contains("class=\"clash\""), "gluten-free pasta: no clash")
        // The owner removes the oil and buys 3 onions, not 4.
        let confirm = await station.post(
            "/plan/\(id)/confirm",
            [("csrf", browser.csrf)]
                + (0..<5).flatMap { index -> [(String, String)] in
                    let amounts = ["800", "1000", "1200", "3", "4"]
                    let names = ["Gluten-free spaghetti", "Minced beef", "Tomato passata", "Onion", "Olive oil"]
                    let units = ["g", "g", "ml", "piece", "tbsp"]
                    return [
                        ("line", "\(index)"), ("l\(index)_amount", amounts[index]), ("l\(index)_unit", units[index]),
                        ("l\(index)_name", names[index]),
                    ] + (index == 4 ? [("l4_remove", "1")] : [])
                }, cookie: browser.cookie)
        #expect(confirm.status == 303 && confirm.header("Location") == "/shopping?saved=1", "\(confirm.text)")
        let lines = try station.store.shoppingList()
        #expect(lines.first { $0.name == "minced beef" }?.amount == 1200, "merged with the typed line")
        #expect(lines.first { $0.name == "Onion" }?.amount == 3 && !lines.contains { $0.name == "Olive oil" })
        #expect(lines.count == 4)
        let shown = await station.get("/shopping", cookie: browser.cookie).text
        #expect(shown.contains("Spaghetti bolognese") && shown.contains("<summary>1 more</summary>"))
        // A second tap on the same draft adds nothing twice.
        let again = await station.post(
            "/plan/\(id)/confirm", [("csrf", browser.csrf), ("line", "0")], cookie: browser.cookie)
        #expect(again.status == 303 && again.header("Location") == "/plan/\(id)")
        #expect(try station.store.shoppingList().first { $0.name == "minced beef" }?.amount == 1200)
    }

    @Test("should take a deleted planned meal's part back off the list, after asking")
    func deletesWithItsLines() async throws {
        let station = try station()
        let browser = try await station.pair()
        let id = try await ask(station, browser, name: "bolognese", portions: "2", times: "1")
        let fields =
            [("csrf", browser.csrf)] + (0..<5).flatMap { index -> [(String, String)] in [("line", "\(index)")] }
        // The review form's own values: post what the draft page holds.
        let plan = try #require(try station.store.plannedMeal(Int64(id)!))
        let form =
            fields
            + plan.lines.enumerated().flatMap { index, line in
                [
                    ("l\(index)_amount", Form.format(line.amount)), ("l\(index)_unit", line.unit),
                    ("l\(index)_name", line.name),
                ]
            }
        #expect(await station.post("/plan/\(id)/confirm", form, cookie: browser.cookie).status == 303)
        try station.store.addToShopping([Ingredient(name: "Onion", amount: 2, unit: "piece")])  // typed later: 1 + 2
        #expect(try station.store.shoppingList().first { $0.name == "Onion" }?.amount == 3)
        let ask = await station.get("/plan/\(id)/delete", cookie: browser.cookie).text
        #expect(ask.contains("Delete “Bolognese”?") && ask.contains("Its 5 lines leave the shopping list too"))
        let deleted = await station.post("/plan/\(id)/delete", [("csrf", browser.csrf)], cookie: browser.cookie)
        #expect(deleted.status == 303)
        let lines = try station.store.shoppingList()
        #expect(lines.map(\.name) == ["Onion"] && lines.first?.amount == 2, "only the typed part is left")
        #expect(try station.store.plannedMeals().isEmpty)
        #expect(await station.get("/plan/\(id)", cookie: browser.cookie).status == 404)
    }

    @Test("should keep what was typed when a field is missing or the AI fails, spending only what answered")
    func problemsKeepWhatWasTyped() async throws {
        let station = try station()
        let browser = try await station.pair()
        let missing = await station.post(
            "/shopping/plan",
            [("csrf", browser.csrf), ("plan_name", "risotto"), ("plan_portions", ""), ("plan_times", "2")],
            cookie: browser.cookie)
        #expect(missing.status == 400 && missing.text.contains("value=\"risotto\""))
        #expect(missing.text.contains("The portions"), "the field is named")
        // Said at the form, not at the top of the page: the summary inside the plan's form, the field marked.
        let form = try #require(missing.text.range(of: "<form method=\"post\" action=\"/shopping/plan\""))
        #expect(missing.text[form.upperBound...].contains("<div class=\"problem\" role=\"alert\">"))
        #expect(!missing.text[..<form.lowerBound].contains("class=\"problem\""), "nothing said at the top")
        #expect(missing.text.contains("id=\"f-plan_portions\" aria-invalid=\"true\""))
        #expect(!missing.text.contains("id=\"f-plan_name\" aria-invalid"), "the name was right")
        try await fake.queue("openai", ["500"])
        _ = await station.post(
            "/shopping/plan",
            [
                ("csrf", browser.csrf), ("plan_name", "risotto"), ("plan_portions", "3"), ("plan_times", "2"),
                ("plan_units", "us"),
            ], cookie: browser.cookie)
        var shown = ""
        #expect(
            await eventually {
                shown = await station.get("/shopping/plan", cookie: browser.cookie).text
                return shown.contains("No plan:")
            })
        #expect(shown.contains("No plan: The AI service failed (HTTP 500)"))
        #expect(shown.contains("value=\"risotto\"") && shown.contains("value=\"3\""))
        #expect(shown.contains("value=\"us\" checked"))
        #expect(try station.store.aiUses(on: station.today) == 0, "a failure that is no answer spends nothing")
        try await fake.queue("openai", ["refusal"])
        _ = await station.post(
            "/shopping/plan",
            [("csrf", browser.csrf), ("plan_name", "risotto"), ("plan_portions", "3"), ("plan_times", "2")],
            cookie: browser.cookie)
        #expect(
            await eventually {
                await station.get("/shopping/plan", cookie: browser.cookie).text.contains(
                    "No plan: The AI declined to plan this meal")
            })
        #expect(try station.store.aiUses(on: station.today) == 1, "a refusal is an answer: it counts")
        #expect(try station.store.plannedMeals().isEmpty)
    }
}
