import Foundation
import SnapStore
import SnapText

/// The gate in front of every room of the page: the Host a request names, the Origin a POST comes from,
/// what anyone may have (the style sheet, the script, the pairing page), the paired browser's session,
/// and the CSRF token every form carries. Only a request that passed it reaches `dispatch`.
extension WebApp {
    func route(_ request: WebRequest) throws -> PageStep {
        let words = self.words
        guard names.allows(host: request.header("host")) else {
            logger.notice(
                "owner's page: refused a request for \(request.header("host") ?? "no host") from \(request.client)")
            return .reply(
                page(
                    words("page.problem.host.title"), paired: false, status: 421,
                    "<p class=\"problem\" role=\"alert\">\(words("page.problem.host.message"))</p>"))
        }
        let parts = request.components
        if request.method == .post, let origin = request.header("origin"), !Self.sameOrigin(origin, request) {
            throw WebProblem(
                403, words("page.problem.refused.title"), words("page.problem.other_site", ["origin": origin]))
        }
        // What anyone may have: the style sheet, the script and the pairing page.
        switch (request.method, parts.first) {
        case (.get, "static"), (.head, "static"):
            return .reply(try staticFile(parts.dropFirst().joined(separator: "/"), words))
        case (.get, "pair"), (.head, "pair"): return .reply(pairPage(message: nil, status: 200))
        case (.post, "pair") where parts.count == 1: return .reply(try pair(request))
        case (.other, _):
            throw WebProblem(405, words("page.problem.not_allowed.title"), words("page.problem.not_allowed.message"))
        default: break
        }
        guard let session = try session(of: request) else {
            return .reply(pairPage(message: parts.isEmpty ? nil : words("page.pair.first"), status: 401))
        }
        var visitor = Visitor(session: session, form: Form(fields: request.query, words: words))
        if request.method == .post {
            visitor.form = try checkedForm(request, session: session, words)
        }
        return try dispatch(request, parts, visitor, words)
    }

    /// How long a pairing lasts however often it is used: `web.session_days`.
    var sessionLifetime: TimeInterval { TimeInterval(config.web.sessionDays) * 86_400 }

    /// Whether `session` is over at `time`: unused for `sessionIdle`, or paired longer ago than
    /// `sessionLifetime`.
    func expired(_ session: WebSession, at time: Date) -> Bool {
        time.timeIntervalSince(session.lastSeen) > Self.sessionIdle
            || time.timeIntervalSince(session.created) > sessionLifetime
    }

    /// The session the request's cookie names and that is not over, or nil.
    func liveSession(of request: WebRequest) throws(StoreError) -> WebSession? {
        guard let token = request.cookies[Self.sessionCookie], !token.isEmpty, token.count <= 100,
            let session = try store.session(hash: Secrets.sha256(token)), !expired(session, at: now())
        else { return nil }
        return session
    }

    /// The session the request's cookie names, or nil; one that is over is forgotten, and a visit is
    /// noted at most once a minute.
    private func session(of request: WebRequest) throws(StoreError) -> WebSession? {
        guard let token = request.cookies[Self.sessionCookie], !token.isEmpty, token.count <= 100 else { return nil }
        let hash = Secrets.sha256(token)
        guard let session = try store.session(hash: hash) else { return nil }
        let time = now()
        if expired(session, at: time) {
            _ = try store.writingAndWaiting { store throws(StoreError) in try store.forgetSessions(hash: hash) }
            return nil
        }
        if time.timeIntervalSince(session.lastSeen) > 60 {
            try store.writingAndWaiting { store throws(StoreError) in try store.touchSession(hash: hash, now: time) }
        }
        return session
    }

    /// The POST's form, if it is one, small enough, and carries the session's CSRF token.
    private func checkedForm(_ request: WebRequest, session: WebSession, _ words: Words) throws -> Form {
        let type = (request.header("content-type") ?? "").lowercased()
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw WebProblem(415, words("page.problem.not_form.title"), words("page.problem.not_form.message"))
        }
        guard request.body.count <= Form.maxBytes else {
            throw WebProblem(
                413, words("page.problem.too_large.title"),
                words("page.problem.too_large.message", ["kb": words.integer(Form.maxBytes / 1024)]))
        }
        let form: Form
        do {
            form = try Form(parsing: String(decoding: request.body, as: UTF8.self), words: words)
        } catch {
            throw WebProblem(400, words("page.problem.broken_form.title"), error.message)
        }
        guard let csrf = form["csrf"], Secrets.equal(csrf, session.csrf) else {
            throw WebProblem(
                403, words("page.problem.out_of_date.title"), words("page.problem.out_of_date.message"))
        }
        return form
    }

    /// Whether an Origin header names the host the request was sent to.
    static func sameOrigin(_ origin: String, _ request: WebRequest) -> Bool {
        guard let host = request.header("host"), let url = URL(string: origin), let originHost = url.host else {
            return false
        }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(originHost)\(port)".lowercased() == host.lowercased()
            || ("[\(originHost)]\(port)").lowercased() == host.lowercased()
    }

}
