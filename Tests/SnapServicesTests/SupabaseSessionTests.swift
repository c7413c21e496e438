import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

/// The refresh tokens a session kept, as the station's store would.
final class KeptTokens: Sendable {
    private let tokens = Lock<[String]>([])
    func keep(_ token: String) { tokens.withLock { $0.append(token) } }
    var all: [String] { tokens.withLock { $0 } }
}

/// The station signed in to the stand-in's Auth (Tests/Fakes/auth_api.py, after supabase/auth), whose
/// access tokens last Auth's default hour: the stand-in's clock and the session's are held together
/// (`FakeServices.holdClock`) and moved past each expiry, never slept through; each expiry renews the
/// session, and nothing is refused for good.
@Suite(
    "SupabaseSession: a station that signs in and stays signed in", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct SupabaseSessionTests {
    let fake: FakeServices
    let clock: HeldClock
    let taken: Date

    init() async throws {
        fake = try await FakeServices()
        clock = try await fake.holdClock()
        taken = clock.wall
    }

    /// Past the access token's hour (Auth's default expiry) on both clocks: the next request must renew.
    private func pastExpiry() async throws { try await fake.advance(clock, by: .seconds(3_601)) }

    private func session(
        _ member: FakeServices.Member, password: String? = nil, refreshToken: String? = nil, kept: KeptTokens
    ) -> SupabaseSession {
        SupabaseSession(
            projectURL: fake.baseURL, anonKey: member.anonKey,
            credentials: .init(email: member.email, password: password ?? member.password),
            refreshToken: refreshToken, client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: "test"), ahead: 1, now: { [clock] in clock.wall }, keep: { token in kept.keep(token) }
        )
    }

    private func upload(_ id: String) -> GroupUpload {
        let day = LocalDay(containing: taken, in: TimeZone(identifier: "UTC")!)
        return GroupUpload(
            photoID: PhotoID(id), group: "Family", day: day, jpeg: TestImages.jpeg(width: 64, height: 48),
            takenAt: taken, expiresAt: taken + GroupUpload.lifetime, station: "Kitchen")
    }

    @Test("should sign in, share and list across three expiries by refreshing, keeping each refresh token")
    func staysSignedIn() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        #expect(!kitchen.email.isEmpty && !kitchen.password.isEmpty, "the stand-in made an Auth user")
        let kept = KeptTokens()
        let session = session(kitchen, kept: kept)
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", authorization: .session(session),
            anonKey: kitchen.anonKey, client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: "test"))
        try await backend.upload(upload("a")) { _ in }
        var listed = 0
        for round in 1...3 {
            try await pastExpiry()
            listed = try await backend.shared(in: "Family", now: clock.wall).count
            #expect(listed == 1, "round \(round)")
        }
        let renewals = session.renewals
        print("supabase session: \(renewals.signIns) sign-in(s), \(renewals.refreshes) refresh(es)")
        #expect(renewals.signIns == 1 && renewals.refreshes >= 3)
        #expect(kept.all.count == renewals.signIns + renewals.refreshes, "each refresh token kept")
        #expect(Set(kept.all).count == kept.all.count, "the tokens rotate")
    }

    @Test(
        "should share with two groups and fetch the others' photos across three expiries, then delete its own, none dropped"
    )
    func twoGroupsThreeExpiries() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        _ = try await fake.member("Kitchen", of: "Climbers", as: kitchen)
        let others = [
            try await fake.member("Hall", of: "Family"), try await fake.member("Attic", of: "Climbers"),
            try await fake.member("Porch", of: "Family"),
        ]
        let kept = KeptTokens()
        let session = session(kitchen, kept: kept)
        let client = HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10))
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", authorization: .session(session),
            anonKey: kitchen.anonKey, client: client, logger: Logger(label: "test"))
        let day = LocalDay(containing: taken, in: TimeZone(identifier: "UTC")!)
        func photo(_ id: String, _ group: String, _ station: String) -> GroupUpload {
            GroupUpload(
                photoID: PhotoID(id), group: group, day: day, jpeg: TestImages.jpeg(width: 64, height: 48),
                takenAt: taken, expiresAt: taken + GroupUpload.lifetime, station: station)
        }
        let rounds = [("Family", others[0]), ("Climbers", others[1]), ("Family", others[2])]
        var own: [OwnShare] = []
        var fetched = 0
        for (round, (group, other)) in rounds.enumerated() {
            // The station's own photo, where it has not shared today yet, and another member's.
            if !own.contains(where: { $0.group == group }) {
                try await backend.upload(photo("kitchen-\(round)", group, "Kitchen")) { _ in }
                own.append(OwnShare(photoID: PhotoID("kitchen-\(round)"), group: group, day: day))
            }
            let theirs = SupabaseBackend(
                projectURL: fake.baseURL, bucket: "snapstation", key: try await fake.signIn(other),
                anonKey: other.anonKey, client: client, logger: Logger(label: "test"))
            try await theirs.upload(photo("other-\(round)", group, "other")) { _ in }
            try await pastExpiry()
            let listed = try await backend.shared(in: group, now: clock.wall)
            let item = try #require(listed.first { $0.photoID == PhotoID("other-\(round)") }, "round \(round)")
            let bytes = try await backend.download(item, from: 0, limit: 1 << 20)
            #expect(bytes.count == item.byteSize && bytes.starts(with: [0xFF, 0xD8]), "round \(round)")
            fetched += 1
        }
        // Their 48 hours over: the station deletes its own objects, and only its own.
        let gone = try await backend.removeOwn(own)
        #expect(Set(gone) == Set(own.map(\.photoID)))
        let objects = try await fake.objects()
        #expect(!objects.contains { $0.contains("kitchen-") }, "\(objects)")
        #expect(objects.filter { $0.contains("other-") }.count == 3, "the others' photos stay theirs")
        let renewals = session.renewals
        print(
            "two groups, three expiries: \(own.count) shared, \(fetched) fetched, \(own.count) deleted; "
                + "\(renewals.signIns) sign-in(s), \(renewals.refreshes) refresh(es)")
        #expect(renewals.signIns == 1 && renewals.refreshes >= 3, "signed in once, refreshed after each expiry")
    }

    @Test("should renew and send once more when Storage answers that the token expired")
    func expiredAnswer() async throws {
        let attic = try await fake.member("Attic", of: "Family")
        // A session that keeps using its token 20 s past its expiry: only the server's answer tells it.
        // (The session's own clock stays; the stand-in's moves past the expiry.)
        let session = SupabaseSession(
            projectURL: fake.baseURL, anonKey: attic.anonKey,
            credentials: .init(email: attic.email, password: attic.password), refreshToken: nil,
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)), logger: Logger(label: "test"),
            ahead: -20, keep: { _ in })
        let backend = SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", authorization: .session(session),
            anonKey: attic.anonKey, client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)),
            logger: Logger(label: "test"))
        _ = try await session.accessToken()
        _ = try await fake.control("/_control/clock", ["advance": 3_601])
        let before = try await fake.requests().count
        try await backend.upload(upload("b")) { _ in }
        let storage = try await fake.requests().dropFirst(before).filter {
            ($0["path"] as? String)?.hasPrefix("/storage/") == true
        }
        #expect(storage.count == 2, "refused as expired, then sent once more")
        #expect(session.renewals.refreshes == 1)
    }

    @Test("should sign in again with the password when the kept refresh token was refused")
    func refusedRefreshToken() async throws {
        let hall = try await fake.member("Hall", of: "Family")
        let kept = KeptTokens()
        let session = session(hall, refreshToken: "notarealtoken", kept: kept)
        _ = try await session.accessToken()
        #expect(session.renewals.signIns == 1 && session.renewals.refreshes == 0)
    }

    @Test("should say a wrong password in words, as a failure that may heal")
    func wrongPassword() async throws {
        let porch = try await fake.member("Porch", of: "Family")
        let kept = KeptTokens()
        do {
            _ = try await session(porch, password: "wrong", kept: kept).accessToken()
            Issue.record("signed in with a wrong password")
        } catch {
            #expect(error == .signInFailed("wrong email or password (group.email, group.key_source)"))
            #expect(error.mayHeal, "the photo waits")
        }
    }

    @Test("should say so when the URL answers but is not Supabase Auth")
    func notSupabase() async throws {
        let kept = KeptTokens()
        let elsewhere = SupabaseSession(
            projectURL: fake.baseURL + "/nothing-here", anonKey: "k", credentials: .init(email: "a@b.c", password: "p"),
            refreshToken: nil, client: HTTPClient(), logger: Logger(label: "test"),
            keep: { token in kept.keep(token) })
        do {
            _ = try await elsewhere.accessToken()
            Issue.record("signed in to something that is not Supabase")
        } catch {
            if case .signInFailed(let reason) = error {
                #expect(reason.contains("Supabase"), "\(reason)")
            } else {
                Issue.record("\(error)")
            }
        }
    }
}

