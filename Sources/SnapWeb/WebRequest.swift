import Foundation
import SnapText

/// One request to the owner's page, as the pages read it: no server types, so the pages can be tested
/// without a socket and run on the page's own thread.
public struct WebRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case head = "HEAD"
        case post = "POST"
        case other
    }

    public var method: Method
    /// The path, percent-decoded, without the query.
    public var path: String
    /// The query's fields; the page reads them as a `Form` in its language.
    var query: [(name: String, value: String)]
    public var body: [UInt8]
    public var headers: [String: String]
    /// The address the request came from ("" where no socket is involved, as in tests).
    public var client: String

    public init(
        method: Method, path: String, query: String = "", body: [UInt8] = [], headers: [String: String] = [:],
        client: String = ""
    ) {
        self.method = method
        self.client = client
        self.path = path
        // A query that does not read is read as none: nothing of its problem is shown, so any language does.
        self.query = (try? Form(parsing: query, words: Words()))?.fields ?? []
        self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Builds a request from a target such as `/day/2026-11-23?x=1`.
    public init(
        method: Method, target: String, body: [UInt8] = [], headers: [String: String] = [:], client: String = ""
    ) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        self.init(
            method: method, path: path, query: parts.count > 1 ? String(parts[1]) : "", body: body, headers: headers,
            client: client)
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The cookies the browser sent.
    public var cookies: [String: String] {
        var cookies: [String: String] = [:]
        for pair in (header("cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            cookies[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return cookies
    }

    /// The path's parts: `/meal/X/delete` is ["meal", "X", "delete"].
    public var components: [String] { path.split(separator: "/").map(String.init) }
}

/// What the page answers.
public struct WebReply: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body too large to hold (a backup): made after the head goes out, a piece at a time, in place of
    /// `body`.
    public var stream: StreamedBody?

    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        stream: StreamedBody? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    public func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The whole body, a streamed one made here (for tests and tools: a stream may be large).
    public func collected() throws -> [UInt8] {
        guard let stream else { return body }
        let pieces = try stream.open()
        var bytes: [UInt8] = []
        while let piece = try pieces.next() { bytes += piece }
        return bytes
    }

    static func html(_ html: HTML, status: Int = 200) -> WebReply {
        WebReply(status: status, headers: htmlHeaders, body: Array(html.text.utf8))
    }

    static let htmlHeaders = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]

    static func text(_ text: String, status: Int) -> WebReply {
        WebReply(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array((text + "\n").utf8))
    }

    /// After a form: back to a page with GET (303), so a reload does not post again.
    static func redirect(_ location: String) -> WebReply {
        WebReply(status: 303, headers: [("Location", location), ("Cache-Control", "no-store")])
    }
}

/// What a route answers on the page's thread: its reply, or a call to make first (the group's server, in
/// the page's jobs) and what to do with its answer, on the page's thread again.
enum PageStep: Sendable {
    case reply(WebReply)
    case after(@Sendable () async -> @Sendable () throws -> PageStep)
}

/// A request the page cannot carry out, said the way the page shows it (in its language).
struct WebProblem: Error, Sendable {
    var status: Int
    var title: String
    var message: String

    init(_ status: Int, _ title: String, _ message: String) {
        self.status = status
        self.title = title
        self.message = message
    }

    static func notFound(_ what: String, _ words: Words) -> WebProblem {
        WebProblem(404, words("page.problem.not_found.title"), what)
    }
}

/// A reply's body made as it goes out: `open` gives its pieces, each made when the server asks for it
/// (on a thread of the server's: it may block on files), so nothing is made ahead of the browser.
public struct StreamedBody: Sendable {
    public let open: @Sendable () throws -> any BodyPieces

    public init(_ open: @escaping @Sendable () throws -> any BodyPieces) {
        self.open = open
    }
}

/// A streamed body's pieces, made one at a time.
public protocol BodyPieces: AnyObject {
    /// The next piece; nil after the last.
    func next() throws -> [UInt8]?
}
