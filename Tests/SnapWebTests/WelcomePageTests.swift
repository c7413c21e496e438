import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapWeb

/// An AI service that answers as the owner's address says: 401 with OpenAI's words at one, works at another.
private final class TrierStandIn: AIServiceTrier {
    let asked = Mutex<[AIService?]>([])

    func tryService(_ service: AIService?) async -> AIServiceTrial {
        asked.withLock { $0.append(service) }
        switch service?.baseURL {
        case "http://192.168.1.30:8080/v1"?:
            return .refused(
                status: 401, words: "Incorrect API key provided: sk-wrong. You can find your API key at <b>")
        case "http://192.168.1.20:8080/v1"?: return .works(model: service?.model ?? "", offered: true, others: [])
        default: return .failed(.offline)
        }
    }
}

@Suite("The owner's page: the first visit's walk-through, each step saved as sent and each one skippable")
struct WelcomePageTests {
    /// A station whose AI key file does not exist, so that only a key entered counts.
    private func station(trier: (any AIServiceTrier)? = nil) throws -> WebTestStation {
        try WebTestStation(trier: trier) { config in
            config.ai.keySource = .file(config.storage.dir + "/installer/ai")
        }
    }

    @Test("should send the first phone of a new station through the walk-through, and the phones after it to Today")
    func firstPhoneOnly() async throws {
        let station = try station()
        let pairing = station.desk.open(now: station.now)
        let first = await station.post("/pair", [("code", pairing.code), ("name", "Ana's phone")])
        #expect(first.status == 303 && first.header("Location") == "/welcome")
        let owner = try station.browser(from: first)
        let page = await station.get("/welcome", cookie: owner.cookie)
        #expect(page.status == 200 && page.text.contains("Step 1 of 4") && page.text.contains("name=\"time_zone\""))
        #expect(page.text.contains("<option value=\"Asia/Tokyo\">Asia/Tokyo</option>"), "the zones the station knows")
        #expect(page.text.contains("data-phone-zone=\"time_zone-phone\""), "the phone's zone offered by the script")
        #expect(page.text.contains("name=\"language\"") && page.text.contains("href=\"/backup\""))
        #expect(await station.get("/welcome/nothing", cookie: owner.cookie).status == 404)

        let skipped = await station.post("/welcome/done", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(skipped.status == 303 && skipped.header("Location") == "/", "nothing taken at start changed")
        #expect(try station.store.isMarked(.welcomed))
        #expect(!station.link.events.contains(.startChanged))
        let later = station.desk.open(now: station.now)
        let second = await station.post("/pair", [("code", later.code), ("name", "Ben's phone")])
        #expect(second.status == 303 && second.header("Location") == "/")
    }

    @Test("should save each step's own settings and leave the others, and restart once at the end for a new zone")
    func stepsSaveTheirOwn() async throws {
        let station = try station()
        let owner = try await station.pair()
        station.link.station(.settingsChanged(.form(RuntimeSettings(countdownSeconds: 7), mode: nil)))

        let language = await station.post(
            "/welcome/language", [("csrf", owner.csrf), ("language", "de"), ("time_zone", "Europe/Berlin")],
            cookie: owner.cookie)
        #expect(language.status == 303 && language.header("Location") == "/welcome/household")
        var now = station.link.status()
        #expect(now.owner.language == .de && now.owner.timeZone == "Europe/Berlin" && now.owner.countdownSeconds == 7)
        #expect(!station.link.handled.withLock { $0 }.contains(.restartForChanges), "not between the steps")
        let german = await station.get("/welcome/household", cookie: owner.cookie)
        #expect(german.text.contains("Schritt 2 von 4") && german.text.contains("Ihr Haushalt"), "the language at once")

        let wrong = await station.post(
            "/welcome/household",
            [
                ("csrf", owner.csrf), ("dietary_shown", "1"), ("goal_kcal", "lots"), ("goal_protein", "90"),
                ("goal_carbs", "200"), ("goal_fats", "60"),
            ], cookie: owner.cookie)
        #expect(wrong.status == 400 && wrong.text.contains("aria-invalid=\"true\"") && wrong.text.contains("lots"))
        #expect(station.link.status().owner.goals == nil, "nothing of a failed step kept")
        let household = await station.post(
            "/welcome/household",
            [
                ("csrf", owner.csrf), ("dietary_shown", "1"), ("dietary", "vegetarian"), ("goal_kcal", "1800"),
                ("goal_protein", "90"), ("goal_carbs", "200"), ("goal_fats", "60"),
            ], cookie: owner.cookie)
        #expect(household.status == 303 && household.header("Location") == "/welcome/ai")
        now = station.link.status()
        #expect(now.owner.goals == Macros(calories: 1800, protein: 90, carbs: 200, fats: 60))
        #expect(now.owner.dietaryPreferences == [.vegetarian] && now.owner.timeZone == "Europe/Berlin")

        let group = await station.get("/welcome/group", cookie: owner.cookie)
        #expect(group.text.contains("/welcome/done") && group.text.contains("Schritt 4 von 4"))
        let done = await station.post("/welcome/done", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(done.status == 200 && done.text.contains("content=\"10;url=/\""), "Today once the station is back")
        #expect(station.link.events.filter { $0 == .startChanged }.count == 1, "one restart for the new zone")
        #expect(try station.store.isMarked(.welcomed))
    }

    @Test("should try the AI service entered at once: its own words at 401, that it works, a key kept and never shown")
    func aiServiceTried() async throws {
        let trier = TrierStandIn()
        let station = try station(trier: trier)
        let owner = try await station.pair()
        let ai = await station.get("/welcome/ai", cookie: owner.cookie)
        #expect(ai.text.contains("value=\"https://api.openai.com/v1\"") && ai.text.contains("name=\"ai_key\""))

        let refused = await station.post(
            "/welcome/ai",
            [
                ("csrf", owner.csrf), ("ai_base_url", "http://192.168.1.30:8080/v1/"), ("ai_model", "llava"),
                ("ai_key", ""),
            ], cookie: owner.cookie)
        #expect(refused.status == 200 && refused.text.contains("(HTTP 401)"))
        #expect(refused.text.contains("Incorrect API key provided: sk-wrong. You can find your API key at &lt;b&gt;"))
        #expect(
            station.link.status().owner.aiService
                == AIService(baseURL: "http://192.168.1.30:8080/v1", model: "llava"), "kept without its last slash")

        let key = "sk-local-Secret-7q2w"
        let works = await station.post(
            "/welcome/ai",
            [
                ("csrf", owner.csrf), ("ai_base_url", "http://192.168.1.20:8080/v1"), ("ai_model", "qwen2.5-vl"),
                ("ai_key", key),
            ], cookie: owner.cookie)
        #expect(works.status == 200 && works.text.contains("offers qwen2.5-vl: it works"))
        #expect(works.text.contains("ends in 7q2w") && !works.text.contains("Secret"), "the key never shown again")
        #expect(station.config.enteredKeys.key(.ai) == key)
        #expect(
            trier.asked.withLock { $0 } == [
                AIService(baseURL: "http://192.168.1.30:8080/v1", model: "llava"),
                AIService(baseURL: "http://192.168.1.20:8080/v1", model: "qwen2.5-vl"),
            ], "the service entered is the one tried")
        #expect(!station.link.events.contains(.startChanged), "the walk-through goes on first")

        for (address, problem) in [
            ("http://example.com/v1", "Plain http reaches only a server on your network"),
            ("kitchen", "is not a web address"),
        ] {
            let wrong = await station.post(
                "/welcome/ai", [("csrf", owner.csrf), ("ai_base_url", address), ("ai_model", "llava")],
                cookie: owner.cookie)
            #expect(wrong.status == 400 && wrong.text.contains(problem) && wrong.text.contains("aria-invalid"))
        }
        let spaced = await station.post(
            "/welcome/ai",
            [
                ("csrf", owner.csrf), ("ai_base_url", "http://192.168.1.20:8080/v1"), ("ai_model", "two words"),
                ("ai_key", "with space"),
            ], cookie: owner.cookie)
        #expect(
            spaced.status == 400 && spaced.text.contains("without spaces") && spaced.text.contains("512 characters"))
        #expect(trier.asked.withLock { $0.count } == 2, "nothing tried for a refused form")
        #expect(station.link.status().owner.aiService?.model == "qwen2.5-vl")

