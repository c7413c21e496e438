import Foundation
import SnapCore
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

/// A household member's phone logs and changes its own person's meals (issue 49: "Members log meals for
/// themselves and see the household's pages"): the person the owner named when inviting it, or the one
/// it says once; another person's meal is seen, not changed; whose a phone is, is the owner's to change.
@Suite("The owner's page: a household member's phone logs its own person's meals")
struct HouseholdMembersTests {
    private func quickAdd(_ title: String, person: String, _ browser: WebTestStation.Browser) -> [(String, String)] {
        [
            ("csrf", browser.csrf), ("person", person), ("quick", "1"), ("items", "0"), ("own_totals", "1"),
            ("title", title), ("total_kcal", "95"), ("total_protein", "0"), ("total_carbs", "25"), ("total_fats", "0"),
        ]
    }

    /// A phone the owner invited from the Status page, for `person` ("" for one that says it itself).
    private func invited(_ station: WebTestStation, by owner: WebTestStation.Browser, person: String, name: String)
        async throws -> WebTestStation.Browser
    {
        let invite = await station.post(
            "/status/invite", [("csrf", owner.csrf), ("person", person)], cookie: owner.cookie)
        let code = try #require(invite.text.firstMatch(of: /class="invite-code">(\d{4}) (\d{4})</))
        return try station.browser(from: await station.post("/pair", [("code", "\(code.1)\(code.2)"), ("name", name)]))
    }

