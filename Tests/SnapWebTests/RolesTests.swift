import Foundation
import SnapCore
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

/// The owner and the household (the audit of 2026-12-01: "no roles"): the first browser paired is the
/// owner's, later ones and invited phones a household member's; every owner route refuses a member's in
/// words, and lets the owner's through.
@Suite("The owner's page: the owner's browser and the household members'")
struct RolesTests {
    /// `pattern` made a path: each `:name` and `*` a value.
    private func path(_ pattern: String) -> String {
        "/"
            + pattern.split(separator: "/").map { $0.first == ":" || $0 == "*" ? "x" : String($0) }.joined(
                separator: "/")
    }

    @Test("should make the first paired browser the owner's, the next and an invited phone a member's")
    func firstIsTheOwner() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair(name: "Owner phone")
        let member = try await station.pair(name: "Lena's phone")
        let roles = Dictionary(uniqueKeysWithValues: try station.store.sessions().map { ($0.name, $0.role) })
        #expect(roles == ["Owner phone": .owner, "Lena's phone": .member])
        let invited = await station.post("/status/invite", [("csrf", owner.csrf)], cookie: owner.cookie)
        let code = try #require(invited.text.firstMatch(of: /class="invite-code">(\d{4}) (\d{4})</))
        #expect(invited.text.contains("paired as a household member"), "\(invited.text)")
        let paired = await station.post("/pair", [("code", "\(code.1)\(code.2)"), ("name", "Grandma's phone")])
        #expect(paired.status == 303 && paired.header("Location") == "/", "a member goes to Today")
        #expect(try station.store.sessions().first { $0.name == "Grandma's phone" }?.role == .member)
        let refused = await station.post("/status/invite", [("csrf", member.csrf)], cookie: member.cookie)
        #expect(refused.status == 403, "a member pairs no one")
        let status = await station.get("/status", cookie: member.cookie).text
        #expect(!status.contains("action=\"/status/forget\""), "a member forgets no one")
        #expect(status.contains("household member"))
    }

    @Test("should refuse a member's phone on every owner route, in words, and let the owner's through")
    func everyOwnerRoute() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair(name: "Owner phone")
        let member = try await station.pair(name: "Lena's phone")
        let routes = station.app.router.all.filter { $0.access == .owner }
        let paths = Set(routes.map { path($0.pattern) })
        for expected in [
            "/keys", "/settings", "/backup", "/backup/download", "/backup/restore", "/reset", "/update", "/people",
            "/welcome", "/status/forget", "/status/role", "/status/invite", "/group/join",
        ] {
            #expect(paths.contains(expected), "\(expected) is the owner's")
        }
        for route in routes {
            let target = path(route.pattern)
            let reply =
                route.post
                ? await station.post(target, [("csrf", member.csrf)], cookie: member.cookie)
                : await station.get(target, cookie: member.cookie)
            #expect(reply.status == 403, "\(route.post ? "POST" : "GET") \(target): \(reply.status)")
            #expect(
                reply.text.contains("This is for the station") && reply.text.contains("owner can make it"),
                "\(target): in words")
        }
        for route in routes where !["status/forget", "signout"].contains(route.pattern) {
            let target = path(route.pattern)
            let reply =
                route.post
                ? await station.post(target, [("csrf", owner.csrf)], cookie: owner.cookie)
                : await station.get(target, cookie: owner.cookie)
            // Through the gate (the page may still refuse a form of nothing, or a group the config names).
            #expect(
                reply.status != 401 && !reply.text.contains("owner can make it"),
                "the owner's \(target): \(reply.status)")
        }
        for household in ["/", "/history", "/log", "/shopping", "/status", "/group"] {
            #expect(
                await station.get(household, cookie: member.cookie).status == 200, "\(household) is the household's")
        }
    }

    @Test("should let the owner make a member an owner, and keep the owner's own browser the owner's")
    func changeRoles() async throws {
        let station = try WebTestStation()
        let owner = try await station.pair(name: "Owner phone")
        let member = try await station.pair(name: "Lena's phone")
        #expect(await station.get("/settings", cookie: member.cookie).status == 403)
        let memberHash = try #require(try station.store.sessions().first { $0.name == "Lena's phone" }?.tokenHash)
        let ownHash = try #require(try station.store.sessions().first { $0.name == "Owner phone" }?.tokenHash)
        let selfDemoted = await station.post(
            "/status/role", [("csrf", owner.csrf), ("session", ownHash), ("role", "member")], cookie: owner.cookie)
        #expect(selfDemoted.status == 400, "the station keeps an owner")
        let made = await station.post(
            "/status/role", [("csrf", owner.csrf), ("session", memberHash), ("role", "owner")], cookie: owner.cookie)
        #expect(made.status == 303)
        #expect(await station.get("/settings", cookie: member.cookie).status == 200, "an owner now")
    }
}