        let done = await station.post("/welcome/done", [("csrf", owner.csrf)], cookie: owner.cookie)
        #expect(done.status == 200 && station.link.events.filter { $0 == .startChanged }.count == 1)
    }

    @Test("should keep the time zone and AI service from Settings too, and say that the station restarts for them")
    func settingsPage() async throws {
        let station = try station()
        let owner = try await station.pair()
        let page = await station.get("/settings", cookie: owner.cookie)
        #expect(page.text.contains("name=\"ai_base_url\"") && page.text.contains("name=\"time_zone\""))
        #expect(!page.text.contains("href=\"/welcome\""), "the walk-through's steps are these pages once it ended")
        #expect(page.text.contains("<option value=\"UTC\" selected>"), "the zone in force, though the list lacks it")
        let saved = await station.post(
            "/settings", [("csrf", owner.csrf), ("time_zone", "Asia/Tokyo")], cookie: owner.cookie)
        #expect(saved.status == 303 && saved.header("Location") == "/settings?saved=restart")
        #expect(station.link.handled.withLock { $0 }.contains(.restartForChanges))
        let said = await station.get("/settings?saved=restart", cookie: owner.cookie)
        #expect(said.text.contains("restarts to use the new time zone"))
        #expect(said.text.contains("<option value=\"Asia/Tokyo\" selected>"))
        let unknown = await station.post(
            "/settings", [("csrf", owner.csrf), ("time_zone", "Mars/Olympus")], cookie: owner.cookie)
        #expect(unknown.status == 400 && unknown.text.contains("not a time zone the station knows"))
        #expect(station.link.status().owner.timeZone == "Asia/Tokyo")
    }
}

