import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

/// A key goes only where it was entered (the audit of 2026-12-01, finding 2), through the real binary: the
/// installer's AI key and the broker's password in force, and an attacker's server on another address
/// named in the walk-through's AI step, as the station's AI service after the walk-through's restart, and as
/// the broker of the settings' "Save and try". It hears the requests, and never a key or a password.
@Suite(
    "End to end: keys and passwords go only to the addresses they were entered for", .serialized,
    .enabled(if: MosquittoBroker.available, Comment(rawValue: MosquittoBroker.missing)), .startsProcesses)
struct KeyDestinationEndToEndTests {
    let folder = TemporaryDirectory("key-destination")
    let fake: FakeServices
    let broker: MosquittoBroker
    /// The attacker's server on another port.
    let attacker: Eavesdropper
    /// The page's port, the same across restarts; chosen after the broker and the attacker took theirs.
    let port: Int
    let client = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(60))

    init() async throws {
        fake = try await FakeServices()
        broker = try MosquittoBroker()
        attacker = try Eavesdropper()
        port = FakeServices.freePort()
    }

    var state: String { folder.path + "/state" }

    func start(_ log: String) throws -> StationProcess {
        let config = try StationFixture.writeConfig(
            in: folder.path,
            [
                "station": ["default_mode = \"meal\"", "name = \"Kitchen\""],
                "ai": ["base_url = \"\(fake.baseURL)/v1\"", "key_source = \"env:SNAPSTATION_TEST_AI_KEY\""],
                "mqtt": [
                    "url = \"mqtt://127.0.0.1:\(broker.port)\"", "username = \"station\"",
                    "key_source = \"env:SNAPSTATION_TEST_MQTT_KEY\"", "version = \"3.1.1\"",
                ],
                "web": ["address = \"127.0.0.1\"", "port = \(port)"],
            ])
        return try StationProcess(
            ["run", "--config", config, "--state", state], logPath: folder.path + "/\(log).log",
            environment: ["SNAPSTATION_TEST_AI_KEY": "test-key", "SNAPSTATION_TEST_MQTT_KEY": broker.password],
            typing: true)
    }

    func post(_ path: String, _ fields: [(String, String)], _ phone: PairedBrowser) async throws -> HTTPResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = (fields + [("csrf", phone.csrf)]).map {
            "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
        return try await client.send(
            HTTPRequest(
                method: "POST", url: "http://127.0.0.1:\(port)\(path)",
                headers: [
                    ("Cookie", phone.cookie), ("Host", "127.0.0.1:\(port)"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ], body: Array(body.utf8)))
    }

    /// The station started again once it stopped by itself (to take what the page changed), as systemd would.
    func restarted(_ station: StationProcess, _ log: String) async throws -> StationProcess {
        let stopped = await StationProcess.waitUntil { !station.process.isRunning }
        #expect(stopped, "the station restarts to use what the page changed: \(station.output)")
        if !stopped { _ = await station.stop() }
        let again = try start(log)
        _ = try #require(await again.pagePort(), "\(again.output)")
        return again
    }

    @Test("should send no key to another address from the walk-through, the AI service set there, or 'Save and try'")
    func noKeyElsewhere() async throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let owner = try PairedBrowser(in: state, name: "Owner-phone")
        var station = try start("first")
        let listening = try #require(await station.pagePort(), "\(station.output)")
        #expect(listening == port)
        let follower = LogFollower(path: station.logPath)
        #expect(
            await follower.waitFor("mqtt: connected to 127.0.0.1:\(broker.port)"),
            "the broker takes its password: \(station.output)")

        // The walk-through's AI step names the attacker's server and tries it at once.
        let step = try await post(
            "/welcome/ai", [("ai_base_url", attacker.url + "/v1"), ("ai_model", "gpt-4o-mini")], owner)
        #expect(step.status == 200, "\(step.status)")
        #expect(attacker.connections >= 1, "the address was tried")
        #expect(!attacker.heard("test-key") && !attacker.heard("Bearer"), "but with no key")
        // The walk-through ends: the station starts again with the AI service it named.
        let done = try await post("/welcome/done", [], owner)
        #expect(done.status == 200, "\(done.status)")
        station = try await restarted(station, "after-welcome")

        // A photo goes to the AI service the walk-through set, without a key.
        let after = LogFollower(path: station.logPath)
        #expect(await after.waitFor("screen: ready"), "\(station.output)")
        station.type("press")
        // The attacker's 404 is an AI failure on the screen (after the request: one wait, as both lines may
        // come in one read of the log); a hold lets the photo go, back to rest.
        #expect(await after.waitFor("screen: error-ai-failed"), "\(station.output)")
        #expect(attacker.heard("chat/completions"), "the owner's choice of address, asked: \(station.output)")
        #expect(!attacker.heard("test-key") && !attacker.heard("Bearer"), "the installer's key stays with its address")
        station.type("hold")
        #expect(await after.waitFor("screen: ready"), "\(station.output)")

        // "Save and try" for a broker on another port (the form's other settings the config's again); the
        // station then starts again with it, and connects to it without the password either.
        let tried = try await post(
            "/settings",
            [
                ("mqtt_url", "mqtt://127.0.0.1:\(attacker.port)"), ("mqtt_username", "station"),
                ("mqtt_version", "3.1.1"), ("try_mqtt", "1"),
            ], owner)
        #expect(tried.status == 200 || tried.status == 303, "\(tried.status)")
        let connected = await eventually { attacker.heard("MQTT") }
        #expect(connected, "a CONNECT reached the other broker")
        #expect(!attacker.heard(broker.password), "without the broker's password")
        let tries = attacker.connections
        station = try await restarted(station, "after-settings")
        let reconnected = await eventually { attacker.connections > tries }
        #expect(reconnected, "the station connects to the broker the page set: \(station.output)")
        #expect(await station.stop() == 0)
        #expect(!attacker.heard(broker.password), "the broker's password stays with its broker")
        #expect(!attacker.heard("test-key"))
    }
}
