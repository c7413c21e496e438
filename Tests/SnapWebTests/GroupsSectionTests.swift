import Foundation
import Logging
import SnapCore
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapWeb

/// The Group page's section against the Supabase stand-in on a real PostgreSQL, through the real
/// SupabaseBackend: two stations' pages make a group, invite, join, list the members and leave, as their
/// owners would.
@Suite(
    "The owner's page: making, joining and leaving groups on a Supabase project", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct GroupsSectionTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// A station's page signed in as a new user, in no group (or the config's `groups`).
    private func station(_ name: String, groups: [String] = [], locked: [String] = []) async throws -> (
        WebTestStation, FakeServices.Member, SupabaseBackend
    ) {
        let user = try await fake.user(name)
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", key: user.key, anonKey: user.anonKey,
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)), logger: Logger(label: "test"))
        let station = try WebTestStation(locked: locked, groups: groups, directory: backend, name: name)
        return (station, user, backend)
    }

    private func code(in page: String) -> String? {
        page.firstMatch(of: /<p class="invite-code">([A-Z2-9-]+)<\/p>/).map { String($0.1) }
    }

    @Test("should make a group, show its code as text and QR code, and list who joined with it")
    func makeAndJoin() async throws {
        let (kitchen, _, _) = try await station("Kitchen")
        let (hall, _, _) = try await station("Hall")
        let k = try await kitchen.pair()
        let h = try await hall.pair()
        let empty = await kitchen.get("/group", cookie: k.cookie).text
        #expect(empty.contains("The station is in no group yet") && empty.contains("Make a group"))

        let made = await kitchen.post(
            "/group/create", [("csrf", k.csrf), ("group", "Family"), ("member", "Kitchen")], cookie: k.cookie)
        #expect(made.status == 200, "\(made.text)")
        let invite = try #require(code(in: made.text), "\(made.text)")
        #expect(invite.count == 14 && made.text.contains("<svg class=\"qr\""))
        #expect(try kitchen.store.runtimeSettings().groups == ["Family"])
        #expect(
            kitchen.link.events.contains {
                $0 == .settingsChanged(.joined("Family"))
            },
            "the station was told")

        // Typed as people type it: lower case, spaces for dashes.
        let typed = invite.lowercased().replacingOccurrences(of: "-", with: " ")
        let joined = await hall.post(
            "/group/join", [("csrf", h.csrf), ("code", typed), ("member", "Hall")], cookie: h.cookie)
        #expect(joined.status == 303 && joined.header("Location") == "/group?joined=1", "\(joined.text)")
        #expect(try hall.store.runtimeSettings().groups == ["Family"])

        let page = await kitchen.get("/group", cookie: k.cookie).text
        #expect(page.contains("<b>Kitchen</b> (this station) · has not shared yet"), "\(page)")
        #expect(page.contains("<b>Hall</b> · has not shared yet"))
        #expect(page.range(of: "Kitchen</b>")!.lowerBound < page.range(of: "Hall</b>")!.lowerBound, "in join order")

        // A second group of the same name is refused with the server's words.
        let again = await hall.post(
            "/group/create", [("csrf", h.csrf), ("group", "Family"), ("member", "Hall")], cookie: h.cookie)
        #expect(again.status == 400 && again.text.contains("This group name is taken: choose another"), "\(again.text)")
    }

    @Test("should refuse a wrong code and one a new invite replaced, each in words, and keep the groups as they were")
    func wrongAndReplacedCodes() async throws {
        let (kitchen, _, _) = try await station("Kitchen")
        let (porch, _, _) = try await station("Porch")
        let k = try await kitchen.pair()
        let p = try await porch.pair()
        let made = await kitchen.post(
            "/group/create", [("csrf", k.csrf), ("group", "Climbers"), ("member", "Kitchen")], cookie: k.cookie)
        let first = try #require(code(in: made.text))
        let renewed = await kitchen.post("/group/invite", [("csrf", k.csrf), ("group", "Climbers")], cookie: k.cookie)
        let second = try #require(code(in: renewed.text), "\(renewed.text)")
        #expect(second != first && renewed.text.contains("the code before it no longer works"))

        let wrong = await porch.post(
            "/group/join", [("csrf", p.csrf), ("code", "AAAA-BBBB-CCCC"), ("member", "Porch")], cookie: p.cookie)
        #expect(wrong.status == 400 && wrong.text.contains("This invite code is not valid"), "\(wrong.text)")
        #expect(wrong.text.contains("id=\"join-code\" maxlength=\"40\""), "not the person's field at fault")
        #expect(wrong.text.contains("value=\"AAAA-BBBB-CCCC\""), "the code typed stays, to mend")
        let old = await porch.post(
            "/group/join", [("csrf", p.csrf), ("code", first), ("member", "Porch")], cookie: p.cookie)
        #expect(old.status == 400 && old.text.contains("This invite code is not valid"))
        #expect(try porch.store.runtimeSettings().groups == nil, "nothing kept")
        let right = await porch.post(
            "/group/join", [("csrf", p.csrf), ("code", second), ("member", "Porch")], cookie: p.cookie)
        #expect(right.status == 303)
    }

    @Test("should refuse the 13th member with a clear message")
    func thirteenth() async throws {
        let (kitchen, _, _) = try await station("Kitchen")
        let k = try await kitchen.pair()
        let made = await kitchen.post(
            "/group/create", [("csrf", k.csrf), ("group", "Big"), ("member", "Kitchen")], cookie: k.cookie)
        let invite = try #require(code(in: made.text))
        for index in 2...12 {
            let (other, _, _) = try await station("Member\(index)")
            let o = try await other.pair()
            let reply = await other.post(
                "/group/join", [("csrf", o.csrf), ("code", invite), ("member", "M\(index)")], cookie: o.cookie)
            #expect(reply.status == 303, "member \(index): \(reply.text)")
        }
        let (last, _, _) = try await station("Thirteenth")
        let l = try await last.pair()
        let refused = await last.post(
            "/group/join", [("csrf", l.csrf), ("code", invite), ("member", "Thirteenth")], cookie: l.cookie)
        #expect(refused.status == 400, "\(refused.text)")
        #expect(
            refused.text.contains("Group Big already has 12 members. A member has to leave first"), "\(refused.text)")
        #expect(try last.store.runtimeSettings().groups == nil)
    }

    @Test("should leave after asking, delete the station's photos there, and keep the other groups")
    func leave() async throws {
        let (kitchen, _, _) = try await station("Kitchen")
        let (hall, _, hallBackend) = try await station("Hall", groups: ["Config group"])
        let k = try await kitchen.pair()
        let h = try await hall.pair()
        let made = await kitchen.post(
            "/group/create", [("csrf", k.csrf), ("group", "Family"), ("member", "Kitchen")], cookie: k.cookie)
        let invite = try #require(code(in: made.text))
        _ = await hall.post("/group/join", [("csrf", h.csrf), ("code", invite), ("member", "Hall")], cookie: h.cookie)
        #expect(try hall.store.runtimeSettings().groups == ["Config group", "Family"], "joined after the config's")
        let day = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        try await hallBackend.upload(
            GroupUpload(
                photoID: PhotoID("hall-1"), group: "Family", day: day, jpeg: TestImages.jpeg(width: 64, height: 48),
                takenAt: Date(), expiresAt: Date() + GroupUpload.lifetime, station: "Hall", sticker: [0x89, 0x50])
        ) { _ in }
        #expect(try await fake.objects().filter { $0.contains("hall-1") }.count == 2)
        let shared = await kitchen.get("/group", cookie: k.cookie).text
        #expect(shared.contains("<b>Hall</b> · last shared"), "\(shared)")

        // What the station keeps of Family: a photo Kitchen shared, and one of its own still waiting to go.
        let received = SharedPhoto(
            id: PhotoID("kitchen-1"), group: "Family", member: "Kitchen", takenAt: hall.now,
            expiresAt: hall.now + GroupUpload.lifetime,
            path: hall.store.inboxPath(for: PhotoID("kitchen-1"), group: "Family"))
        try hall.store.keepReceived(received, jpeg: TestImages.jpeg())
        let paths = hall.store.paths(for: PhotoID("hall-2"), day: hall.today)
        let waiting = ProcessedPhoto(
            id: PhotoID("hall-2"), photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: hall.now)
        try hall.store.storePhoto(waiting, jpeg: TestImages.jpeg(), thumbnail: TestImages.jpeg())
        #expect(try hall.store.share(waiting, group: "Family", day: hall.today, now: hall.now))

        let ask = await hall.get("/group/leave?group=Family", cookie: h.cookie)
        #expect(ask.status == 200 && ask.text.contains("Leave Family?"))
        let left = await hall.post("/group/leave", [("csrf", h.csrf), ("group", "Family")], cookie: h.cookie)
        #expect(left.status == 303 && left.header("Location") == "/group?left=1", "\(left.text)")
        #expect(try hall.store.runtimeSettings().groups == ["Config group"])
        #expect(try await fake.objects().filter { $0.contains("hall-1") }.isEmpty, "the photo and sticker deleted")
        #expect(try hall.store.receivedPhotos(now: hall.now).isEmpty, "Family's photos forgotten on the station")
        #expect(!FileManager.default.fileExists(atPath: received.path))
        #expect(try hall.store.pendingJobs().isEmpty && hall.store.job(for: PhotoID("hall-2"))?.state == .failed)
        #expect(hall.link.events.contains(.inboxChanged([])), "the slideshow told")
        let after = await kitchen.get("/group", cookie: k.cookie).text
        #expect(!after.contains("<b>Hall</b>"), "Hall is no longer a member")
        let notMember = await hall.get("/group/leave?group=Family", cookie: h.cookie)
        #expect(notMember.status == 404)
    }

    @Test("should forget a group the station is no longer in on the server when the owner leaves it")
    func leaveWhatIsGone() async throws {
        let (kitchen, _, _) = try await station("Kitchen")
        let (hall, _, hallBackend) = try await station("Hall")
        let k = try await kitchen.pair()
        let h = try await hall.pair()
        let made = await kitchen.post(
            "/group/create", [("csrf", k.csrf), ("group", "Family"), ("member", "Kitchen")], cookie: k.cookie)
        let invite = try #require(code(in: made.text))
        _ = await hall.post("/group/join", [("csrf", h.csrf), ("code", invite), ("member", "Hall")], cookie: h.cookie)
        #expect(try hall.store.runtimeSettings().groups == ["Family"])
        // Left on the server behind the page's back (another station of the same user): PT404 from now on.
        try await hallBackend.leave(group: "Family")
        let left = await hall.post("/group/leave", [("csrf", h.csrf), ("group", "Family")], cookie: h.cookie)
        #expect(left.status == 303 && left.header("Location") == "/group?left=1", "\(left.text)")
        #expect(try hall.store.runtimeSettings().groups == [], "the page no longer keeps a group it cannot leave")
    }

    @Test("should keep the config's groups and offer nothing to change when group.name is locked")
    func locked() async throws {
        let (hall, _, _) = try await station("Hall", groups: ["Family"], locked: ["group.name"])
        let h = try await hall.pair()
        let page = await hall.get("/group", cookie: h.cookie).text
        #expect(page.contains("locked by the config file (group.name)") && !page.contains("Make a group"))
        let refused = await hall.post(
            "/group/create", [("csrf", h.csrf), ("group", "Other"), ("member", "Hall")], cookie: h.cookie)
        #expect(refused.status == 403)
        #expect(try hall.store.runtimeSettings().groups == nil)
    }

    @Test("should say why on a server that cannot be reached, and change nothing")
    func unreachable() async throws {
        let backend = SupabaseBackend(
            projectURL: "http://127.0.0.1:\(FakeServices.freePort())", bucket: "snapstation", key: "k", anonKey: "a",
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(4)), logger: Logger(label: "test"))
        let station = try WebTestStation(groups: [], directory: backend)
        let b = try await station.pair()
        let reply = await station.post(
            "/group/create", [("csrf", b.csrf), ("group", "Family"), ("member", "Kitchen")], cookie: b.cookie)
        #expect(reply.status == 503 && reply.text.contains("cannot be reached"), "\(reply.text)")
        #expect(try station.store.runtimeSettings().groups == nil)
    }
}
