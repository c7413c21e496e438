import Foundation
import SnapConfig
import SnapCore
import SnapImaging
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

@Suite("The owner's page: pairing, sessions and the gate")
struct WebGateTests {
    /// Every route of the page, as GET or POST.
    static let routes: [(WebRequest.Method, String)] = [
        (.get, "/"), (.get, "/day/2026-11-23"), (.get, "/history"), (.get, "/meal/m1"), (.post, "/meal/m1"),
        (.get, "/meal/m1/delete"), (.post, "/meal/m1/delete"), (.get, "/review"), (.post, "/review"),
        (.get, "/shopping"), (.post, "/shopping"), (.post, "/shopping/add"), (.post, "/shopping/clear"),
        (.get, "/shopping.txt"), (.get, "/settings"), (.post, "/settings"), (.get, "/settings/preview.jpg"),
        (.get, "/group"), (.get, "/status"), (.post, "/status/forget"), (.post, "/signout"),
        (.get, "/photo/m1.jpg"), (.get, "/photo/m1.thumb.jpg"), (.get, "/received/x.jpg"), (.get, "/nowhere"),
    ]

    @Test("should answer every route without a session with the pairing page, and touch nothing")
    func everyRouteNeedsASession() async throws {
        let station = try WebTestStation()
        try station.meal("m1")
        for (method, path) in Self.routes {
            let reply =
                method == .get
                ? await station.get(path)
                : await station.post(path, [("title", "x"), ("version", "1"), ("items", "0")])
            #expect(reply.status == 401, "\(method) \(path)")
            #expect(reply.text.contains("<h1>Pair this browser</h1>"), "\(method) \(path)")
            #expect(!reply.text.contains("Spaghetti"), "\(method) \(path)")
            #expect(!reply.text.contains("/photo/"), "\(method) \(path)")
        }
        #expect(try station.store.storedMeal(PhotoID("m1"))?.version == 1)
        #expect(station.link.events.isEmpty)
        // A made-up or old cookie is no session either.
        #expect(await station.get("/", cookie: "snapstation_session=forged").status == 401)
        #expect(await station.get("/static/style.css").status == 200)
        #expect(await station.get("/static/page.js").header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(await station.get("/static/../snapstation.sqlite").status == 404)
    }

    @Test("should pair with the station's code once: a session stored hashed, a strict HttpOnly cookie")
    func pairs() async throws {
        let station = try WebTestStation()
        let pairing = station.desk.open(now: station.now)
        #expect(pairing.code.count == PairingDesk.digits && pairing.code.allSatisfy(\.isNumber))
        let reply = await station.post("/pair", [("code", "\(pairing.code.prefix(4)) \(pairing.code.suffix(4))")])
        #expect(reply.status == 303)
        let cookie = try #require(reply.header("Set-Cookie"))
        #expect(cookie.hasPrefix("snapstation_session="))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"))
        let token = String(cookie.split(separator: ";")[0].dropFirst("snapstation_session=".count))
        #expect(token.count >= 43)
        let sessions = try station.store.sessions()
        #expect(sessions.count == 1)
        #expect(sessions[0].tokenHash == Secrets.sha256(token))
        #expect(sessions[0].tokenHash != token)
        #expect(station.link.events == [.paired("A browser")])
        #expect(await station.get("/", cookie: "snapstation_session=\(token)").status == 200)
        // Once only.
        let again = await station.post("/pair", [("code", pairing.code)])
        #expect(again.status == 401)
        #expect(again.text.contains("That is not the code the station shows"))
    }

