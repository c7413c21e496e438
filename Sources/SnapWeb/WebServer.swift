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
