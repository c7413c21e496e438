import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

/// The real binary signed in to the stand-in's Auth (access tokens of 5 s): it shares with two groups
/// across expiries, comes back signed in after a restart with the refresh token it kept, and with a
/// wrong password keeps the photo and says why.
@Suite(
    "End to end: a station that signs in to Supabase and stays signed in", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)))
struct GroupSignInEndToEndTests {
    let folder = TemporaryDirectory("group-sign-in")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices(jwtExpiry: 5) }

    private func run(_ member: FakeServices.Member, script: String, log: String, password: String? = nil) throws
        -> StationProcess
    {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["name = \"Kitchen\""],
                "group": [
                    "name = [\"Family\", \"Climbers\"]", "review_seconds = 1", "backend = \"supabase\"",
                    "url = \"\(fake.baseURL)\"", "email = \"\(member.email)\"",
                    "key_source = \"env:SNAPSTATION_TEST_GROUP_PASSWORD\"", "anon_key = \"\(member.anonKey)\"",
                ],
            ])
        return try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state", "--no-stdin", "--script", script],
            logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_GROUP_PASSWORD": password ?? member.password])
    }

    @Test("should share with two groups across expiries, and come back signed in with the refresh token it kept")
    func staysSignedIn() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        _ = try await fake.member("Kitchen", of: "Climbers", as: kitchen)
        let hall = try await fake.member("Hall", of: "Family")
        // Family's photo, then past the token's 5 s the mode button to Climbers and its photo.
        let first = try run(kitchen, script: "1s press, 9s mode, 1s press", log: "first")
        let both = await StationProcess.waitFor(seconds: 60) {
            first.output.components(separatedBy: "delivered ").count == 3
        }
        #expect(await first.stop() == 0)
        #expect(both, "\(first.output)")
        #expect(first.output.components(separatedBy: "signed in as").count == 2, "one sign-in with the password")
        #expect(!first.output.contains("rejected"), "nothing refused for good")
        let rows = try await fake.rows().filter { $0["member_name"] as? String == "Kitchen" }
        #expect(Set(rows.compactMap { $0["group_name"] as? String }) == ["Family", "Climbers"])
        let kept = try String(contentsOfFile: folder.path + "/state/supabase-session", encoding: .utf8)
        #expect(!kept.isEmpty)
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder.path + "/state/supabase-session")[
                .posixPermissions] as? Int
        #expect(mode == 0o600, "the refresh token is the station's alone")

        // Another member shares; the restarted station fetches it, signed in by its kept refresh token.
        let today = LocalDay(containing: Date(), in: TimeZone(identifier: "UTC")!)
        try await SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", key: try await fake.signIn(hall), anonKey: hall.anonKey,
            client: HTTPClient(),
            logger: Logger(label: "test")
        ).upload(
            GroupUpload(
                photoID: PhotoID("hall-1"), group: "Family", day: today, jpeg: TestImages.jpeg(width: 64, height: 48),
                takenAt: Date(), expiresAt: Date() + GroupUpload.lifetime, station: "Hall")
        ) { _ in }
        let second = try run(kitchen, script: "", log: "second", password: "not the password any more")
        let received = await StationProcess.waitFor(seconds: 60) { second.output.contains("received ") }
        #expect(await second.stop() == 0)
        #expect(received, "\(second.output)")
        #expect(!second.output.contains("signed in as"), "the refresh token was enough")
    }

    @Test("should keep the photo and say why on a wrong password, and send it once the password is right")
    func wrongPassword() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        let wrong = try run(kitchen, script: "1s press", log: "wrong", password: "wrong")
        let said = await StationProcess.waitFor(seconds: 60) {
            wrong.output.contains("screen: error-group-sign-in-failed")
        }
        #expect(await wrong.stop() == 0)
        #expect(said, "\(wrong.output)")
        #expect(wrong.output.contains("wrong email or password"))
        let errors = try StationStore(directory: folder.path + "/state").queueStatus().lastErrors
        #expect(
            errors.contains { $0.contains("group sign-in failed: wrong email or password") },
            "the status page: \(errors)")
        #expect(try await fake.rows().isEmpty)
        let right = try run(kitchen, script: "", log: "right")
        let delivered = await StationProcess.waitFor(seconds: 60) { right.output.contains("delivered ") }
        #expect(await right.stop() == 0)
        #expect(delivered, "the photo waited in the queue:\n\(right.output)")
    }
}
