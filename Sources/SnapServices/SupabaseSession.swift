import Foundation
import Logging
import SnapCore
import SnapFiles
import Synchronization

/// A station signed in to Supabase Auth, and kept signed in.
///
/// Supabase Auth hands out access tokens that expire (3,600 s by default; supabase/auth
/// `internal/conf/configuration.go`) and refresh tokens that rotate: each refresh answers with a new
/// one and revokes the old after a short reuse interval (`internal/models/refresh_token.go`,
/// `internal/api/token_refresh.go`). So the station:
/// - keeps the access token in memory and renews it `ahead` of its expiry, or at once after the
///   service said it expired (`expired()`: PostgREST's 401 `PGRST303`, Storage's `exp` failure);
/// - renews with the refresh token, and keeps each new refresh token durably (`keep`) before it uses
///   the access token that came with it. A power cut between the answer and the write leaves the old
///   refresh token, which Auth refuses once its reuse interval is over: the station then signs in again
///   with its password (`POST /auth/v1/token?grant_type=password`, `internal/api/token.go`);
/// - renews once at a time: callers that need a token while a renewal runs wait for it (two refreshes
///   with one token would trip Auth's reuse detection).
///
/// A sign-in that fails is `.signInFailed(reason)`, which may heal (a password set right, a project back):
/// the photo waits in the queue, never dropped. The network failing is `.offline`.
public final class SupabaseSession: Sendable {
    public struct Credentials: Sendable {
        public var email: String
        public var password: String
        public init(email: String, password: String) {
            self.email = email
            self.password = password
        }
    }

    private struct State {
        var access: String?
        var expiresAt: Date = .distantPast
        var refresh: String?
        var renewing: Task<Result<String, UploadFailure>, Never>?
    }

    public let projectURL: String
    let anonKey: String
    let credentials: Credentials
    let client: HTTPClient
    let logger: Logger
    /// How long before its expiry an access token is renewed.
    let ahead: TimeInterval
    let keep: @Sendable (String) async -> Void
    let now: @Sendable () -> Date
    private let state: Lock<State>

