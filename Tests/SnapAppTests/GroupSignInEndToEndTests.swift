import Foundation
import Glibc
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

/// The real binary signed in to the stand-in's Auth (access tokens of 10 s; 5 s was outlasted by a sign-in
/// and an upload under the whole suite's load): it shares with two groups
/// across expiries, comes back signed in after a restart with the refresh token it kept, and with a
/// wrong password keeps the photo and says why.
@Suite(
    "End to end: a station that signs in to Supabase and stays signed in", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct GroupSignInEndToEndTests {
    let folder = TemporaryDirectory("group-sign-in")
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    /// The station run for `member`; `script` its button script, or nil for buttons typed by the test.
    private func run(
        _ member: FakeServices.Member, script: String?, log: String, password: String? = nil, url: String? = nil
    ) throws -> StationProcess {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["name = \"Kitchen\""],
                "group": [
                    "name = [\"Family\", \"Climbers\"]", "review_seconds = 1", "backend = \"supabase\"",
                    "url = \"\(url ?? fake.baseURL)\"", "email = \"\(member.email)\"",
                    "key_source = \"env:SNAPSTATION_TEST_GROUP_PASSWORD\"", "anon_key = \"\(member.anonKey)\"",
                ],
            ])
        return try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state"]
                + (script.map { ["--no-stdin", "--script", $0] } ?? []),
            logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_GROUP_PASSWORD": password ?? member.password], typing: script == nil)
    }

    @Test("should share with two groups across expiries, and come back signed in with the refresh token it kept")
    func staysSignedIn() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        _ = try await fake.member("Kitchen", of: "Climbers", as: kitchen)
        let hall = try await fake.member("Hall", of: "Family")
        // Family's photo; then, past the token's hour on the stand-in's clock, the mode button to Climbers and
        // its photo. The station's own clock still holds the token good: only Storage's answer says it
        // expired, and the station renews and sends once more (its own clock's refresh ahead of the expiry
        // is SupabaseSessionTests', on a held clock).
        let first = try run(kitchen, script: nil, log: "first")
        func count(_ text: String) -> Int { first.output.components(separatedBy: text).count - 1 }
        #expect(await first.waitFor("screen: ready"))
        first.type("press")
        #expect(await first.waitFor("delivered "))
        #expect(await first.waitFor("screen: group-lock"))
        _ = try await fake.control("/_control/clock", ["advance": 3_601])
        let screens = count("screen: ")
        first.type("mode")
        #expect(await first.waitFor("screen: ", count: screens + 1))
        first.type("press")
        let both = await first.waitFor("delivered ", count: 2)
        #expect(await first.stop() == 0)
        #expect(both, "\(first.output)")
        #expect(count("access token renewed") >= 1, "the second photo met the expired token, and renewed it")
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
        let received = await second.waitFor("received ")
        #expect(await second.stop() == 0)
        #expect(received, "\(second.output)")
        #expect(!second.output.contains("signed in as"), "the refresh token was enough")
    }

    @Test("should keep the photo and say why on a wrong password, and send it once the password is right")
    func wrongPassword() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        let wrong = try run(kitchen, script: "1s press", log: "wrong", password: "wrong")
        let said = await StationProcess.waitUntil {
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
        let delivered = await right.waitFor("delivered ")
        #expect(await right.stop() == 0)
        #expect(delivered, "the photo waited in the queue:\n\(right.output)")
    }

    /// Whether something listens on `port` of 127.0.0.1.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A project that will not let the station in, and what the station says about it.
    enum BadProject: String, CaseIterable, Sendable {
        case disabledUser, notSupabase, notJSON, unreachable

        var says: String {
            switch self {
            case .disabledUser: "group sign-in failed: the station's user is disabled"
            case .notSupabase: "group sign-in failed: no Supabase Auth at group.url (HTTP 404)"
            case .notJSON:
                "group sign-in failed: the answer is not a Supabase session: is group.url a Supabase project?"
            case .unreachable: "offline"
            }
        }

        /// The screen the station shows after the photo.
        var screen: String {
            self == .unreachable ? "screen: error-network-down" : "screen: error-group-sign-in-failed"
        }
    }

    @Test(
        "should keep the photo and say why on the display, the status page and in the log when the project will not let it in",
        arguments: BadProject.allCases)
    func badProject(_ bad: BadProject) async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family")
        var url: String?
        var portalInput: Pipe?
        switch bad {
        case .disabledUser: try await fake.ban(kitchen)
        case .notSupabase: url = fake.baseURL + "/elsewhere"
        case .unreachable: url = "http://127.0.0.1:\(FakeServices.freePort())"
        case .notJSON:
            // A captive portal: a web page for every request.
            let port = FakeServices.freePort()
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            server.arguments = [
                "-c",
                """
                import http.server, os, sys, threading
                # Ends when the test closes its standard input, or dies.
                threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
                class Portal(http.server.BaseHTTPRequestHandler):
                    def do_POST(self):
                        self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers()
                        self.wfile.write(b"<html><body>Sign in to the Wi-Fi</body></html>")
                    do_GET = do_POST
                http.server.HTTPServer(("127.0.0.1", \(port)), Portal).serve_forever()
                """,
            ]
            let input = Pipe()
            server.standardInput = input
            portalInput = input
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            url = "http://127.0.0.1:\(port)"
            _ = await eventually(every: .milliseconds(50)) { Self.accepts(port: port) }
        }
        defer { try? portalInput?.fileHandleForWriting.close() }
        let station = try run(kitchen, script: "1s press", log: bad.rawValue, url: url)
        let said = await StationProcess.waitUntil { station.output.contains(bad.screen) }
        #expect(await station.stop() == 0)
        #expect(said, "the display: \(station.output)")
        #expect(
            station.output.contains(bad.says.replacingOccurrences(of: "group sign-in failed: ", with: "")), "the log")
        let store = try StationStore(directory: folder.path + "/state")
        #expect(try store.queueStatus().lastErrors.contains { $0.contains(bad.says) }, "the status page")
        #expect(try store.pendingJobs().count == 1, "the photo kept in the queue")
        #expect(try await fake.rows().isEmpty)
    }
}
