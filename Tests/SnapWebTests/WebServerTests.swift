import Foundation
import Logging
import SnapConfig
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapWeb

@Suite("The owner's page over a real socket")
struct WebServerTests {
    /// Runs the page's server on a free port of 127.0.0.1 until `body` returns.
    func serving(
        _ station: WebTestStation, tls: (certificate: String, key: String)? = nil,
        _ body: (_ base: String) async throws -> Void
    ) async throws {
        var web = StationConfig().web
        web.address = "127.0.0.1"
        web.port = 0
        if let tls {
            web.tlsCertificate = tls.certificate
            web.tlsKey = tls.key
        }
        let server = WebServer(app: station.app, web: web, desk: station.desk, logger: Logger(label: "web-test"))
        let task = Task { try await server.run() }
        defer { task.cancel() }
        // Generous: on two cores under the whole suite the pool may be busy for many seconds.
        _ = await eventually(within: 90, every: .milliseconds(20)) { server.listeningPort != nil }
        let port = try #require(server.listeningPort, "the server did not start")
        #expect(station.desk.url == "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)/pair")
        try await body("\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")
    }

    @Test("should serve the pairing gate, pair, and refuse a body over 64 KB before reading it")
    func http() async throws {
        let station = try WebTestStation()
        try station.meal("m1", title: "Soup")
        try await serving(station) { base in
            let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))
            let gate = try await client.send(HTTPRequest(url: base + "/"))
            #expect(gate.status == 401)
            #expect(String(decoding: gate.body, as: UTF8.self).contains("Pair this browser"))
            #expect(gate.header("x-frame-options") == "DENY")
            let pairing = station.desk.open(now: station.now)
            let paired = try await client.send(
                HTTPRequest(
                    method: "POST", url: base + "/pair",
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", base)],
                    body: Array("code=\(pairing.code)".utf8)))
            #expect(paired.status == 303)
            let foreign = try await client.send(
                HTTPRequest(
                    method: "POST", url: base + "/pair",
                    headers: [
                        ("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "http://evil.example"),
                    ],
                    body: Array("code=123456".utf8)))
            #expect(foreign.status == 403)
            let cookie = try #require(paired.header("set-cookie")?.split(separator: ";").first.map(String.init))
            let today = try await client.send(HTTPRequest(url: base + "/", headers: [("Cookie", cookie)]))
            #expect(today.status == 200)
            #expect(String(decoding: today.body, as: UTF8.self).contains("Soup"))
            let head = try await client.send(
                HTTPRequest(method: "HEAD", url: base + "/", headers: [("Cookie", cookie)]))
            #expect(head.status == 200 && head.body.isEmpty)
            let huge = try await client.send(
                HTTPRequest(
                    method: "POST", url: base + "/shopping",
                    headers: [("Cookie", cookie), ("Content-Type", "application/x-www-form-urlencoded")],
                    body: [UInt8](repeating: 0x61, count: 200_000)))
            #expect(huge.status == 413)
            let delete = try await client.send(
                HTTPRequest(method: "DELETE", url: base + "/meal/m1", headers: [("Cookie", cookie)]))
            #expect(delete.status == 405)
            #expect(try station.store.storedMeal(.init("m1")) != nil)
        }
    }

    @Test("should serve https with the configured certificate")
    func https() async throws {
        let folder = TemporaryDirectory("web-tls")
        _ = try TestCertificate.make(in: folder.path)
        let station = try WebTestStation(secure: true)
        try await serving(station, tls: (folder.path + "/cert.pem", folder.path + "/key.pem")) { base in
            let client = HTTPClient(
                connectTimeout: .seconds(2), totalTimeout: .seconds(10), caFile: folder.path + "/cert.pem")
            let gate = try await client.send(HTTPRequest(url: base + "/pair"))
            #expect(gate.status == 200)
            do {
                _ = try await HTTPClient().send(HTTPRequest(url: base + "/pair"))
                Issue.record("an unverifiable certificate was accepted")
            } catch {
                #expect((error as? HTTPError)?.kind == .tls, "\(error)")
            }
        }
    }

    @Test("should keep trying a port that is taken, and say so")
    func portTaken() async throws {
        let station = try WebTestStation()
        try await serving(station) { base in
            let taken = Int(base.split(separator: ":").last!)!
            var web = StationConfig().web
            web.address = "127.0.0.1"
            web.port = taken
            let log = CapturedLog()
            let second = WebServer(app: station.app, web: web, desk: PairingDesk(), logger: log.logger)
            let task = Task { try await second.run() }
            defer { task.cancel() }
            _ = await eventually(within: 90, every: .milliseconds(20)) {
                log.all.joined(separator: "\n").contains("trying again in 30 s")
            }
            #expect(log.all.joined(separator: "\n").contains("owner's page:"))
            #expect(log.all.joined(separator: "\n").contains("trying again in 30 s"))
            #expect(second.listeningPort == nil)
        }
    }
}
