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

/// The owner's page on the network: Hummingbird's HTTP/1 server (and TLS when the config names a
/// certificate), a `Service` in the station's group.
///
/// Hummingbird only parses and writes HTTP here: each request's body is read (at most `Form.maxBytes`),
/// and the request goes to `WebApp` on the page's own thread, one at a time. A port that cannot be had
/// (taken by another program) is logged and tried again every 30 s; the station runs on without its page.
public final class WebServer: Service {
    let app: WebApp
    let web: StationConfig.Web
    let desk: PairingDesk
    let logger: Logger
    let limits: ConnectionLimits
    /// Where an update bundle or a backup sent from the page is written as it arrives, off the page's thread.
    let uploads = SerialThread(name: "web-uploads")
    /// Where a streamed reply (a backup) is made, a piece at a time, off the page's thread.
    let streams = SerialThread(name: "web-streams")
    private let port = Lock<Int?>(nil)

    /// The station's own certificate, for `web.tls = "self-signed"`.
    let selfSigned: PageCertificate?

    public init(
        app: WebApp, web: StationConfig.Web, desk: PairingDesk, logger: Logger,
        limits: ConnectionLimits = ConnectionLimits(), selfSigned: PageCertificate? = nil
    ) {
        self.app = app
        self.limits = limits
        self.selfSigned = selfSigned
        desk.fingerprint = web.tls == .selfSigned ? selfSigned?.fingerprint : nil
        self.web = web
        self.desk = desk
        self.logger = logger
    }

    /// The port the page listens on, once it does.
    public var listeningPort: Int? { port.withLock { $0 } }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await serve()
                return
            } catch {
                desk.url = ""
                port.withLock { $0 = nil }
                logger.error("owner's page: \(error); trying again in 30 s")
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(30)) }
            }
        }
    }

    private func serve() async throws {
        let builder: HTTPServerBuilder
        let (limits, counts) = (self.limits, ConnectionCounts())
        let http = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(limits: limits, counts: counts)],
                idleTimeout: .seconds(60)))
        let files: (certificate: String, key: String)?
        switch web.tls {
        case .off: files = nil
        case .files: files = (web.tlsCertificate, web.tlsKey)
        case .selfSigned:
            guard let selfSigned else { throw PageCertificate.Failure(description: "the page has no certificate") }
            files = (selfSigned.certificatePath, selfSigned.keyPath)
        }
        if let files {
            let chain = try NIOSSLCertificate.fromPEMFile(files.certificate).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: files.key, format: .pem)
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            // NIOSSL's default minimum is TLS 1.0; 1.0 and 1.1 are deprecated (RFC 8996).
            tls.minimumTLSVersion = .tlsv12
            builder = try .tls(http, tlsConfiguration: tls)
        } else {
            builder = http
        }
        let responder = PageResponder(app: app, writer: uploads, streams: streams)
        let application = Application(
            responder: responder, server: builder,
            configuration: ApplicationConfiguration(
                address: .hostname(web.address, port: web.port), serverName: nil, backlog: 64,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.total)),
            onServerRunning: { [self] channel in
                let web = self.web
                let bound = channel.localAddress?.port ?? web.port
                // The address before the port: LocalNameService waits for the port, then reads the address.
                self.desk.url = WebAddress.publicURL(web, port: bound)
                self.port.withLock { $0 = bound }
                self.logger.notice(
                    "owner's page at \(self.desk.url)",
                    metadata: ["listening": "\(web.address):\(bound)", "tls": "\(web.tls.rawValue)"])
            },
            logger: Self.quiet(logger))
        try await application.run()
    }

    /// Hummingbird's own logging: its per-request lines are debug noise for an appliance.
    private static func quiet(_ logger: Logger) -> Logger {
        var logger = logger
        logger.logLevel = max(logger.logLevel, .notice)
        return logger
    }
}

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
            method: .post, path: request.uri.path, headers: Self.headers(of: request),
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
        return response(await app.received(kind, path, problem: problem))
    }

    /// Hummingbird's response for a page's reply; a streamed one is made on `streams`.
    func response(_ reply: WebReply) -> Response {
        guard let stream = reply.stream else { return Self.response(reply) }
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let streams = self.streams
        return Response(
            status: HTTPResponse.Status(code: reply.status), headers: fields,
            body: ResponseBody { writer in try await Self.send(stream, on: streams, to: &writer) })
    }

    /// Makes `stream` on `thread` and writes its pieces as they come: at most four pieces wait, so a slow
    /// browser holds the making back rather than the station's memory growing; a browser that goes away
    /// stops it.
    static func send(_ stream: StreamedBody, on thread: SerialThread, to writer: inout any ResponseBodyWriter)
        async throws
    {
        let (pieces, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        let room = DispatchSemaphore(value: 4)
        let gone = Lock(false)
        let started = thread.submit {
            do {
                try stream.write { piece in
                    room.wait()
                    if gone.withLock({ $0 }) { throw CancellationError() }
                    continuation.yield(ByteBuffer(bytes: piece))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        guard started else { throw CancellationError() }
        do {
            for try await piece in pieces {
                try await writer.write(piece)
                room.signal()
            }
        } catch {
            gone.withLock { $0 = true }
            room.signal()
            throw error
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

/// The address the pairing QR code shows.
enum WebAddress {
    static func publicURL(_ web: StationConfig.Web, port: Int) -> String {
        if !web.publicURL.isEmpty { return web.publicURL }
        let scheme = web.servesHTTPS ? "https" : "http"
        let host = ["0.0.0.0", "::"].contains(web.address) ? (firstNetworkAddress() ?? "127.0.0.1") : web.address
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shown)\(port == (scheme == "http" ? 80 : 443) ? "" : ":\(port)")/pair"
    }

    /// The first IPv4 address of an interface that is up and not loopback (what a phone on the same
    /// network reaches).
    static func firstNetworkAddress() -> String? {
        StationNames.interfaces().first { !$0.loopback && !$0.address.contains(":") }?.address
    }

}