    @Test("should mark the cookie Secure when the page is served over TLS")
    func secureCookie() async throws {
        let station = try WebTestStation(secure: true)
        let pairing = station.desk.open(now: station.now)
        #expect(
            await station.post("/pair", [("code", pairing.code)]).header("Set-Cookie")?.contains("; Secure") == true)
    }

    @Test("should let the owner pair while another client floods wrong codes, and brake only that client")
    func floodingClient() async throws {
        let station = try WebTestStation()
        let pairing = station.desk.open(now: station.now)
        let wrong = pairing.code == "00000000" ? "00000001" : "00000000"
        let first = await station.post("/pair", [("code", wrong), ("name", "Ana's phone")], client: "192.168.1.66")
        #expect(first.status == 401 && first.text.contains("not the code"))
        #expect(first.text.contains("aria-invalid=\"true\" aria-describedby=\"pair-problem\""), "the code's field")
        #expect(first.text.contains("value=\"Ana&#39;s phone\""), "the browser's name as typed stays")
        for _ in 0..<4 { _ = await station.post("/pair", [("code", wrong)], client: "192.168.1.66") }
        let braked = await station.post("/pair", [("code", pairing.code)], client: "192.168.1.66")
        #expect(braked.status == 429 && Int(braked.header("Retry-After") ?? "") ?? 0 > 0, "the flooder waits")
        // An IPv6 client is counted by its /64: a new address in the same network is the same client.
        for host in 1...5 { _ = await station.post("/pair", [("code", wrong)], client: "2001:db8:0:7::\(host)") }
        #expect(await station.post("/pair", [("code", wrong)], client: "2001:db8:0:7::99").status == 429)
        #expect(await station.post("/pair", [("code", wrong)], client: "2001:db8:0:8::1").status == 401)
        #expect(try station.store.sessions().isEmpty)
        let owner = await station.post("/pair", [("code", pairing.code)], client: "192.168.1.20")
        #expect(owner.status == 303, "the owner's right code is never refused for what others typed")
    }

    @Test("should answer a wrong code, no code and an expired one in the same words")
    func noCodeIsNotTold() async throws {
        let station = try WebTestStation()
        let none = await station.post("/pair", [("code", "12345678")])
        let pairing = station.desk.open(now: station.now)
        let wrong = pairing.code == "00000000" ? "00000001" : "00000000"
        let mistyped = await station.post("/pair", [("code", wrong)], client: "192.168.1.21")
        station.advance(PairingDesk.validity + 1)
        let expired = await station.post("/pair", [("code", pairing.code)], client: "192.168.1.22")
        #expect(none.status == 401 && mistyped.status == 401 && expired.status == 401)
        #expect(none.text == mistyped.text && mistyped.text == expired.text)
        // Closed at the station (its pairing screen went away): the code no longer pairs.
        let closed = station.desk.open(now: station.now)
        station.desk.close()
        #expect(await station.post("/pair", [("code", closed.code)]).status == 401)
    }

    @Test("should let the owner pair while 100 addresses flood wrong codes, the code staying as the screen shows it")
    func manyFloodingClients() async throws {
        let station = try WebTestStation()
        let pairing = station.desk.open(now: station.now)
        let wrong = pairing.code == "00000000" ? "00000001" : "00000000"
        var heard = 0
        // Two rounds of every address at its minute's limit: the ceiling comes, then each is refused.
        for round in 0..<2 {
            for client in 0..<100 {
                for _ in 0..<PairingDesk.wrongPerMinute {
                    let reply = await station.post("/pair", [("code", wrong)], client: "10.0.\(round).\(client + 1)")
                    if reply.status == 401 { heard += 1 }
                }
            }
            station.advance(61)
        }
        #expect(heard == PairingDesk.wrongPerCode + 200 - 10, "the ceiling, then one try for each new address")
        #expect(!station.link.events.contains { if case .pairingOpened = $0 { true } else { false } })
        // A client that guessed wrong is not heard again, even with the right code, until the code ends.
        let refused = await station.post("/pair", [("code", pairing.code)], client: "10.0.1.7")
        #expect(refused.status == 429 && refused.text.contains("Too many wrong codes"))
        let owner = await station.post("/pair", [("code", pairing.code)], client: "192.168.1.20")
        #expect(owner.status == 303, "the code on the screen pairs the owner, who typed nothing wrong")
    }

    @Test("should keep the chance of a guess within a code's five minutes under 1 in a million with 20 addresses")
    func guessOdds() {
        let chance = PairingDesk.guessChance(addresses: 20)
        print(
            "pairing: \(PairingDesk.digits) digits, \(PairingDesk.wrongPerMinute) wrong a minute per client: "
                + "20 addresses guess a code within \(Int(PairingDesk.validity / 60)) minutes with a chance of 1 in \(Int((1 / chance).rounded()))"
        )
        let subnet = PairingDesk.guessChance(addresses: 254)
        print(
            "pairing: a whole /24 of 254 addresses guesses a code with a chance of 1 in \(Int((1 / subnet).rounded()))")
        #expect(chance < 1e-6 && subnet < 1e-5)
        #expect(PairingDesk.guessChance(addresses: 1) < chance)
    }

    @Test("should answer only at the station's own names and addresses, and take a form only from them")
    func onlyItsOwnNames() async throws {
        var config = StationConfig()
        config.station.name = "Kitchen station"
        config.web.names = ["kitchen.example.org"]
        let names = StationNames(
            config: config, hostName: "raspberrypi", interfaces: { ["127.0.0.1", "192.168.1.20", "fe80::1"] })
        for host in [
            "127.0.0.1:8080", "192.168.1.20", "[fe80::1]:8080", "localhost:8080", "raspberrypi.local:8080",
            "kitchen-station.local", "Kitchen.Example.org:443", "raspberrypi",
        ] {
            #expect(names.allows(host: host), "\(host)")
        }
        for host in ["evil.example:8080", "192.168.1.21", "[fe80::2]", "kitchen-station.local.evil.example", "", nil] {
            #expect(!names.allows(host: host), "\(host ?? "none")")
        }
        #expect(StationNames.localName("Küche 2 — Hall") == "k-che-2-hall.local")

        let station = try WebTestStation()
        let pairing = station.desk.open(now: station.now)
        // A page elsewhere, its name rebound to the station's address: the browser sends its own name.
        let rebound = await station.post(
            "/pair", [("code", pairing.code)],
            headers: ["Host": "evil.example:8080", "Origin": "http://evil.example:8080"])
        #expect(rebound.status == 421 && rebound.text.contains("only at its own names"))
        #expect(await station.get("/pair", headers: ["Host": "evil.example:8080"]).status == 421)
        #expect(try station.store.sessions().isEmpty)
        #expect(await station.post("/pair", [("code", pairing.code)]).status == 303, "the code was not spent")
    }

    @Test("should refuse a POST without the session's CSRF token, or from another site, and change nothing")
    func csrf() async throws {
        let station = try WebTestStation()
        try station.meal("m1")
        let browser = try await station.pair()
        let fields = [("title", "Changed"), ("version", "1"), ("items", "2")]
        let missing = await station.post("/meal/m1", fields, cookie: browser.cookie)
        #expect(missing.status == 403)
        #expect(missing.text.contains("out of date"))
        // One character changed, whatever the random token starts with (a token starting with "x" once
        // made this "wrong" token the right one).
        let changed = (browser.csrf.first == "x" ? "y" : "x") + browser.csrf.dropFirst()
        let wrong = await station.post("/meal/m1", fields + [("csrf", changed)], cookie: browser.cookie)
        #expect(wrong.status == 403)
        let other = try await station.pair(name: "Other")
        #expect(await station.post("/meal/m1", fields + [("csrf", other.csrf)], cookie: browser.cookie).status == 403)
        let foreign = await station.post(
            "/settings", [("csrf", browser.csrf), ("reset", "1")], cookie: browser.cookie,
            headers: ["Origin": "http://evil.example", "Host": "127.0.0.1:8080"])
        #expect(foreign.status == 403)
        let json = await station.post(
            "/settings", [("csrf", browser.csrf)], cookie: browser.cookie, headers: ["Content-Type": "application/json"]
        )
        #expect(json.status == 415)
        #expect(try station.store.storedMeal(PhotoID("m1"))?.meal.analysis.title == "Spaghetti")
        let sameSite = await station.post(
            "/settings", [("csrf", browser.csrf), ("reset", "1")], cookie: browser.cookie,
            headers: ["Origin": "http://127.0.0.1:8080", "Host": "127.0.0.1:8080"])
        #expect(sameSite.status == 303)
    }

    @Test("should send the security headers with every answer, and escape what the AI or a browser wrote")
    func headersAndEscaping() async throws {
        let station = try WebTestStation()
        try station.meal("m1", title: "<script>alert(1)</script> & \"fries\"")
        let browser = try await station.pair(name: "<img src=x onerror=alert(2)>")
        for reply in [
            await station.get("/"), await station.get("/", cookie: browser.cookie),
            await station.get("/meal/m1", cookie: browser.cookie),
        ] {
            #expect(reply.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
            #expect(reply.header("X-Frame-Options") == "DENY")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
        }
        let today = await station.get("/", cookie: browser.cookie).text
        #expect(!today.contains("<script>alert"))
        #expect(today.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;fries&quot;"))
        let status = await station.get("/status", cookie: browser.cookie).text
        #expect(!status.contains("<img src=x"))
        #expect(status.contains("&lt;img src=x onerror=alert(2)&gt;"))
    }

    @Test("should forget a browser from the status page, and sign one out")
    func forgets() async throws {
        let station = try WebTestStation()
        let phone = try await station.pair(name: "Phone")
        let laptop = try await station.pair(name: "Laptop")
        let status = await station.get("/status", cookie: phone.cookie).text
        #expect(status.contains("Phone") && status.contains("Laptop") && status.contains("(this browser)"))
        #expect(
            await station.post("/status/forget", [("csrf", phone.csrf), ("session", "others")], cookie: phone.cookie)
                .status
                == 303)
        #expect(await station.get("/", cookie: laptop.cookie).status == 401)
        #expect(await station.get("/", cookie: phone.cookie).status == 200)
        let out = await station.post("/signout", [("csrf", phone.csrf)], cookie: phone.cookie)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(await station.get("/", cookie: phone.cookie).status == 401)
        #expect(try station.store.sessions().isEmpty)
        // The station hears how many are left each time: with none, its ready screen says how to pair.
        let forgotten = station.link.events.compactMap { event -> Int? in
            if case .browsersForgotten(let left) = event { left } else { nil }
        }
        #expect(forgotten == [1, 0])
    }

    @Test("should forget a browser not seen for 30 days")
    func idleSessionsExpire() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        station.advance(WebApp.sessionIdle + 60)
        #expect(await station.get("/", cookie: browser.cookie).status == 401)
        #expect(try station.store.sessions().isEmpty)
    }

    @Test("should end a pairing after web.session_days however often it is used, and show it nothing of the station")
    func sessionsEndAfterTheirLifetime() async throws {
        let station = try WebTestStation()
        let browser = try await station.pair()
        #expect(try station.store.sessions().count == 1)
        let meal = try station.meal("m9", title: "Secret stew")
        station.link.show(
            .mealResult(MealResultScreen(photo: meal.photo, analysis: meal.analysis, clashes: [[]], autoSaveIn: 12)))
        // Used every 20 days: never idle, and over at 90 days all the same.
        for _ in 0..<4 {
            station.advance(20 * 86_400)
            #expect(await station.get("/", cookie: browser.cookie).status == 200)
        }
        station.advance(10 * 86_400 + 60)
        // An error page (here before the session is even looked at) shows an expired cookie neither the
        // navigation nor the meal on the station's screen.
        let refused = await station.post(
            "/shopping", [("csrf", browser.csrf)], cookie: browser.cookie,
            headers: ["Origin": "http://evil.example"])
        #expect(refused.status == 403 && !refused.text.contains("<nav>") && !refused.text.contains("Secret stew"))
        let gate = await station.get("/", cookie: browser.cookie)
        #expect(gate.status == 401 && gate.text.contains("Pair this browser"))
        #expect(try station.store.sessions().isEmpty)
        let again = try await station.pair()
        #expect(again.csrf != browser.csrf, "a new pairing, a new CSRF token")
    }

    @Test("should end a pairing after web.session_days however often it is used, its cookie saying so")
    func configuredLifetime() async throws {
        let station = try WebTestStation(configure: { $0.web.sessionDays = 14 })
        let pairing = station.desk.open(now: station.now)
        let paired = await station.post("/pair", [("code", pairing.code)])
        let cookie = try #require(paired.header("Set-Cookie"))
        #expect(cookie.contains("Max-Age=\(14 * 86_400)"), "\(cookie)")
        let token = try #require(cookie.split(separator: ";").first.map(String.init))
        for _ in 0..<2 {
            station.advance(6 * 86_400)
            #expect(await station.get("/", cookie: token).status == 200)
        }
        station.advance(2 * 86_400 + 60)
        #expect(await station.get("/", cookie: token).status == 401, "over after 14 days, used every 6")
    }
}