    /// A session for `credentials` on the project at `projectURL`, whose public key is `anonKey`.
    /// `refreshToken` is the one kept from before (nil at the first start); `keep` stores each new one
    /// durably.
    public init(
        projectURL: String, anonKey: String, credentials: Credentials, refreshToken: String?, client: HTTPClient,
        logger: Logger, ahead: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() },
        keep: @escaping @Sendable (String) async -> Void
    ) {
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.anonKey = anonKey
        self.credentials = credentials
        self.client = client
        self.logger = logger
        self.ahead = ahead
        self.now = now
        self.keep = keep
        self.state = Lock(State(refresh: refreshToken))
    }

    /// How many times the session refreshed and signed in (for the log and the tests).
    public var renewals: (refreshes: Int, signIns: Int) { counts.withLock { $0 } }
    private let counts = Lock((0, 0))

    /// An access token valid for a while yet: the one in memory, or a renewed one.
    public func accessToken() async throws(UploadFailure) -> String {
        enum Next {
            case token(String)
            case wait(Task<Result<String, UploadFailure>, Never>)
        }
        let next = state.withLock { state -> Next in
            if let access = state.access, state.expiresAt.timeIntervalSince(now()) > ahead { return .token(access) }
            if let running = state.renewing { return .wait(running) }
            let task = Task { await self.renew() }
            state.renewing = task
            return .wait(task)
        }
        switch next {
        case .token(let access): return access
        case .wait(let renewal): return try await renewal.value.get()
        }
    }

    /// The service said the access token expired (its clock may run ahead of ours): the next call renews.
    public func expired() {
        state.withLock { $0.access = nil }
    }

    /// Refreshes, or signs in when there is no refresh token or Auth refused it.
    private func renew() async -> Result<String, UploadFailure> {
        defer { state.withLock { $0.renewing = nil } }
        if let refresh = state.withLock({ $0.refresh }) {
            switch await token(grant: "refresh_token", body: ["refresh_token": refresh]) {
            case .success(let session):
                counts.withLock { $0.0 += 1 }
                logger.info("supabase: access token renewed")
                return await adopt(session)
            case .failure(.signInFailed(let reason)):
                logger.notice("supabase: the refresh token was refused (\(reason)); signing in again")
            case .failure(let failure):
                return .failure(failure)
            }
        }
        switch await token(
            grant: "password", body: ["email": credentials.email, "password": credentials.password])
        {
        case .success(let session):
            counts.withLock { $0.1 += 1 }
            logger.info("supabase: signed in as \(credentials.email)")
            return await adopt(session)
        case .failure(let failure):
            return .failure(failure)
        }
    }

    private struct Session {
        var access: String
        var refresh: String
        var expiresAt: Date
    }

    /// Keeps the new refresh token durably, then takes the access token into use.
    private func adopt(_ session: Session) async -> Result<String, UploadFailure> {
        await keep(session.refresh)
        state.withLock { state in
            state.access = session.access
            state.refresh = session.refresh
            state.expiresAt = session.expiresAt
        }
        return .success(session.access)
    }

    /// `POST /auth/v1/token?grant_type=GRANT`, as supabase/auth's `internal/api/token.go` takes it: the
    /// project's public key as `apikey` (the gateway's check), the grant's fields as JSON.
    private func token(grant: String, body: [String: String]) async -> Result<Session, UploadFailure> {
        let request = HTTPRequest(
            method: "POST", url: "\(projectURL)/auth/v1/token?grant_type=\(grant)",
            headers: [("apikey", anonKey), ("Content-Type", "application/json")],
            body: (try? JSONSerialization.data(withJSONObject: body)).map { [UInt8]($0) }, maxBodyBytes: 1 << 20)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            logger.warning("supabase: sign-in: \(error)")
            return .failure(error.kind == .tls ? .untrusted(error.message) : .offline)
        }
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        if response.status == 200 {
            guard let json, let access = json["access_token"] as? String,
                let refresh = json["refresh_token"] as? String, !access.isEmpty, !refresh.isEmpty
            else {
                return .failure(.signInFailed("the answer is not a Supabase session: is group.url a Supabase project?"))
            }
            // It goes into every request's Authorization header: a line break there would end the header.
            guard !access.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return .failure(
                    .signInFailed(
                        "the answer's access token holds a line break or control character: is group.url a Supabase project?"
                    ))
            }
            let expiresAt =
                (json["expires_at"] as? Double).map(Date.init(timeIntervalSince1970:))
                ?? now().addingTimeInterval((json["expires_in"] as? Double) ?? 3600)
            return .success(Session(access: access, refresh: refresh, expiresAt: expiresAt))
        }
        return .failure(Self.failure(status: response.status, json: json))
    }

    /// What Auth's refusal means for the person (supabase/auth `internal/api/errorcodes.go`: the newer
    /// `error_code`, the older `error`/`error_description`; the gateway's own `message`).
    static func failure(status: Int, json: [String: Any]?) -> UploadFailure {
        if status >= 500 || status == 429 { return .offline }
        guard let json else {
            return .signInFailed("the answer is not JSON (HTTP \(status)): is group.url a Supabase project?")
        }
        let code = (json["error_code"] as? String) ?? (json["error"] as? String) ?? ""
        let words =
            (json["msg"] as? String) ?? (json["error_description"] as? String) ?? (json["message"] as? String)
            ?? "HTTP \(status)"
        switch code {
        case "invalid_credentials": return .signInFailed("wrong email or password (group.email, group.key_source)")
        case "email_not_confirmed": return .signInFailed("the station's email is not confirmed yet")
        case "user_banned": return .signInFailed("the station's user is disabled")
        case "user_not_found": return .signInFailed("the station's user no longer exists")
        default: break
        }
        if status == 401, words.lowercased().contains("api key") {
            return .signInFailed("the project refused its public key (group.anon_key)")
        }
        if status == 404 { return .signInFailed("no Supabase Auth at group.url (HTTP 404)") }
        return .signInFailed("\(words) (HTTP \(status))")
    }
}
