import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

@Suite("HTTPClient over libcurl", .serialized, .startsProcesses)
struct HTTPClientTests {
    let fake: FakeServices
    init() async throws { fake = try await FakeServices() }

    @Test("should return status, headers and body")
    func get() async throws {
        let response = try await HTTPClient().send(HTTPRequest(url: fake.baseURL + "/_requests"))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json")
        #expect(response.body.first == UInt8(ascii: "["))
    }

    @Test("should time out on a server that does not answer, and on one that drips")
    func timeouts() async throws {
        try await fake.queue("storage", ["timeout", "drip"])
        let client = HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(1))
        // .timedOut can only be the client's own 1 s limit: the silent server answers (500) after 30 s, and
        // the drip sends bytes for 30 s. No wall-clock bound here: this machine's load is not the subject.
        for _ in 0..<2 {
            do {
                _ = try await client.send(
                    HTTPRequest(
                        method: "POST", url: fake.baseURL + "/storage/v1/object/b/t.jpg",
                        headers: [("apikey", "test-key"), ("Authorization", "Bearer test-key")], body: [1]))
                Issue.record("a silent server gave an answer")
            } catch {
                #expect(error.kind == .timedOut)
            }
        }
    }

    @Test("should say unreachable when nothing listens, and connection lost on a reset")
    func brokenConnections() async throws {
        do {
            _ = try await HTTPClient().send(HTTPRequest(url: "http://127.0.0.1:1/"))
            Issue.record("port 1 answered")
        } catch {
            #expect(error.kind == .unreachable)
        }
        try await fake.queue("storage", ["reset"])
        do {
            _ = try await HTTPClient().send(
                HTTPRequest(
                    method: "POST", url: fake.baseURL + "/storage/v1/object/b/x.jpg",
                    headers: [("apikey", "test-key"), ("Authorization", "Bearer test-key")], body: [1, 2, 3]))
            Issue.record("a reset connection gave an answer")
        } catch {
            #expect(error.kind == .connectionLost)
        }
    }

    @Test("should abort a transfer when its task is cancelled")
    func cancel() async throws {
        try await fake.queue("storage", ["timeout"])
        // The server stays silent for 30 s and the total timeout is 20 s: only cancellation gives .cancelled.
        let task = Task {
            try await HTTPClient(totalTimeout: .seconds(20)).send(
                HTTPRequest(
                    method: "POST", url: fake.baseURL + "/storage/v1/object/b/slow.jpg",
                    headers: [("apikey", "test-key"), ("Authorization", "Bearer test-key")], body: [1]))
        }
        // Cancelled once the request reached the server (it answers nothing for 30 s).
        let reached = await eventually(every: .milliseconds(20)) {
            ((try? await fake.requests()) ?? []).contains { ($0["path"] as? String)?.hasSuffix("slow.jpg") == true }
        }
        #expect(reached)
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the cancelled transfer completed")
        } catch let error as HTTPError {
            #expect(error.kind == .cancelled)
        }
    }

    @Test("should stop reading a body larger than the request allows, and say so")
    func bodyLimit() async throws {
        let client = HTTPClient()
        let error = await #expect(throws: HTTPError.self) {
            _ = try await client.send(HTTPRequest(url: fake.baseURL + "/_requests", maxBodyBytes: 1))
        }
        #expect(error?.kind == .bodyTooLarge)
        let small = try await client.send(HTTPRequest(url: fake.baseURL + "/_requests", maxBodyBytes: 1 << 20))
        #expect(small.status == 200)
    }

    @Test("should report upload progress up to the whole body")
    func progress() async throws {
        let seen = Lock<[Double]>([])
        let body = [UInt8](repeating: 7, count: 4_000_000)
        let response = try await HTTPClient().send(
            HTTPRequest(
                method: "POST", url: fake.baseURL + "/_control/sink", body: body)
        ) { fraction in seen.withLock { $0.append(fraction) } }
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("4000000"), "the whole body arrived")
        let fractions = seen.withLock { $0 }
        #expect(fractions.last == 1)
        #expect(fractions == fractions.sorted(), "progress only grows")
    }
}

// The proxy the environment names is tested through the real binary, in a child's environment
// (MealEndToEndTests "should go through the proxy the environment names…"): a `setenv` here raced every
// `getenv` of the tests running beside it (a crash in getenv took the whole suite down in CI, 2026-12-02).

@Suite("HTTPClient TLS", .serialized, .startsProcesses)
struct HTTPClientTLSTests {
    @Test("should refuse a certificate it cannot verify, and accept it when told to trust its CA")
    func verifies() async throws {
        let folder = TemporaryDirectory("tls")
        _ = try TestCertificate.make(in: folder.path)
        let fake = try await FakeServices(tls: (folder.path + "/cert.pem", folder.path + "/key.pem"))
        let url = "https://127.0.0.1:\(fake.port)/_requests"
        do {
            _ = try await HTTPClient().send(HTTPRequest(url: url))
            Issue.record("an unverifiable certificate was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
        }
        let trusted = try await HTTPClient(caFile: folder.path + "/cert.pem").send(HTTPRequest(url: url))
        #expect(trusted.status == 200)

        // What the station says of it: not "no network", and for the AI not "HTTP 0".
        let analyzer = OpenAIAnalyzer(
            settings: OpenAIAnalyzer.Settings(baseURL: "https://127.0.0.1:\(fake.port)/v1", key: "test-key"),
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5)), logger: Logger(label: "test"))
        do {
            _ = try await analyzer.analyse(jpeg: TestImages.jpeg(width: 640, height: 480))
            Issue.record("the analysis went through an unverified certificate")
        } catch {
            guard case .untrusted = error else {
                Issue.record("expected .untrusted, got \(error)")
                return
            }
            #expect(error.message.contains("certificate could not be verified"))
        }
        let backend = SupabaseBackend(
            projectURL: "https://127.0.0.1:\(fake.port)", bucket: "snapstation", key: "k",
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5)), logger: Logger(label: "test"))
        do {
            _ = try await backend.shared(in: "Family", now: Date())
            Issue.record("the listing went through an unverified certificate")
        } catch {
            guard case .untrusted = error else {
                Issue.record("expected .untrusted, got \(error)")
                return
            }
            #expect(error.mayHeal, "kept and tried again: the clock may be wrong until NTP")
        }
    }
}

@Suite("HTTPClient: header values from outside", .startsProcesses)
struct HTTPClientHeaderTests {
    @Test("should not send a request whose header value holds a line break: it would add header lines")
    func lineBreaks() async {
        let client = HTTPClient(connectTimeout: .seconds(1), totalTimeout: .seconds(2))
        for value in ["Bearer a\r\nX-Evil: 1", "a\nb", "a\u{0}b"] {
            do {
                _ = try await client.send(HTTPRequest(url: "http://127.0.0.1:9/", headers: [("Authorization", value)]))
                Issue.record("sent \(value.debugDescription)")
            } catch {
                #expect(error.message.contains("line break"), "\(error)")
            }
        }
    }
}
