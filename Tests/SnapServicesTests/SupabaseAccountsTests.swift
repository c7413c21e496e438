import Foundation
import Logging
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

/// The station's own account made or signed in to from the owner's page, against the stand-in's Auth
/// (Tests/Fakes/auth_api.py, after supabase/auth's signup.go and token.go) on the test cluster.
@Suite(
    "SupabaseAccounts: the station's account made or signed in to, in Auth's own words", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct SupabaseAccountsTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    private func accounts(projectURL: String? = nil, anonKey: String? = nil) async throws -> SupabaseAccounts {
        let keys = try #require(try await fake.get("/_control/keys") as? [String: Any])
        return SupabaseAccounts(
            projectURL: projectURL ?? fake.baseURL + "/", anonKey: try anonKey ?? #require(keys["anon_key"] as? String),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)), logger: Logger(label: "test"))
    }

    @Test("should make an account that signs in at once, and refuse the same address, a wrong or weak password")
    func makeAndSignIn() async throws {
        let accounts = try await accounts()
        let email = "kitchen-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = "Station-\(UUID().uuidString)"
        #expect(await accounts.signUp(email: email, password: password) == .signedIn, "autoconfirm: a session")
        #expect(await accounts.signIn(email: email, password: password) == .signedIn)
        #expect(
            await accounts.signUp(email: email, password: password)
                == .refused(status: 422, words: "User already registered"))
        #expect(
            await accounts.signIn(email: email, password: "not-the-password")
                == .refused(status: 400, words: "Invalid login credentials"))
        let weak = await accounts.signUp(email: "hall-\(UUID().uuidString.prefix(8))@example.com", password: "123")
        guard case .refused(422, let said) = weak else {
            Issue.record("a weak password: \(weak)")
            return
        }
        #expect(said.hasPrefix("Password should be at least"))
    }

    @Test("should say a refused public key in the gateway's words, and a server that is not there as offline")
    func wrongProject() async throws {
        let stranger = try await accounts(anonKey: "not-the-project-key")
        #expect(
            await stranger.signUp(email: "porch@example.com", password: "Station-password-1")
                == .refused(status: 401, words: "Invalid API key"))
        let nobody = try await accounts(projectURL: "http://127.0.0.1:9")
        #expect(await nobody.signIn(email: "porch@example.com", password: "Station-password-1") == .failed(.offline))
    }
}
