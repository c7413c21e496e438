import Foundation
import Glibc
import Logging
import SnapConfig
import SnapServices
import SnapTestSupport
import SnapUpdates
import Testing

@testable import SnapWeb

@Suite("The owner's page over a real socket")
struct WebServerTests {
    /// Runs the page's server on a free port of 127.0.0.1 until `body` returns.
    func serving(
        _ station: WebTestStation, tls: (certificate: String, key: String)? = nil,
        limits: ConnectionLimits = ConnectionLimits(), selfSigned: PageCertificate? = nil,
        started: (WebServer) -> Void = { _ in }, _ body: (_ base: String) async throws -> Void
    ) async throws {
        var web = StationConfig().web
        web.address = "127.0.0.1"
        web.port = 0
        if let tls {
            web.tls = .files
            web.tlsCertificate = tls.certificate
            web.tlsKey = tls.key
        }
        if selfSigned != nil { web.tls = .selfSigned }
        let server = WebServer(
            app: station.app, web: web, desk: station.desk, logger: Logger(label: "web-test"), limits: limits,
            selfSigned: selfSigned)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        // Generous: on two cores under the whole suite the pool may be busy for many seconds.
        _ = await eventually(every: .milliseconds(20)) { server.listeningPort != nil }
        let port = try #require(server.listeningPort, "the server did not start")
        started(server)
        let scheme = tls == nil && selfSigned == nil ? "http" : "https"
        #expect(station.desk.url == "\(scheme)://127.0.0.1:\(port)/pair")
        try await body("\(scheme)://127.0.0.1:\(port)")
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

    /// A TCP connection to `port` of 127.0.0.1 from `source` (any address of 127/8 is this machine's).
    private func connect(from source: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            throw TestFailure("cannot connect from \(source): errno \(errno)")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private func send(_ fd: Int32, _ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), 0) } }

    /// Whether the server closed `fd` (a read answers end of file) rather than leaving it waiting.
    private func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    /// The first bytes of the answer on `fd`, read without blocking: a blocking read would hold one of the
    /// cooperative pool's two threads, which the servers of the tests running beside it need.
    private func answer(_ fd: Int32, within seconds: Double = 10) async -> String {
        var answer = [UInt8](repeating: 0, count: 4096)
        var got = -1
        _ = await eventually(within: seconds, every: .milliseconds(5)) {
            got = recv(fd, &answer, answer.count, Int32(MSG_DONTWAIT))
            return got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
        return String(decoding: answer.prefix(max(0, got)), as: UTF8.self)
    }

    /// The status of a wrong code posted from `source` over a real socket.
    private func wrongCode(from source: String, port: Int, code: String) async throws -> Int {
        let fd = try connect(from: source, port: port)
        defer { close(fd) }
        let body = "code=\(code)"
        send(
            fd,
            "POST /pair HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let line = await answer(fd)
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("should count wrong pairing codes by the address the connection comes from")
    func wrongCodesByAddress() async throws {
        let station = try WebTestStation()
        try await serving(station) { base in
            let port = try #require(URL(string: base)?.port)
            let pairing = station.desk.open(now: station.now)
            let wrong = pairing.code == "00000000" ? "00000001" : "00000000"
            var flooder: [Int] = []
            for _ in 0..<6 { flooder.append(try await wrongCode(from: "127.0.0.30", port: port, code: wrong)) }
            #expect(flooder == [401, 401, 401, 401, 401, 429], "the sixth in a minute waits")
            #expect(try await wrongCode(from: "127.0.0.31", port: port, code: wrong) == 401, "another address does not")
        }
    }

    /// 64 slow sockets from 8 addresses, 8 each: half never finish their head, half their body.
    private func slowSockets(_ port: Int) throws -> [Int32] {
        try (0..<64).map { index in
            let fd = try connect(from: "127.0.0.\(10 + index / 8)", port: port)
            send(
                fd,
                index.isMultiple(of: 2)
                    ? "GET /pair HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    : "POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nc"
            )
            return fd
        }
    }

    @Test("should answer the owner while 64 slow sockets hang on, and hold each client to its share")
    func slowClients() async throws {
        let station = try WebTestStation()
        // Deadlines far away: only the caps decide here.
        let limits = ConnectionLimits(head: .seconds(120), body: .seconds(120), perClient: 8)
        try await serving(station, limits: limits) { base in
            let port = try #require(URL(string: base)?.port)
            let slow = try slowSockets(port)
            defer { for fd in slow { close(fd) } }
            // A ninth from an address that holds its eight is closed at once.
            let ninth = try connect(from: "127.0.0.10", port: port)
            defer { close(ninth) }
            #expect(await eventually(every: .milliseconds(20)) { closedByServer(ninth) }, "over its share")

            // The owner, from another address, is answered while they hang on.
            let owner = try connect(from: "127.0.0.2", port: port)
            defer { close(owner) }
            let asked = ContinuousClock.now
            send(owner, "GET /pair HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let answered = await answer(owner)
            let waited = ContinuousClock.now - asked
            #expect(answered.hasPrefix("HTTP/1.1 200"), "\(answered.prefix(100))")
            let open = slow.filter { !closedByServer($0) }.count
            print("slow clients: the owner answered in \(waited) while \(open) of 64 slow sockets hung on")
            #expect(open == 64, "all still waiting when the owner was answered")
            // The figure is the printed wait (10 to 20 ms here, with the suite's other tests beside it);
            // a timed bound in a unit test only tells a working cap from none (then the owner waits for
            // the slow sockets' 120 s deadlines), so it is wide: the whole suite on 2 cores once held this
            // test's own task back 5.5 s.
            #expect(waited < .seconds(60), "the owner is answered at once, not after the slow sockets' deadlines")
        }
    }

    @Test("should close a connection whose head or body is still trickling in at its deadline")
    func deadlines() async throws {
        let station = try WebTestStation()
        let limits = ConnectionLimits(head: .seconds(1), body: .seconds(2), perClient: 8)
        try await serving(station, limits: limits) { base in
            let port = try #require(URL(string: base)?.port)
            let head = try connect(from: "127.0.0.20", port: port)
            let body = try connect(from: "127.0.0.21", port: port)
            defer {
                close(head)
                close(body)
            }
            send(head, "GET /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            send(
                body,
                "POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 1000\r\n\r\ncode=")
            // A byte to each every 200 ms, from a thread of its own (the cooperative pool may be busy for
            // seconds while the whole suite runs: a loop there once saw both closes only 13.9 s in): an idle
            // timer, restarted by every byte (Hummingbird's), never fires; only a deadline for the whole
            // head, and one for the whole body, close them.
            let closedAfter = await Self.trickle([head, body], seconds: 30).closed
            let headAfter = try #require(closedAfter[head], "a trickling head is closed while its bytes come")
            let bodyAfter = try #require(closedAfter[body], "a trickling body is closed while its bytes come")
            print(
                "deadlines: a trickling head closed after \(headAfter) (deadline 1 s), a body after \(bodyAfter) (2 s)")
            // Never before its deadline; and closed at all while bytes kept coming (an idle timer never fires):
            // the time it took is printed, only a missing or early close fails.
            #expect(headAfter >= .milliseconds(990), "not before the head's deadline")
            #expect(bodyAfter >= .milliseconds(1_990), "not before the body's deadline, the head's is shorter")
        }
    }

    @Test(
        "should let only a paired browser's checked upload stream its body; a GET or a stranger's POST keep the body's deadline"
    )
    func onlyCheckedUploadsStream() async throws {
        // The body's deadline is 20 s here: the checked upload's head must be checked before it, on a machine
        // busy with the whole suite (3 s, 6 s, then 12 s were too short in CI: the check is made on the
        // cooperative pool, two threads on 2 cores, which the suite's other tests keep busy).
        try await servingUploads("trickle", bodySeconds: 20) { port, station, browser, server in
            let upload =
                "POST /update/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
                + "X-Bundle-Name: snapstation-2.0.0.raucb\r\nContent-Type: application/octet-stream\r\n"
            // The paired browser's upload first, trickled until the page has checked its head and opened
            // the bundle's file: from then on each piece restarts its deadline.
            let checked = try connect(from: "127.0.0.34", port: port)
            defer { close(checked) }
            send(checked, upload + "Cookie: \(browser.cookie)\r\nX-CSRF-Token: \(browser.csrf)\r\n\r\n")
            // From a thread of its own, as below: a byte that waits on a busy cooperative pool for the
            // body's deadline is the client's silence, and the server rightly ends it.
            let bundleFolder = station.app.update.bundleFolder
            let opening = await Self.trickle([checked], seconds: 60, every: 50) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: bundleFolder)) ?? []
                return names.contains { $0.contains("snapstation-2.0.0.raucb") }
            }
            try #require(opening.until, "the page took the checked upload")
            try #require(opening.closed[checked] == nil, "the checked upload is open while the page takes it")
            // The page's writer is held up for the whole trickle (a slow card, a busy machine): the pieces
            // that come meanwhile fill the page's buffer, and the page stops reading the socket. Its wait
            // on itself is not the client's fault: the checked upload stays open through it.
            let writerHeld = DispatchSemaphore(value: 0)
            defer { writerHeld.signal() }
            _ = server.uploads.submit { writerHeld.wait() }
            let heads = [
                "GET /update/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n",
                upload + "\r\n",
                upload + "Cookie: \(browser.cookie)\r\nX-CSRF-Token: x\(browser.csrf)\r\n\r\n",
            ]
            let refused = try heads.indices.map { try connect(from: "127.0.0.\(30 + $0)", port: port) }
            defer { for fd in refused { close(fd) } }
            for (fd, head) in zip(refused, heads) { send(fd, head) }
            // A byte to each every 200 ms for 40 s, twice the body's deadline, from a thread of its own: the
            // cooperative pool may be busy for seconds while the whole suite runs.
            let closedAfter = await Self.trickle(refused + [checked], seconds: 40).closed
            let names = ["GET", "POST without a session", "POST with a wrong token", "POST paired with its token"]
            for (fd, name) in zip(refused + [checked], names) {
                print("trickled body: \(name) closed after \(closedAfter[fd].map { "\($0)" } ?? "no close in 40 s")")
            }
            for fd in refused {
                // The instant a deadline closes is ConnectionGuardTests' (on the loop's own time, to the
                // millisecond); here, in the real pipeline, that these are closed while their bytes come and
                // not before their deadline (the trickle's clock starts once every head is sent, the server's
                // as it read each: a close is seen up to the sending's few milliseconds early).
                let after = try #require(closedAfter[fd], "a trickled body that may not stream is closed")
                #expect(after >= .milliseconds(19_800), "not before the body's deadline: \(after)")
            }
            #expect(closedAfter[checked] == nil, "the checked upload streams on while its pieces come")
        }
    }

    @Test(
        "should not count the page's own wait against a checked upload: a slow check while its first pieces fill the buffer"
    )
    func slowCheckDoesNotCloseTheUpload() async throws {
        // The body's deadline is 10 s here, and the head waits to be checked for 12 s (in CI a busy machine
        // once took more than 10 s): once the first pieces fill the page's buffer, that wait is the page's
        // and does not count against the ordinary deadline either.
        try await servingUploads("slow-check", bodySeconds: 10) { port, station, browser, server in
            // The page's thread and the bundle's writer are both held: the head waits to be checked, and
            // once checked, the bundle's file waits to be opened, as on a loaded station with a slow card.
            let pageHeld = DispatchSemaphore(value: 0)
            let writerHeld = DispatchSemaphore(value: 0)
            defer {
                pageHeld.signal()
                writerHeld.signal()
            }
            _ = station.app.pageThread.submit { pageHeld.wait() }
            _ = server.uploads.submit { writerHeld.wait() }
            let checked = try connect(from: "127.0.0.40", port: port)
            defer { close(checked) }
            send(
                checked,
                "POST /update/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
                    + "X-Bundle-Name: snapstation-3.0.0.raucb\r\nContent-Type: application/octet-stream\r\n"
                    + "Cookie: \(browser.cookie)\r\nX-CSRF-Token: \(browser.csrf)\r\n\r\n")
            // Its first pieces, each read on its own, fill the page's buffer before the head is checked:
            // the page stops reading the socket. The check waits longer than the ordinary body's deadline
            // while the client goes on sending: the page's wait, not the client's silence.
            let burst = await Self.trickle([checked], seconds: 12, every: 15)
            #expect(burst.closed[checked] == nil, "a head the page has not checked yet is not the client's fault")
            pageHeld.signal()
            // Checked now, while the page's buffer is full and its writer held: the page waits on itself
            // for twice the body's deadline, while the client goes on sending.
            let closedAfter = await Self.trickle([checked], seconds: 20).closed
            let said = closedAfter[checked].map { "closed after \($0)" } ?? "open after 20 s"
            print("slow check: the checked upload \(said)")
            #expect(closedAfter[checked] == nil, "the page's own wait is not the client's silence")
        }
    }

    /// A station that takes bundles, a browser paired with it, and its server, whose deadlines are short
    /// for the tests that trickle: 1 s for a head, `bodySeconds` for a body (long enough for a checked upload's
    /// head to be checked on a loaded machine; before that it has the ordinary deadline, as every request
    /// has).
    private func servingUploads(
        _ name: String, bodySeconds: Int64 = 3,
        _ body: (_ port: Int, _ station: WebTestStation, _ browser: WebTestStation.Browser, _ server: WebServer)
            async throws -> Void
    ) async throws {
        let folder = TemporaryDirectory(name)
        let station = try Self.updatingStation(in: folder)
        let browser = try await station.pair()
        var server: WebServer?
        let started: (WebServer) -> Void = { server = $0 }
        let limits = ConnectionLimits(head: .seconds(1), body: .seconds(bodySeconds), perClient: 8)
        try await serving(station, limits: limits, started: started) { base in
            try await body(try #require(URL(string: base)?.port), station, browser, try #require(server))
        }
    }

    /// A station whose page can take a bundle: RAUC's stand-in and the updater in `folder`.
    private static func updatingStation(
        in folder: TemporaryDirectory, configure: (inout StationConfig) -> Void = { _ in }
    ) throws -> WebTestStation {
        let rauc = try FakeRAUC(in: folder.path + "/system")
        let updater = SlotUpdater(
            rauc: rauc.path, folder: folder.path + "/records", imageVersion: "1.0.0", logger: Logger(label: "test"))
        return try WebTestStation(updater: updater, configure: configure)
    }

    /// Sends a byte to each socket every 200 ms (or `milliseconds`; sooner after an answer came) for
    /// `seconds` or until `done` holds, on a thread of its own, and notes when the server ended each (from
    /// the start) and whether `done` came.
    private static func trickle(
        _ sockets: [Int32], seconds: Double, every milliseconds: Int32 = 200,
        until done: @escaping @Sendable () -> Bool = { false }
    ) async -> (closed: [Int32: Duration], until: Bool) {
        await withCheckedContinuation { continuation in
            Thread {
                let started = ContinuousClock.now
                var closed: [Int32: Duration] = [:]
                var reached = false
                while ContinuousClock.now - started < .seconds(seconds), closed.count < sockets.count {
                    if done() {
                        reached = true
                        break
                    }
                    for fd in sockets where closed[fd] == nil {
                        if endedAfterAnswer(fd) {
                            closed[fd] = ContinuousClock.now - started
                        } else {
                            _ = Glibc.send(fd, "1", 1, Int32(MSG_NOSIGNAL))
                        }
                    }
                    // Until one of them has news (an answer, its end), or the next byte's time.
                    var open = sockets.filter { closed[$0] == nil }.map {
                        pollfd(fd: $0, events: Int16(POLLIN), revents: 0)
                    }
                    _ = poll(&open, nfds_t(open.count), milliseconds)
                }
                continuation.resume(returning: (closed, reached))
            }.start()
        }
    }

    /// Whether the server ended `fd`, reading past whatever answer it sent first (a 401 or a 413 comes
    /// before the body's end).
    private static func endedAfterAnswer(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if got > 0 { continue }
            return got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    @Test(
        "should stream a bundle sent from the page to the data partition, and refuse one without its token or too large"
    )
    func bundleUpload() async throws {
        let folder = TemporaryDirectory("upload")
        let station = try Self.updatingStation(in: folder, configure: { $0.update.maxBundleMB = 1 })
        let browser = try await station.pair()
        try await serving(station) { base in
            let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))
            // Larger than any form the page takes (64 KB): it streams, it is not collected.
            let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            func send(_ body: [UInt8], token: String?, name: String = "snapstation-2.0.0.raucb") async throws
                -> HTTPResponse
            {
                var headers = [
                    ("Cookie", browser.cookie), ("Content-Type", "application/octet-stream"), ("X-Bundle-Name", name),
                ]
                if let token { headers.append(("X-CSRF-Token", token)) }
                return try await client.send(
                    HTTPRequest(method: "POST", url: base + "/update/upload", headers: headers, body: body))
            }
            let kept = try await send(bytes, token: browser.csrf)
            #expect(kept.status == 303 && kept.header("location")?.hasPrefix("/update?uploaded=snapstation") == true)
            let path = station.app.update.bundleFolder + "/snapstation-2.0.0.raucb"
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == bytes, "whole, byte for byte")
            #expect(try await send(bytes, token: nil).status == 403, "no CSRF token, no upload")
            #expect(try await send(bytes, token: browser.csrf, name: "evil.sh").status == 415)
            let large = try await send([UInt8](repeating: 7, count: (1 << 20) + 1), token: browser.csrf)
            #expect(large.status == 413 && String(decoding: large.body, as: UTF8.self).contains("larger than 1 MB"))
            let names = try FileManager.default.contentsOfDirectory(atPath: station.app.update.bundleFolder)
            #expect(names == ["snapstation-2.0.0.raucb"], "nothing of the refused ones is left: \(names)")
        }
    }

    @Test("should serve https with the configured certificate")
    func https() async throws {
        let folder = TemporaryDirectory("web-tls")
        _ = try TestCertificate.make(in: folder.path)
        let station = try WebTestStation(secure: true)
        try await serving(station, tls: (folder.path + "/cert.pem", folder.path + "/key.pem")) { base in
            let client = HTTPClient(
                connectTimeout: .seconds(2), totalTimeout: .seconds(30), caFile: folder.path + "/cert.pem")
            let gate = try await client.send(HTTPRequest(url: base + "/pair"))
            #expect(gate.status == 200)
            #expect(gate.header("strict-transport-security") == "max-age=15552000", "HSTS over https")
            // TLS 1.2 and 1.3 only: openssl's client offering 1.0 or 1.1 alone gets no session.
            let port = try #require(URL(string: base)?.port)
            func handshake(_ version: String) throws -> Bool {
                let openssl = Process()
                openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                openssl.arguments = [
                    "s_client", "-connect", "127.0.0.1:\(port)", version, "-cipher", "DEFAULT@SECLEVEL=0", "-brief",
                ]
                openssl.standardInput = FileHandle(forReadingAtPath: "/dev/null")
                openssl.standardOutput = FileHandle.nullDevice
                openssl.standardError = FileHandle.nullDevice
                try openssl.run()
                openssl.waitUntilExit()
                return openssl.terminationStatus == 0
            }
            #expect(try !handshake("-tls1"), "TLS 1.0 refused")
            #expect(try !handshake("-tls1_1"), "TLS 1.1 refused")
            #expect(try handshake("-tls1_2"), "TLS 1.2 taken")
            do {
                _ = try await HTTPClient().send(HTTPRequest(url: base + "/pair"))
                Issue.record("an unverifiable certificate was accepted")
            } catch {
                #expect((error as? HTTPError)?.kind == .tls, "\(error)")
            }
        }
    }

    @Test("should make its own certificate once, keep it, serve https with it, and show its fingerprint when pairing")
    func selfSigned() async throws {
        let folder = TemporaryDirectory("web-self-signed")
        let made = try PageCertificate.kept(
            in: folder.path + "/tls", names: ["kitchen.local", "localhost"], addresses: ["127.0.0.1"])
        let again = try PageCertificate.kept(
            in: folder.path + "/tls", names: ["other.local"], addresses: ["127.0.0.1"])
        #expect(again == made, "kept, not made again")
        let mode = try FileManager.default.attributesOfItem(atPath: made.keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the key is the station's alone")
        // The fingerprint as openssl prints it, which is what a browser shows.
        let openssl = Process()
        let output = Pipe()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "x509", "-in", made.certificatePath, "-noout", "-fingerprint", "-sha256", "-ext", "subjectAltName",
        ]
        openssl.standardOutput = output
        try openssl.run()
        openssl.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("sha256 Fingerprint=\(made.fingerprint)"), "\(printed)")
        #expect(printed.contains("DNS:kitchen.local") && printed.contains("IP Address:127.0.0.1"), "\(printed)")

        let station = try WebTestStation(secure: true)
        try await serving(station, selfSigned: made) { base in
            let client = HTTPClient(
                connectTimeout: .seconds(2), totalTimeout: .seconds(30), caFile: made.certificatePath)
            let gate = try await client.send(HTTPRequest(url: base + "/pair"))
            #expect(gate.status == 200, "verified against the certificate it made, by its address")
            #expect(station.desk.open(now: station.now).fingerprint == made.fingerprint, "for the pairing screen")
        }
        // A key that is not the certificate's (a stop between the two writes): both are made anew.
        let other = try PageCertificate.kept(in: folder.path + "/other", names: ["x.local"], addresses: [])
        try FileManager.default.removeItem(atPath: made.keyPath)
        try FileManager.default.copyItem(atPath: other.keyPath, toPath: made.keyPath)
        let remade = try PageCertificate.kept(in: folder.path + "/tls", names: ["kitchen.local"], addresses: [])
        #expect(remade.fingerprint != made.fingerprint && remade.fingerprint != other.fingerprint)
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
            _ = await eventually(every: .milliseconds(20)) {
                log.all.joined(separator: "\n").contains("trying again in 30 s")
            }
            #expect(log.all.joined(separator: "\n").contains("owner's page:"))
            #expect(log.all.joined(separator: "\n").contains("trying again in 30 s"))
            #expect(second.listeningPort == nil)
        }
    }
}