/// A Supabase project's Auth as the page sees it: a new address is made (or waits for its confirmation),
/// a taken one refused in Auth's words, one password signs in.
private final class AccountsStandIn: GroupAccounts {
    let asked = Mutex<[(String, String, String)]>([])
    let confirms: Bool

    init(confirms: Bool = false) { self.confirms = confirms }

    func signUp(email: String, password: String) async -> GroupAccountOutcome {
        asked.withLock { $0.append(("up", email, password)) }
        if email == "taken@example.com" { return .refused(status: 422, words: "User already registered") }
        return confirms ? .confirmationSent : .signedIn
    }

    func signIn(email: String, password: String) async -> GroupAccountOutcome {
        asked.withLock { $0.append(("in", email, password)) }
        return password == "Their-password-1" ? .signedIn : .refused(status: 400, words: "Invalid login credentials")
    }
}

@Suite("The owner's page: the station's own account on the group's server, made or signed in to")
struct GroupAccountPageTests {
    private func station(_ accounts: AccountsStandIn, installer: Bool = false) throws -> WebTestStation {
        try WebTestStation(groups: [], accounts: accounts) { config in
            config.group.backend = .supabase
            config.group.keySource = .file(config.storage.dir + "/installer/group")
            if installer {
                try? AtomicFile.write(Array("installer-password".utf8), to: config.storage.dir + "/installer/group")
            }
        }
    }

