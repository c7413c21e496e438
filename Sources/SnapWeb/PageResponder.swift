import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SnapConfig
import SnapFiles
import SnapText
import Synchronization

/// Hands each request to the page (`WebApp.respond`, which makes it on the page's thread) and its reply
/// back to Hummingbird.
struct PageResponder: HTTPResponder {
    typealias Context = PageContext
    let app: WebApp
    /// Where an update bundle's or a backup's pieces are written as they arrive.
    let writer: SerialThread
    /// Where a streamed reply is made.
    let streams: SerialThread

    func respond(to request: Request, context: Context) async throws -> Response {
        // An update bundle or a backup streams to the data partition: never held in memory, nor in a Form.
        if request.method == .post, let kind = WebApp.Upload(path: request.uri.path) {
            return try await receive(kind, request, context: context)
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Form.maxBytes {
            return Self.tooLarge(app.words)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Form.maxBytes)
        } catch {
            return Self.tooLarge(app.words)
        }
        let headers = Self.headers(of: request)
        let method: WebRequest.Method =
            switch request.method {
            case .get: .get
            case .head: .head
            case .post: .post
            default: .other
            }
        let page = WebRequest(
            method: method, path: request.uri.path.removingPercentEncoding ?? request.uri.path,
            query: request.uri.query ?? "", body: Array(buffer: body), headers: headers,
            client: context.remoteAddress?.ipAddress ?? "")
        return response(await app.respond(page))
    }

    /// The request's headers as the pages read them.
    static func headers(of request: Request) -> [String: String] {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        // HTTP/1's Host header arrives as the request's authority.
        if let authority = request.head.authority { headers["host"] = authority }
        return headers
    }

    /// A bundle or a backup sent from the page's script: its head checked on the page's thread, its body
    /// written piece by piece on the writer's thread as it arrives, and kept only whole (`AtomicFile.Writer`).
    private func receive(_ kind: WebApp.Upload, _ request: Request, context: Context) async throws -> Response {
        let head = WebRequest(
            method: .post, path: request.uri.path, query: request.uri.query ?? "", headers: Self.headers(of: request),
            client: context.remoteAddress?.ipAddress ?? "")
        let target = try await app.pageThread.run { [app] in app.upload(kind, head) }
        let path: String
        let limit: Int
        switch target {
        case .refused(let reply): return Self.response(reply)
        case .file(let chosen, let most):
            path = chosen
            limit = most
        }
        // Checked: from now on each piece of the body restarts its deadline (ConnectionGuard).
        context.channel?.triggerUserOutboundEvent(ConnectionGuard.BodyStreams(), promise: nil)
        var problem: WebApp.UploadProblem?
        var file: AtomicFile.Writer?
        do {
            let opened = try await writer.run { () throws(FileError) in try AtomicFile.Writer(path: path) }
            file = opened
            var received = 0
            for try await chunk in request.body {
                received += chunk.readableBytes
                guard received <= limit else {
                    problem = .tooLarge
                    break
                }
                let bytes = Array(buffer: chunk)
                try await writer.run { () throws(FileError) in try opened.append(bytes) }
            }
            if problem == nil { try await writer.run { () throws(FileError) in try opened.commit() } }
        } catch {
            problem = .failed("\(error)")
        }
        // What was not kept is unlinked on the writer's thread too (it may be a GB), not on the pool.
        if problem != nil, let file { _ = try? await writer.run { file.discard() } }
        return response(await app.received(kind, head, path, problem: problem))
    }

    /// Hummingbird's response for a page's reply; a streamed one is made on `streams`.
    func response(_ reply: WebReply) -> Response {
        guard let stream = reply.stream else { return Self.response(reply) }
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let (streams, logger) = (self.streams, app.logger)
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: fields,
            body: ResponseBody { writer in
                do {
                    try await Self.send(stream, on: streams, to: &writer)
                } catch {
                    logger.error("owner's page: a streamed reply was cut short: \(error)")
                    throw error
                }
            })
    }

    /// Writes `stream`'s pieces, each made on `thread` while the one before it goes to the socket: one
    /// piece ahead of the browser at most, and a browser that goes away stops it.
    static func send(_ stream: StreamedBody, on thread: SerialThread, to writer: inout any ResponseBodyWriter)
        async throws
    {
        let pieces = try await thread.run { () throws -> PlacedPieces in PlacedPieces(try stream.open()) }
        var piece = try await thread.run { () throws -> [UInt8]? in try pieces.next() }
        while let current = piece {
            // The next piece is made while this one goes out: one ahead, no more.
            async let following = thread.run { () throws -> [UInt8]? in try pieces.next() }
            try await writer.write(ByteBuffer(bytes: current))
            piece = try await following
        }
        try await writer.finish(nil)
    }

    /// Hummingbird's response for a page's reply.
    static func response(_ reply: WebReply) -> Response {
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        fields[.contentLength] = "\(reply.body.count)"
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    /// 413, in the page's language (of its last request).
    static func tooLarge(_ words: Words) -> Response {
        Response(
            status: .contentTooLarge,
            headers: HTTPFields(
                [HTTPField(name: .contentType, value: "text/plain; charset=utf-8")]
                    + WebApp.securityHeaders.compactMap { header in
                        HTTPField.Name(header.name).map { HTTPField(name: $0, value: header.value) }
                    }),
            body: ResponseBody(
                byteBuffer: ByteBuffer(
                    string: words("page.problem.too_large.message", ["kb": words.integer(Form.maxBytes / 1024)]) + "\n")
            ))
    }
}

/// A streamed body's pieces, kept for the thread that makes them (`WebServer.streams`), one call at a time.
final class PlacedPieces: Sendable {
    private let pieces: Lock<any BodyPieces>

    init(_ pieces: sending any BodyPieces) { self.pieces = Lock(pieces) }

    func next() throws -> [UInt8]? { try pieces.withLock { try $0.next() } }
}

/// Hummingbird's basic context with the client's address (the pairing desk counts wrong codes per client).
struct PageContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The connection, which the page tells when a checked upload may stream (`ConnectionGuard.BodyStreams`).
    let channel: (any Channel)?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