/// The session's tokens as Auth answers them, from the fake's queued answers (no PostgreSQL): the access
/// token goes into every request's `Authorization` header, so one that is empty or would break the header
/// line is no session at all.
@Suite("SupabaseSession: the tokens Auth answers, parsed before they go into a header", .serialized, .startsProcesses)
struct SupabaseSessionTokenTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// A backend signed in through a session whose next sign-in Auth answers with `access`.
    private func backend(answering access: String, kept: KeptTokens) async throws -> SupabaseBackend {
        let session: [String: Any] = [
            "access_token": access, "token_type": "bearer", "expires_in": 3600, "refresh_token": "r-\(access.count)",
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: session), as: UTF8.self)
        try await fake.queue("auth", ["answer:200:\(json)"])
        let client = HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10))
        let signedIn = SupabaseSession(
            projectURL: fake.baseURL, anonKey: "anon", credentials: .init(email: "kitchen@example.com", password: "p"),
            refreshToken: nil, client: client, logger: Logger(label: "test"), keep: { token in kept.keep(token) })
        return SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", authorization: .session(signedIn), anonKey: "anon",
            client: client, logger: Logger(label: "test"))
    }

    private func asked() async throws -> [String] {
        try await fake.requests().compactMap { $0["path"] as? String }
    }

    @Test("should take an access token that is empty or holds a line break as no session, and send nothing with it")
    func hostileAccessTokens() async throws {
        let kept = KeptTokens()
        // A token that fits a header is used: the listing goes out with it.
        let good = "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"
        try await fake.queue("rest", ["answer:200:[]"])
        #expect(try await backend(answering: good, kept: kept).shared(in: "Family", now: Date()).isEmpty)
        #expect(try await asked() == ["/auth/v1/token", "/rest/v1/group_photos"])
        #expect(kept.all == ["r-\(good.count)"])

        let notASession = UploadFailure.signInFailed(
            "the answer is not a Supabase session: is group.url a Supabase project?")
        let unsendable = UploadFailure.signInFailed(
            "the answer's access token holds a line break or control character: is group.url a Supabase project?")
        let hostile = [
            "": notASession,
            "a\r\nX-Evil: 1": unsendable, "eyJ.e30\n.c2ln": unsendable, "a\u{0}b": unsendable,
        ]
        for (access, refusal) in hostile {
            let backend = try await backend(answering: access, kept: kept)
            do throws(UploadFailure) {
                _ = try await backend.shared(in: "Family", now: Date())
                Issue.record("listed with \(access.debugDescription)")
            } catch {
                #expect(error == refusal, "\(access.debugDescription)")
                #expect(error.mayHeal, "the photos wait for a sign-in that works")
            }
        }
        #expect(
            Array(try await asked().dropFirst(2)) == Array(repeating: "/auth/v1/token", count: hostile.count),
            "signed in, and nothing sent with those tokens")
        #expect(kept.all == ["r-\(good.count)"], "no refresh token of a refused session kept")
    }
}
