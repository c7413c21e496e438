import Foundation
import SnapCore
import SnapStore
import Testing

@testable import SnapWeb

@Suite("The owner's page: the people who share the station")
struct PeoplePageTests {
    @Test("should add a person with their goals, tell the station, and refuse a name that is not one")
    func addPerson() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let before = await station.get("/people", cookie: browser.cookie).text
        #expect(before.contains("Person 1") && before.contains("Add a person"), "\(before)")
        let added = await station.post(
            "/people",
            [
                ("csrf", browser.csrf), ("name", "  Ben "), ("colour", "teal"), ("goal_kcal", "2500"),
                ("goal_protein", "140"), ("goal_carbs", ""), ("goal_fats", "80"), ("ai_share", "3"),
            ], cookie: browser.cookie)
        #expect(added.status == 303 && added.header("Location") == "/people?saved=1", "\(added.text)")
        let household = try station.store.household()
        let ben = try #require(household.people.last)
        #expect(household.people.count == 2 && ben.name == "Ben" && ben.colour == .teal && ben.aiShare == 3)
        #expect(ben.goals == Macros(calories: 2_500, protein: 140, carbs: 0, fats: 80))
        #expect(station.link.events.contains(.householdChanged(household)), "the station names them at once")
        let page = await station.get("/people?saved=1", cookie: browser.cookie).text
        #expect(page.contains("class=\"swatch person-teal\"") && page.contains("value=\"Ben\""), "\(page)")

        for bad in ["\n\t", String(repeating: "x", count: 25)] {
            let refused = await station.post(
                "/people", [("csrf", browser.csrf), ("name", bad), ("colour", "red")], cookie: browser.cookie)
            #expect(refused.status == 400 && refused.text.contains("Type a name of 1 to 24 characters."))
        }
        let colour = await station.post(
            "/people", [("csrf", browser.csrf), ("name", "Cleo"), ("colour", "#ff0000")], cookie: browser.cookie)
        #expect(colour.status == 400 && colour.text.contains("Choose one of the colours."))
        #expect(try station.store.household().people.count == 2, "nothing added by a refused form")
    }

    @Test("should show each person's Today against their goals, and export exactly their meals")
    func perPerson() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let ben = try station.store.addPerson(
            name: "=Ben", colour: .blue, goals: Macros(calories: 2_500, protein: 0, carbs: 0, fats: 0), aiShare: nil
        ).get()
        _ = try station.meal("soup", title: "Soup")
        var bread = try station.meal("bread", title: "Bread")
        bread.person = ben
        try station.store.saveMeal(bread)

        let everyone = await station.get("/", cookie: browser.cookie).text
        #expect(everyone.contains("<b>Soup</b>") && everyone.contains("<b>Bread</b>"))
        #expect(everyone.contains("class=\"swatch person-blue\" title=\"=Ben\""), "each row says whose")
        #expect(!everyone.contains("<meter"), "the household's day has no goals of its own")
        let bens = await station.get("/?person=\(ben.rawValue)", cookie: browser.cookie).text
        #expect(bens.contains("<b>Bread</b>") && !bens.contains("<b>Soup</b>"), "\(bens)")
        #expect(bens.contains("max=\"2500\""), "Ben's own kcal goal")
        #expect(bens.contains("aria-current=\"page\"><span class=\"swatch person-blue\"></span> =Ben</a>"))
        let owners = await station.get("/?person=1", cookie: browser.cookie).text
        #expect(owners.contains("<b>Soup</b>") && !owners.contains("<b>Bread</b>"))

        let csv = await station.get("/export/meals.csv?person=\(ben.rawValue)", cookie: browser.cookie).text
        let lines = csv.split(whereSeparator: \.isNewline)
        #expect(lines.count == 2 && lines[0].hasSuffix("person") && lines[1].contains("Bread"), "\(csv)")
        #expect(lines[1].hasSuffix("'=Ben"), "a name that starts a formula is written as text: \(csv)")
        let all = await station.get("/export/meals.json", cookie: browser.cookie).text
        #expect(all.contains("\"person\" : \"Person 1\"") && all.contains("\"person\" : \"=Ben\""), "\(all)")
        let history = await station.get("/history?person=\(ben.rawValue)", cookie: browser.cookie).text
        #expect(history.contains("<option value=\"\(ben.rawValue)\" selected>=Ben</option>"), "the export preset")
    }

    @Test("should give a meal to another person at its version, and say so when someone changed it first")
    func moveMeal() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let soup = try station.meal("soup", title: "Soup")
        let alone = await station.get("/meal/soup", cookie: browser.cookie).text
        #expect(!alone.contains("name=\"person\""), "one person: nobody to give it to")
        let ben = try station.store.addPerson(name: "Ben", colour: .blue, goals: nil, aiShare: nil).get()
        let page = await station.get("/meal/soup", cookie: browser.cookie).text
        #expect(page.contains("<option value=\"\(ben.rawValue)\">Ben</option>"), "\(page)")
        let version = try #require(try station.store.storedMeal(soup.photo.id)).version
        let moved = await station.post(
            "/meal/soup/person", [("csrf", browser.csrf), ("version", "\(version)"), ("person", "\(ben.rawValue)")],
            cookie: browser.cookie)
        #expect(moved.status == 303, "\(moved.text)")
        #expect(try station.store.storedMeal(soup.photo.id)?.meal.person == ben)
        #expect(station.link.events.contains { if case .mealsChanged = $0 { true } else { false } })
        let stale = await station.post(
            "/meal/soup/person", [("csrf", browser.csrf), ("version", "\(version)"), ("person", "1")],
            cookie: browser.cookie)
        #expect(stale.status == 409, "\(stale.text)")
        let nobody = await station.post(
            "/meal/soup/person", [("csrf", browser.csrf), ("version", "\(version + 1)"), ("person", "77")],
            cookie: browser.cookie)
        #expect(nobody.status == 400 && nobody.text.contains("no longer here"))
        #expect(try station.store.storedMeal(soup.photo.id)?.meal.person == ben)
    }

    @Test("should remove a person after asking, their meals then the owner's; the owner has no remove")
    func remove() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        let ben = try station.store.addPerson(name: "Ben", colour: .blue, goals: nil, aiShare: nil).get()
        var meal = try station.meal("bread", title: "Bread")
        meal.person = ben
        try station.store.saveMeal(meal)
        let page = await station.get("/people", cookie: browser.cookie).text
        #expect(page.contains("href=\"/people/\(ben.rawValue)/remove\"") && !page.contains("href=\"/people/1/remove\""))
        let asked = await station.get("/people/\(ben.rawValue)/remove", cookie: browser.cookie).text
        #expect(asked.contains("Remove Ben?") && asked.contains("Person 1"), "\(asked)")
        let removed = await station.post(
            "/people/\(ben.rawValue)/remove", [("csrf", browser.csrf)], cookie: browser.cookie)
        #expect(removed.status == 303)
        #expect(try station.store.household() == .alone)
        #expect(try station.store.storedMeal(meal.photo.id)?.meal.person == .first)
        let again = await station.post(
            "/people/\(ben.rawValue)/remove", [("csrf", browser.csrf)], cookie: browser.cookie)
        #expect(again.status == 404)
        let owner = await station.post("/people/1/remove", [("csrf", browser.csrf)], cookie: browser.cookie)
        #expect(owner.status == 404 || owner.status == 400, "the owner stays: \(owner.status)")
        #expect(try station.store.household().people.count == 1)
    }
}
