import Foundation
import Logging
import SnapCore

/// The station's own account on the group's Supabase project, made or tried from the owner's page
/// (`GroupAccounts`), as supabase/auth answers:
/// - `POST /auth/v1/signup` (`internal/api/signup.go`): with autoconfirm a session (the account works at
///   once), without it the user alone, unconfirmed (an email goes out first; a confirmed address signed up
///   again answers the same, so nobody learns who has an account); a taken address with autoconfirm is 422
///   `user_already_exists`, a weak password 422 `weak_password`;
/// - `POST /auth/v1/token?grant_type=password` (`internal/api/token.go`): a session, or 400
///   `invalid_credentials` / `email_not_confirmed`.
/// Both carry the project's public key as `apikey` (the gateway's check). The session is not kept here:
/// the station signs in with the account as it starts (`SupabaseSession`).
public struct SupabaseAccounts: GroupAccounts {
    let projectURL: String
    let anonKey: String
    let client: HTTPClient
    let logger: Logger

    public init(projectURL: String, anonKey: String, client: HTTPClient, logger: Logger) {
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.anonKey = anonKey
        self.client = client
        self.logger = logger
    }

    public func signUp(email: String, password: String) async -> GroupAccountOutcome {
        await ask("/auth/v1/signup", email: email, password: password, signingUp: true)
    }

    public func signIn(email: String, password: String) async -> GroupAccountOutcome {
        await ask("/auth/v1/token?grant_type=password", email: email, password: password, signingUp: false)
    }

    private func ask(_ path: String, email: String, password: String, signingUp: Bool) async -> GroupAccountOutcome {
        let request = HTTPRequest(
            method: "POST", url: projectURL + path,
            headers: [("apikey", anonKey), ("Content-Type", "application/json")],
            body: (try? JSONSerialization.data(withJSONObject: ["email": email, "password": password])).map {
                [UInt8]($0)
            }, maxBodyBytes: 1 << 20)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            logger.warning("supabase: \(signingUp ? "sign-up" : "sign-in") from the owner's page: \(error)")
            return .failed(error.kind == .tls ? .untrusted(error.message) : .offline)
        }
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        if response.status == 200, let json {
            if let access = json["access_token"] as? String, !access.isEmpty { return .signedIn }
            // A user without a session: made, and waiting for its email to be confirmed.
            if signingUp, json["id"] is String || json["email"] is String { return .confirmationSent }
        }
        if response.status >= 500 || response.status == 429 { return .failed(.offline) }
        guard let json else {
            return .failed(
                .signInFailed("the answer is not JSON (HTTP \(response.status)): is group.url a Supabase project?"))
        }
        let said =
            (json["msg"] as? String) ?? (json["error_description"] as? String) ?? (json["message"] as? String)
            ?? "HTTP \(response.status)"
        // The server's words go on the page: one line, a sentence's length.
        var words = String.UnicodeScalarView()
        words.append(contentsOf: said.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(200))
        return .refused(status: response.status, words: String(words))
    }
}