    @Test("should make the account with a password of the station's own, keep it unseen, and restart to use it")
    func makes() async throws {
        let accounts = AccountsStandIn()
        let station = try station(accounts)
        let owner = try await station.pair()
        try AtomicFile.write(Array("old-refresh-token".utf8), to: station.config.supabaseSessionFile)
        let before = await station.get("/keys", cookie: owner.cookie)
        #expect(before.text.contains("The station has no account yet.") && before.text.contains("/keys/group/account"))

        let made = await station.post(
            "/keys/group/account", [("csrf", owner.csrf), ("email", " kitchen@example.com "), ("password", "")],
            cookie: owner.cookie)
        #expect(made.status == 200 && made.text.contains("The account kitchen@example.com is made and works"))
        let (kind, email, password) = try #require(accounts.asked.withLock { $0.first })
        #expect(kind == "up" && email == "kitchen@example.com" && password.count >= 43, "256 random bits")
        #expect(station.config.enteredKeys.key(.group) == password && !made.text.contains(password))
        #expect(
            !FileManager.default.fileExists(atPath: station.config.supabaseSessionFile), "the old session forgotten")
        #expect(station.link.status().owner.groupEmail == "kitchen@example.com")
        #expect(station.link.events.filter { $0 == .startChanged }.count == 1)
        #expect(made.text.contains("The station signs in as kitchen@example.com."))

        // A settings form saved later keeps the account: it is not a preference.
        _ = await station.post("/settings", [("csrf", owner.csrf), ("countdown", "5")], cookie: owner.cookie)
        #expect(station.link.status().owner.groupEmail == "kitchen@example.com")
    }

    @Test("should sign in with a password given, and change nothing when Auth refuses, saying its words")
    func signsInOrRefuses() async throws {
        let accounts = AccountsStandIn()
        let station = try station(accounts)
        let owner = try await station.pair()
        let taken = await station.post(
            "/keys/group/account", [("csrf", owner.csrf), ("email", "taken@example.com"), ("password", "")],
            cookie: owner.cookie)
        #expect(
            taken.status == 200 && taken.text.contains("“User already registered” (HTTP 422). Nothing was changed."))
        #expect(taken.text.contains("value=\"taken@example.com\""), "the address as typed")
        let wrong = await station.post(
            "/keys/group/account", [("csrf", owner.csrf), ("email", "hall@example.com"), ("password", "guess-1234")],
            cookie: owner.cookie)
        #expect(wrong.text.contains("Invalid login credentials") && !wrong.text.contains("guess-1234"))
        #expect(station.config.enteredKeys.key(.group) == nil && station.link.status().owner.groupEmail == nil)
        #expect(!station.link.events.contains(.startChanged))
        for (email, password, problem) in [
            ("kitchen", "", "An email address such as"), ("a b@example.com", "", "An email address such as"),
            ("hall@example.com", "with space", "512 characters"),
        ] {
            let refused = await station.post(
                "/keys/group/account", [("csrf", owner.csrf), ("email", email), ("password", password)],
                cookie: owner.cookie)
            #expect(refused.status == 200 && refused.text.contains(problem) && refused.text.contains("aria-invalid"))
        }
        #expect(accounts.asked.withLock { $0.count } == 2, "nothing asked for a form the page refused")

        let signed = await station.post(
            "/keys/group/account",
            [("csrf", owner.csrf), ("email", "hall@example.com"), ("password", "Their-password-1")],
            cookie: owner.cookie)
        #expect(signed.text.contains("The station signed in as hall@example.com"))
        #expect(station.config.enteredKeys.key(.group) == "Their-password-1")
        #expect(station.link.status().owner.groupEmail == "hall@example.com")
    }

    @Test("should say that a new account waits for its email's confirmation, and offer no account over the installer's")
    func confirmsOrInstaller() async throws {
        let confirming = AccountsStandIn(confirms: true)
        let station = try station(confirming)
        let owner = try await station.pair()
        let made = await station.post(
            "/keys/group/account", [("csrf", owner.csrf), ("email", "kitchen@example.com"), ("password", "")],
            cookie: owner.cookie)
        #expect(made.text.contains("the project sends it an email to confirm first"))
        #expect(station.link.status().owner.groupEmail == "kitchen@example.com")

        let installed = try self.station(AccountsStandIn(), installer: true)
        let other = try await installed.pair()
        #expect(!(await installed.get("/keys", cookie: other.cookie)).text.contains("/keys/group/account"))
        let refused = await installed.post(
            "/keys/group/account", [("csrf", other.csrf), ("email", "kitchen@example.com")], cookie: other.cookie)
        #expect(refused.status == 404)
    }
}
