import Foundation
import Logging
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

/// The Group page's section through the real SupabaseBackend, against a group's server that says what the
/// stand-in never would (the fake's queued `answer:STATUS:JSON`): a name no group can have, markup in a
/// function's words; and the Group forms naming what the station does not hold. Every answer is queued, so
/// no PostgreSQL is needed.
@Suite(
    "The owner's page: what the group's server and the Group forms send, refused at the edge", .serialized,
    .startsProcesses)
struct GroupsSectionEdgeTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// A station's page on the fake's Supabase routes, in the config's `groups`.
    private func station(groups: [String] = []) throws -> WebTestStation {
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", key: "member-token", anonKey: "anon",
            client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60)), logger: Logger(label: "test"))
        return try WebTestStation(groups: groups, directory: backend, name: "Kitchen")
    }

    /// The answer to the next REST request: `status`, with `value` as its JSON body.
    private func nextRESTAnswer(_ status: Int, _ value: Any) async throws {
        let json = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        try await fake.queue("rest", ["answer:\(status):\(String(decoding: json, as: UTF8.self))"])
    }

    /// The paths the fake's Supabase routes were asked for, oldest first.
    private func asked() async throws -> [String] {
        try await fake.requests().compactMap { $0["path"] as? String }
    }

    private func settingsTold(_ station: WebTestStation) -> Int {
        station.link.events.filter { if case .settingsChanged = $0 { true } else { false } }.count
    }

    /// A function's refusal as PostgREST answers a `RAISE ... USING HINT` (PostgREST `src/PostgREST/Error.hs`:
    /// `code`, `message`, `details`, `hint`; P0001 is HTTP 400), its words hostile.
    private static var markupRefusal: [String: Any] {
        [
            "code": "P0001", "details": NSNull(), "message": "<b onmouseover=alert(2)>refused</b>",
            "hint": "<script>alert(1)</script>",
        ]
    }

    @Test("should keep no group the server answers a join with when no group can have that name, and tell nothing")
    func joinAnsweredWithNoGroupName() async throws {
        let station = try station()
        let b = try await station.pair()
        let join = {
            await station.post(
                "/group/join", [("csrf", b.csrf), ("code", "K7QM-3HXA-9TPZ"), ("member", "Kitchen")],
                cookie: b.cookie)
        }
        try await nextRESTAnswer(200, "Family")
        let joined = await join()
        #expect(joined.status == 303 && joined.header("Location") == "/group?joined=1", "\(joined.text)")
        #expect(try station.store.runtimeSettings().groups == ["Family"], "a group's name is kept")
        let told = settingsTold(station)
        #expect(told == 1)

        let hostile = ["../x", "a/b", "", String(repeating: "a", count: 101), "..\u{0}", "Family\nOther"]
        for name in hostile {
            try await nextRESTAnswer(200, name)
            let refused = await join()
            #expect(refused.status == 502, "\(name.debugDescription): \(refused.status)")
            #expect(
                refused.text.contains("The group&#39;s server answered a name no group can have."),
                "\(name.debugDescription): \(refused.text)")
        }
        #expect(try station.store.runtimeSettings().groups == ["Family"], "none of them kept")
        #expect(settingsTold(station) == told, "the station was told nothing")
        #expect(
            try await asked() == Array(repeating: "/rest/v1/rpc/join_group", count: 1 + hostile.count),
            "nothing asked of the server under those names")
    }

    @Test("should refuse a typed group name that names no folder in the person's words, asking the server nothing")
    func createWithNoGroupName() async throws {
        let station = try station()
        let b = try await station.pair()
        let create = { (name: String) in
            await station.post(
                "/group/create", [("csrf", b.csrf), ("group", name), ("member", "Kitchen")], cookie: b.cookie)
        }
        try await nextRESTAnswer(200, "K7QM-3HXA-9TPZ")
        let made = await create("Family")
        #expect(made.status == 200 && made.text.contains("K7QM-3HXA-9TPZ"), "\(made.text)")
        #expect(try await asked() == ["/rest/v1/rpc/create_group"])
        let told = settingsTold(station)

        // Each said in the form's summary as a link to the name's field, which keeps what was typed.
        let refusals = [
            "../x": "&quot;../x&quot; cannot be a group&#39;s name: up to 100 letters",
            "a/b": "&quot;a/b&quot; cannot be a group&#39;s name: up to 100 letters",
            "Émile": "&quot;Émile&quot; cannot be a group&#39;s name",
            "": "The group&#39;s name is empty</a>",
            String(repeating: "a", count: 101): "The group&#39;s name is longer than 100 characters</a>",
        ]
        for (name, words) in refusals {
            let refused = await create(name)
            let page = refused.text
            #expect(
                refused.status == 400 && page.contains("<p>Not made</p><ul><li><a href=\"#make-group\">\(words)"),
                "\(name.debugDescription): \(page)")
            #expect(page.contains("name=\"group\" id=\"make-group\" aria-invalid=\"true\""))
            let typed: HTML = "value=\"\(name)\""
            #expect(page.contains(typed.text), "what was typed stays")
            #expect(!page.contains("id=\"join-code\" aria-invalid"), "the other form is not marked")
        }
        #expect(try await asked().filter { $0.hasSuffix("create_group") }.count == 1, "the server was asked nothing")
        #expect(try station.store.runtimeSettings().groups == ["Family"])
        #expect(settingsTold(station) == told)
    }

    @Test("should show a refusal's message and hint on the Group page with their markup escaped")
    func refusalEscaped() async throws {
        let station = try station(groups: ["Family"])
        let b = try await station.pair()
        // The members of Family, refused: the page lists them on every visit.
        try await nextRESTAnswer(400, Self.markupRefusal)
        let listed = await station.get("/group", cookie: b.cookie)
        #expect(listed.status == 200)
        #expect(
            listed.text.contains("The members could not be listed: &lt;b onmouseover=alert(2)&gt;"), "\(listed.text)")
        #expect(listed.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))

        // Making a group, refused (the page's listing of Family after it gets the stand-in's 503).
        try await nextRESTAnswer(400, Self.markupRefusal)
        let refused = await station.post(
            "/group/create", [("csrf", b.csrf), ("group", "Climbers"), ("member", "Kitchen")], cookie: b.cookie)
        #expect(refused.status == 400, "\(refused.text)")
        #expect(
            refused.text.contains(
                "Not made: &lt;b onmouseover=alert(2)&gt;refused&lt;/b&gt;. &lt;script&gt;alert(1)&lt;/script&gt;"),
            "\(refused.text)")
        #expect(try await asked().contains("/rest/v1/rpc/create_group"), "the server's words, not the page's")
        for page in [listed.text, refused.text] {
            #expect(!page.contains("<script>") && !page.contains("<b onmouseover"))
        }
        #expect(try station.store.runtimeSettings().groups == nil)
    }

    @Test("should show why the server refused a share on the Group page with its markup escaped")
    func shareFailureEscaped() async throws {
        let station = try station(groups: ["Family"])
        let b = try await station.pair()
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", key: "member-token", anonKey: "anon",
            client: HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60)), logger: Logger(label: "test"))
        let id = PhotoID("kitchen-1")
        let paths = station.store.paths(for: id, day: station.today)
        let photo = ProcessedPhoto(
            id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: station.now)
        try station.store.storePhoto(photo, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        #expect(try station.store.share(photo, group: "Family", day: station.today, now: station.now))

        // The group's folder, refused: the first thing an upload asks.
        try await nextRESTAnswer(403, Self.markupRefusal)
        var failure: UploadFailure?
        do {
            try await backend.upload(
                GroupUpload(
                    photoID: id, group: "Family", day: station.today, jpeg: TestImages.jpeg(), takenAt: station.now,
                    expiresAt: station.now + GroupUpload.lifetime, station: "Kitchen")
            ) { _ in }
        } catch {
            failure = error
        }
        let refused = try #require(failure)
        #expect(!refused.mayHeal)
        // As UploadService gives up on it.
        try station.store.markFailed(try #require(try station.store.job(for: id)), error: "\(refused)")

        let page = await station.get("/group", cookie: b.cookie).text
        #expect(
            page.contains("not sent: rejected(&quot;the server refused to find the folder of Family: &lt;b"), "\(page)")
        #expect(!page.contains("<b onmouseover"))
    }

    @Test("should refuse an invite or a leave for a group the station is not in, asking the server nothing")
    func groupNotInForce() async throws {
        let station = try station(groups: ["Family"])
        let b = try await station.pair()
        try await nextRESTAnswer(200, "K7QM-3HXA-9TPZ")
        let invited = await station.post("/group/invite", [("csrf", b.csrf), ("group", "Family")], cookie: b.cookie)
        #expect(invited.status == 200 && invited.text.contains("K7QM-3HXA-9TPZ"), "\(invited.text)")
        #expect(try await asked() == ["/rest/v1/rpc/group_invite"])

        let notMember = "The station is not in a group of that name."
        let forms: [[(String, String)]] =
            ["Other", "family", "Family ", "../Family", ""].map { [("csrf", b.csrf), ("group", $0)] } + [
                [("csrf", b.csrf)]
            ]
        for form in forms {
            for target in ["/group/invite", "/group/leave"] {
                let refused = await station.post(target, form, cookie: b.cookie)
                #expect(refused.status == 404 && refused.text.contains(notMember), "\(target) \(form): \(refused.text)")
            }
            let query = form.last!.0 == "group" ? form.last!.1 : ""
            let ask = await station.get(
                "/group/leave?group=\(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                cookie: b.cookie)
            #expect(ask.status == 404 && ask.text.contains(notMember), "\(query.debugDescription): \(ask.text)")
        }
        #expect(try await asked() == ["/rest/v1/rpc/group_invite"], "the server was asked nothing more")
        #expect(try station.store.runtimeSettings().groups == nil, "the groups stay the config's")
        #expect(settingsTold(station) == 0)
    }
}
