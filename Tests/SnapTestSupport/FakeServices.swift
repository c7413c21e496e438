import Foundation
import Glibc
import SnapFiles
import Synchronization

/// The fake cloud services (Tests/Fakes/fake_services.py) running on 127.0.0.1 for one test.
public final class FakeServices: @unchecked Sendable {
    public let port: Int
    private let process = Process()
    private let input = Pipe()

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A TCP port nothing listens on right now: bound to port 0, read, and released.
    public static func freePort() -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length)
                return getsockname(socket, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The script beside the tests, found from this source file's path.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fakes/fake_services.py").path

    /// The throwaway PostgreSQL cluster `Tests/Group/postgres.sh start` made (its socket folder, port and
    /// user in the environment), which the fake's Supabase routes need; nil when there is none.
    public static var postgres: [String]? {
        let environment = ProcessInfo.processInfo.environment
        guard let socket = environment["SNAPSTATION_PG_SOCKET"], !socket.isEmpty else { return nil }
        return ["--postgres", socket, "--pg-port", environment["SNAPSTATION_PG_PORT"] ?? "5432"]
            + ["--pg-user", environment["SNAPSTATION_PG_USER"] ?? "postgres"]
    }

    /// Why the Supabase tests cannot run here, for their skip message.
    public static let noPostgres =
        "no PostgreSQL for the Supabase stand-in: run Tests/Group/postgres.sh start and export its env (Tests/run does)"

    /// Starts the fake on `port` (0: any free port), with TLS when given a certificate and key; its
    /// Supabase routes run against the test cluster when there is one (`postgres`).
    /// Its first line is read on a thread of its own: Python takes a second or more to start under load,
    /// and the concurrency pool's two threads are the other tests'.
    /// `jwtExpiry`: how long the stand-in's Auth access tokens last (Supabase's default: 3,600 s).
    public init(tls: (cert: String, key: String)? = nil, port: Int = 0, jwtExpiry: Int? = nil) async throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.script, "--port", "\(port)"]
        if let tls { arguments += ["--cert", tls.cert, "--key", tls.key] }
        arguments += Self.postgres ?? []
        if let jwtExpiry { arguments += ["--jwt-expiry", "\(jwtExpiry)"] }
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread { continuation.resume(returning: String(decoding: reader.availableData, as: UTF8.self)) }.start()
        }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw FakeError(message: "the fake services did not start: \(line)") }
        self.port = port
    }

    /// Closing its standard input ends it; it is reaped on a thread of its own.
    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        let process = process
        Thread { process.waitUntilExit() }.start()
    }

    /// Queues behaviours for the next requests to `service` ("openai", "storage", "rest").
    public func queue(_ service: String, _ faults: [String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: [service: faults])
        var request = URLRequestLite(url: baseURL + "/_control/faults", body: [UInt8](body))
        _ = try await request.send()
    }

    /// Forgets the faults queued and not yet met.
    public func clearFaults() async throws {
        var request = URLRequestLite(url: baseURL + "/_control/faults/clear", body: [])
        _ = try await request.send()
    }

    /// A GET on the fake, decoded as JSON (for its PostgREST rows, for example).
    public func get(_ path: String) async throws -> Any {
        var request = URLRequestLite(url: baseURL + path, body: nil)
        return try JSONSerialization.jsonObject(with: Data(try await request.send()))
    }

    /// A POST to one of the fake's control routes, decoded as JSON.
    public func control(_ path: String, _ body: [String: Any] = [:]) async throws -> Any {
        var request = URLRequestLite(
            url: baseURL + path, body: [UInt8](try JSONSerialization.data(withJSONObject: body)))
        return try JSONSerialization.jsonObject(with: Data(try await request.send()), options: [.fragmentsAllowed])
    }

    /// Stops the Supabase stand-in's clock (the time Auth issues its tokens at, and Auth, PostgREST and
    /// Storage check them against: POST /_control/clock) and answers a `HeldClock` standing at that time,
    /// for the code under test; `advance(_:by:)` moves both, so an expiry is passed without sleeping.
    public func holdClock() async throws -> HeldClock {
        let answer = try await control("/_control/clock", ["hold": true]) as? [String: Any]
        guard let now = answer?["now"] as? Double else {
            throw FakeError(message: "the clock answered \(answer ?? [:])")
        }
        return HeldClock(wall: Date(timeIntervalSince1970: now))
    }

    /// Moves the stand-in's held clock and `clock` on by `duration`.
    public func advance(_ clock: HeldClock, by duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        _ = try await control("/_control/clock", ["advance": seconds])
        clock.advance(by: duration)
    }

    /// A member of the Supabase stand-in: its access token when it joined (`key`), the project's anon
    /// key, and the Auth user's email and password it signs in with.
    public struct Member: Sendable {
        public var key: String
        public var anonKey: String
        public var userID: String
        public var email = ""
        public var password = ""
    }

    /// The first member of each group, who hands out its invite codes.
    private let founders = Lock<[String: Member]>([:])

    /// A station called `name` in `group`, made as any client would: a new Auth user signs up (or
    /// `existing` signs in again), then makes the group with `create_group`, or joins it with a code its
    /// first member asks for (`group_invite`, `join_group`).
    public func member(_ name: String, of group: String, as existing: Member? = nil) async throws -> Member {
        let anon = try await anonKey()
        var member: Member
        if let existing {
            member = existing
            member.key = try await signIn(existing)
        } else {
            member = try await user(name)
        }
        if let founder = founders.withLock({ $0[group] }) {
            let code = try await api(
                "/rest/v1/rpc/group_invite", ["group_name": group], anonKey: anon, token: try await signIn(founder))
            let joined = try await api(
                "/rest/v1/rpc/join_group", ["invite_code": "\(code)", "member_name": name], anonKey: anon,
                token: member.key)
            guard joined as? String == group else {
                throw FakeError(message: "\(name) did not join \(group): \(joined)")
            }
        } else {
            let code = try await api(
                "/rest/v1/rpc/create_group", ["group_name": group, "member_name": name], anonKey: anon,
                token: member.key)
            guard code is String else { throw FakeError(message: "\(name) did not make \(group): \(code)") }
            founders.withLock { $0[group] = member }
        }
        return member
    }

    /// The names of `group`'s members, as `member` (one of them) lists them with `group_members`.
    public func members(of group: String, as member: Member) async throws -> [String] {
        let rows = try await api(
            "/rest/v1/rpc/group_members", ["group_name": group], anonKey: member.anonKey,
            token: try await signIn(member))
        guard let rows = rows as? [[String: Any]] else { throw FakeError(message: "not a list of members: \(rows)") }
        return rows.compactMap { $0["member_name"] as? String }
    }

    /// A new Auth user for a station called `name`, in no group yet, signed up as anyone signs up.
    public func user(_ name: String) async throws -> Member {
        let anon = try await anonKey()
        let email = "\(name.lowercased().filter(\.isLetter))-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        let password = UUID().uuidString
        let answer = try await api(
            "/auth/v1/signup", ["email": email, "password": password], anonKey: anon, token: nil)
        guard let session = answer as? [String: Any], let token = session["access_token"] as? String,
            let user = (session["user"] as? [String: Any])?["id"] as? String
        else { throw FakeError(message: "the stand-in did not sign \(name) up: \(answer)") }
        return Member(key: token, anonKey: anon, userID: user, email: email, password: password)
    }

    /// A fresh access token for `member`, signed in with its password.
    public func signIn(_ member: Member) async throws -> String {
        let answer = try await api(
            "/auth/v1/token?grant_type=password", ["email": member.email, "password": member.password],
            anonKey: member.anonKey, token: nil)
        guard let token = (answer as? [String: Any])?["access_token"] as? String else {
            throw FakeError(message: "\(member.email) could not sign in: \(answer)")
        }
        return token
    }

    /// Disables `member`'s Auth user as the project's owner does: Auth's admin API
    /// (`PUT /auth/v1/admin/users/{id}`, supabase/auth internal/api/admin.go adminUserUpdate) with the
    /// service_role key, which a real project's dashboard shows, as apikey and bearer, banning it for
    /// 876,000 hours. Its password sign-in and its refresh tokens are refused from then on (400
    /// user_banned); the access tokens it already has keep working at REST and Storage until they expire.
    public func ban(_ member: Member) async throws {
        guard let key = (try await get("/_control/keys") as? [String: Any])?["service_role_key"] as? String else {
            throw FakeError(message: "the stand-in has no service_role key")
        }
        var request = URLRequestLite(
            url: baseURL + "/auth/v1/admin/users/\(member.userID)",
            body: [UInt8](try JSONSerialization.data(withJSONObject: ["ban_duration": "876000h"])),
            headers: [("apikey", key), ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            method: "PUT")
        let answer = try JSONSerialization.jsonObject(
            with: Data(try await request.send()), options: [.fragmentsAllowed])
        guard (answer as? [String: Any])?["banned_until"] is String else {
            throw FakeError(message: "the stand-in did not ban \(member.email): \(answer)")
        }
    }

    /// The project's anon key, which a real project's dashboard shows.
    public func anonKey() async throws -> String {
        guard let key = (try await get("/_control/keys") as? [String: Any])?["anon_key"] as? String else {
            throw FakeError(message: "the stand-in has no anon key")
        }
        return key
    }

    /// A POST to the stand-in's public API, as a client sends it, decoded as JSON.
    private func api(_ path: String, _ body: [String: Any], anonKey: String, token: String?) async throws -> Any {
        var request = URLRequestLite(
            url: baseURL + path, body: [UInt8](try JSONSerialization.data(withJSONObject: body)),
            headers: [("apikey", anonKey), ("Content-Type", "application/json")]
                + (token.map { [("Authorization", "Bearer \($0)")] } ?? []))
        return try JSONSerialization.jsonObject(with: Data(try await request.send()), options: [.fragmentsAllowed])
    }

    /// Every row of the group photos, as the project's admin sees them.
    public func rows() async throws -> [[String: Any]] {
        (try await get("/_control/rows") as? [[String: Any]]) ?? []
    }

    /// The project as an older schema.sql left it, photo ids unchecked, with copies of the row `copy`
    /// under each of `ids` (a member's rows the current schema refuses; `/_control/older_schema`).
    public func olderSchemaRows(copying copy: String, ids: [String]) async throws {
        _ = try await control("/_control/older_schema", ["copy_of": copy, "photo_ids": ids])
    }

    /// The names of the objects in the bucket.
    public func objects() async throws -> [String] {
        (try await get("/_control/objects") as? [String]) ?? []
    }

    /// What the fake received, newest last (secrets removed).
    public func requests() async throws -> [[String: Any]] {
        var request = URLRequestLite(url: baseURL + "/_requests", body: nil)
        let data = try await request.send()
        return (try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]]) ?? []
    }
}

public struct FakeError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A minimal client for the fake's control endpoints, over a plain socket so it does not depend on the
/// HTTP client under test. Its method is GET without a body and POST with one, unless `method` says.
struct URLRequestLite {
    var url: String
    var body: [UInt8]?
    var headers: [(String, String)] = []
    var method: String? = nil

    mutating func send() async throws -> [UInt8] {
        let parts = URL(string: url)!
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(parts.port!).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw FakeError(message: "cannot reach the fake services") }
        let verb = method ?? (body == nil ? "GET" : "POST")
        let target = parts.query.map { parts.path + "?" + $0 } ?? parts.path
        let head =
            "\(verb) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body?.count ?? 0)\r\nConnection: close\r\n"
            + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        let request = Array(head.utf8) + (body ?? [])
        _ = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if got <= 0 { break }
            response += chunk[0..<got]
        }
        guard let split = response.firstIndex(of: 13).flatMap({ _ in findBody(response) }) else { return [] }
        return Array(response[split...])
    }

    private func findBody(_ bytes: [UInt8]) -> Int? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where Array(bytes[index..<index + 4]) == separator { return index + 4 }
        return nil
    }
}
