import Foundation
import SnapStore
import SnapText

/// The browser a request came from, once its session is known.
struct PageVisitor: Sendable {
    var session: WebSession
    /// The form a POST carried, read and checked against the session's CSRF token (a GET's query
    /// otherwise), its problems said in the page's language.
    var form: Form
}

/// The gate in front of every room of the page, one middleware: the Host a request names, the Origin a
/// POST comes from, what anyone may have (the routes a room adds with `PageRouter.anyone`: the style
/// sheet, the script, the pairing page), the paired browser's session, and the CSRF token every form
/// carries. Only a request that passed it reaches a room's handler.
struct PageGate: Sendable {
    let names: StationNames
    let store: StationStore
    let frame: PageFrame
    /// How long a pairing lasts however often it is used: `web.session_days`.
    let sessionLifetime: TimeInterval
    /// The pairing page, for a browser that is not paired (with why, where it asked for another page).
    let unpaired: @Sendable (_ message: String?, _ status: Int) -> WebReply

    var words: Words { frame.words }

    func pass(_ request: WebRequest, to router: PageRouter) throws -> PageStep {
        let words = self.words
        guard names.allows(host: request.header("host")) else {
            frame.logger.notice(
                "owner's page: refused a request for \(request.header("host") ?? "no host") from \(request.client)")
            return .reply(
                frame.page(
                    words("page.problem.host.title"), paired: false, status: 421,
                    "<p class=\"problem\" role=\"alert\">\(words("page.problem.host.message"))</p>"))
        }
        let parts = request.components
        if request.method == .post, let origin = request.header("origin"), !Self.sameOrigin(origin, request) {
            throw WebProblem(
                403, words("page.problem.refused.title"), words("page.problem.other_site", ["origin": origin]))
        }
        if request.method == .other {
            throw WebProblem(405, words("page.problem.not_allowed.title"), words("page.problem.not_allowed.message"))
        }
        let found = router.route(post: request.method == .post, parts)
        if let (route, named) = found, route.access == .anyone {
            return try route.handler(PageRequest(request: request, visitor: nil, parameters: named))
        }
        guard let session = try session(of: request) else {
            return .reply(unpaired(parts.isEmpty ? nil : words("page.pair.first"), 401))
        }
        var visitor = PageVisitor(session: session, form: Form(fields: request.query, words: words))
        if request.method == .post {
            visitor.form = try checkedForm(request, session: session, words)
        }
        guard let (route, named) = found else {
            throw WebProblem.notFound(words("page.problem.no_page", ["path": request.path]), words)
        }
        if route.access == .owner && session.role != .owner {
            frame.logger.notice("owner's page: \(session.name), a household member's browser, refused \(request.path)")
            throw WebProblem(403, words("page.problem.owners.title"), words("page.problem.owners.message"))
        }
        return try PageFrame.$forMember.withValue(session.role == .member) {
            try route.handler(PageRequest(request: request, visitor: visitor, parameters: named))
        }
    }

    /// Whether `session` is over at `time`: unused for `sessionIdle`, or paired longer ago than
    /// `sessionLifetime`.
    func expired(_ session: WebSession, at time: Date) -> Bool {
        time.timeIntervalSince(session.lastSeen) > WebApp.sessionIdle
            || time.timeIntervalSince(session.created) > sessionLifetime
    }

    /// The session the request's cookie names and that is not over, or nil.
    func liveSession(of request: WebRequest) throws(StoreError) -> WebSession? {
        guard let token = request.cookies[WebApp.sessionCookie], !token.isEmpty, token.count <= 100,
            let session = try store.session(hash: Secrets.sha256(token)), !expired(session, at: frame.now())
        else { return nil }
        return session
    }

    /// The session the request's cookie names, or nil; one that is over is forgotten, and a visit is
    /// noted at most once a minute.
    private func session(of request: WebRequest) throws(StoreError) -> WebSession? {
        guard let token = request.cookies[WebApp.sessionCookie], !token.isEmpty, token.count <= 100 else { return nil }
        let hash = Secrets.sha256(token)
        guard let session = try store.session(hash: hash) else { return nil }
        let time = frame.now()
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