    @Test("should log an invited phone's meals for the person the owner named, whatever its form says")
    func invitedForAPerson() async throws {
        let station = try WebTestStation()
        let lena = try station.store.addPerson(name: "Lena", colour: .teal, goals: nil, aiShare: nil).get()
        let owner = try await station.pair(name: "Owner phone")
        let status = await station.get("/status", cookie: owner.cookie).text
        #expect(status.contains("<option value=\"\(lena.rawValue)\">Lena</option>"), "the invite names whose phone")
        let phone = try await invited(station, by: owner, person: "\(lena.rawValue)", name: "Lena's phone")
        #expect(try station.store.sessions().first { $0.name == "Lena's phone" }?.person == lena)

        let log = await station.get("/log?person=1", cookie: phone.cookie).text
        #expect(!log.contains("class=\"people\""), "no choice of person on a member's phone")
        #expect(log.contains("name=\"person\" value=\"\(lena.rawValue)\""), "\(log)")
        let saved = await station.post("/log/quick", quickAdd("Apple", person: "1", phone), cookie: phone.cookie)
        #expect(saved.status == 303 && saved.header("location") == "/?saved=logged&person=\(lena.rawValue)")
        #expect(try station.store.meals(on: station.today).map(\.person) == [lena], "Lena's, not the owner's")
        #expect(
            await station.get("/status", cookie: owner.cookie).text.contains("logs Lena"), "said on the Status page")
    }

    @Test("should let a member change its own person's meals and see, not change, another's")
    func ownMealsOnly() async throws {
        let station = try WebTestStation()
        let lena = try station.store.addPerson(name: "Lena", colour: .teal, goals: nil, aiShare: nil).get()
        let owner = try await station.pair(name: "Owner phone")
        let phone = try await invited(station, by: owner, person: "\(lena.rawValue)", name: "Lena's phone")
        let ownersMeal = try station.meal("m-owner", title: "Porridge")
        let lenasMeal = try station.meal("m-lena", title: "Salad", person: lena)

        let seen = await station.get("/meal/m-owner", cookie: phone.cookie)
        #expect(seen.status == 200 && seen.text.contains("Porridge"), "the household's meals are seen")
        #expect(!seen.text.contains("action=\"/meal/m-owner\"") && !seen.text.contains("/meal/m-owner/delete"))
        #expect(!seen.text.contains("action=\"/meal/m-owner/person\""))
        let version = try #require(try station.store.storedMeal(ownersMeal.photo.id)).version
        for (path, fields) in [
            ("/meal/m-owner", mealForm(ownersMeal.analysis, version: version, csrf: phone.csrf, ["title": "Mine now"])),
            ("/meal/m-owner/delete", [("csrf", phone.csrf)]),
            ("/meal/m-owner/again", [("csrf", phone.csrf)]),
            ("/meal/m-owner/correct", [("csrf", phone.csrf), ("sentence", "it was two")]),
        ] {
            let refused = await station.post(path, fields, cookie: phone.cookie)
            #expect(refused.status == 403 && refused.text.contains("own person"), "\(path): \(refused.status)")
        }
        #expect(try station.store.storedMeal(ownersMeal.photo.id)?.meal.analysis.title == "Porridge", "unchanged")
        let moved = await station.post(
            "/meal/m-lena/person", [("csrf", phone.csrf), ("version", "1"), ("person", "1")], cookie: phone.cookie)
        #expect(moved.status == 403, "giving a meal to another person is the owner's")

        let own = await station.get("/meal/m-lena", cookie: phone.cookie).text
        #expect(own.contains("action=\"/meal/m-lena\"") && own.contains("/meal/m-lena/delete"), "its own: changed")
        let lenaVersion = try #require(try station.store.storedMeal(lenasMeal.photo.id)).version
        let edited = await station.post(
            "/meal/m-lena",
            mealForm(lenasMeal.analysis, version: lenaVersion, csrf: phone.csrf, ["title": "Big salad"]),
            cookie: phone.cookie)
        #expect(edited.status == 303, "\(edited.status) \(edited.text)")
        #expect(try station.store.storedMeal(lenasMeal.photo.id)?.meal.analysis.title == "Big salad")
        let again = await station.post("/meal/m-lena/again", [("csrf", phone.csrf)], cookie: phone.cookie)
        #expect(again.status == 303)
        #expect(
            try station.store.meals(on: station.today).filter { $0.analysis.title == "Big salad" }.map(\.person)
                == [lena, lena], "eaten again by the same person")
        #expect(
            await station.post("/meal/m-owner/again", [("csrf", owner.csrf)], cookie: owner.cookie).status == 303,
            "the owner changes anyone's")
    }

    @Test("should ask a phone paired at the station whose it is once, and leave changing it to the owner")
    func saysWhoOnce() async throws {
        let station = try WebTestStation()
        let lena = try station.store.addPerson(name: "Lena", colour: .teal, goals: nil, aiShare: nil).get()
        let ben = try station.store.addPerson(name: "Ben", colour: .blue, goals: nil, aiShare: nil).get()
        let owner = try await station.pair(name: "Owner phone")
        let phone = try await station.pair(name: "A phone")
        let asked = await station.get("/log", cookie: phone.cookie).text
        #expect(asked.contains("Whose phone is this?") && asked.contains("action=\"/log/me\""), "\(asked)")
        let early = await station.post("/log/quick", quickAdd("Apple", person: "1", phone), cookie: phone.cookie)
        #expect(early.status == 403 && early.text.contains("whose phone this is first"))
        #expect(try station.store.meals(on: station.today).isEmpty)

        let said = await station.post(
            "/log/me", [("csrf", phone.csrf), ("person", "\(ben.rawValue)")], cookie: phone.cookie)
        #expect(said.status == 303 && said.header("location") == "/log")
        let again = await station.post(
            "/log/me", [("csrf", phone.csrf), ("person", "\(lena.rawValue)")], cookie: phone.cookie)
        #expect(again.status == 403 && again.text.contains("owner can change"), "said once")
        #expect(try station.store.sessions().first { $0.name == "A phone" }?.person == ben)

        let hash = try #require(try station.store.sessions().first { $0.name == "A phone" }?.tokenHash)
        let byMember = await station.post(
            "/status/person", [("csrf", phone.csrf), ("session", hash), ("person", "\(lena.rawValue)")],
            cookie: phone.cookie)
        #expect(byMember.status == 403)
        let byOwner = await station.post(
            "/status/person", [("csrf", owner.csrf), ("session", hash), ("person", "\(lena.rawValue)")],
            cookie: owner.cookie)
        #expect(byOwner.status == 303)
        let logged = await station.post(
            "/log/quick", quickAdd("Pear", person: "\(ben.rawValue)", phone), cookie: phone.cookie)
        #expect(logged.status == 303)
        #expect(try station.store.meals(on: station.today).map(\.person) == [lena])
        let nobody = await station.post(
            "/status/person", [("csrf", owner.csrf), ("session", hash), ("person", "99")], cookie: owner.cookie)
        #expect(nobody.status == 400, "a person not in the household")
    }

    @Test("should leave the owner's links and forms out of a member's pages")
    func membersPages() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair(name: "Owner phone")
        let phone = try await station.pair(name: "A phone")
        #expect(await station.get("/", cookie: owner.cookie).text.contains("href=\"/settings\""))
        for path in ["/", "/history", "/status"] {
            let page = await station.get(path, cookie: phone.cookie).text
            #expect(!page.contains("href=\"/settings\""), "\(path): no Settings link on a member's phone")
        }
        // A household of one: its person's meals, with no question.
        let log = await station.get("/log", cookie: phone.cookie).text
        #expect(!log.contains("Whose phone is this?") && log.contains("action=\"/log/quick\""))
        let logged = await station.post("/log/quick", quickAdd("Apple", person: "", phone), cookie: phone.cookie)
        #expect(logged.status == 303 && logged.header("location") == "/?saved=logged&person=1")
    }
}
