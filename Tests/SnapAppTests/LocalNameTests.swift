import Foundation
import SnapServices
import SnapTestSupport
import SnapWeb
import Testing

/// avahi-daemon runs here, and avahi's tools are at hand.
private let avahiRuns =
    FileManager.default.fileExists(atPath: "/run/avahi-daemon/socket")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/avahi-resolve")

/// The real binary announces itself over the avahi-daemon running on this machine (Tests/run starts one
/// where none runs), and avahi's own tools find it: its `.local` name resolves to its address, its page
/// is listed as an HTTP service, the pairing screen's QR code carries the name, and a second station of
/// the same name takes the next one.
@Suite(
    "The station's name on the local network (mDNS, avahi)", .serialized,
    .enabled(if: avahiRuns, "needs a running avahi-daemon and avahi-utils (Tests/run starts one)"), .startsProcesses)
struct LocalNameTests {
    let folder = TemporaryDirectory("local-name")

    /// What one of avahi's command-line tools prints.
    private func avahi(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private func station(_ name: String, state: String) throws -> StationProcess {
        let config = try StationFixture.writeConfig(
            in: folder.path, ["station": ["name = \"\(name)\""], "web": ["address = \"0.0.0.0\"", "port = 0"]])
        return try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/" + state, "--log-level", "debug"],
            logPath: folder.path + "/\(state).log", typing: true)
    }

    @Test("should be found by its .local name and as an HTTP service, and put the name in the pairing QR code")
    func announced() async throws {
        // Not ending in a number: avahi's next name for "ss-test-708408" is "ss-test-708409" (it counts up a
        // trailing number, avahi_alternative_host_name), which one random prefix in 17 is all digits.
        let name = "SS Test \(UUID().uuidString.prefix(6)) Hall"
        let label = StationNames.localLabel(name)
        let first = try station(name, state: "first")
        let named = await StationProcess.waitUntil {
            first.output.contains("announced on the network as \(label).local")
        }
        #expect(named, "\(first.output)")
        let resolved = try avahi("avahi-resolve", ["-4", "-n", "\(label).local"])
        #expect(resolved.hasPrefix("\(label).local\t"), "avahi-resolve: \(resolved)")
        let browsed = try avahi("avahi-browse", ["-rpt", "_http._tcp"])
        #expect(
            // The parsable form escapes a space as \032.
            browsed.split(separator: "\n").contains {
                $0.hasPrefix("=") && $0.contains(name.replacingOccurrences(of: " ", with: "\\032"))
                    && $0.contains(";\(label).local;")
            },
            "avahi-browse: \(browsed)")
        first.type("pair")
        let qr = await StationProcess.waitUntil {
            first.output.contains("for http://\(label).local:")
        }
        #expect(qr, "the pairing code's address carries the name: \(first.output)")

        // A second station of the same name takes the next one.
        let second = try station(name, state: "second")
        let next = await StationProcess.waitUntil {
            second.output.contains("announced on the network as \(label)-2.local")
        }
        // The page answers at the name it settled on (the Host check learns it).
        let port = try #require(
            second.output.firstMatch(of: /owner's page at https?:\/\/[^:]+:(\d+)\/pair/).map { Int($0.1)! })
        let page = try await HTTPClient(connectTimeout: .seconds(5), totalTimeout: .seconds(10)).send(
            HTTPRequest(url: "http://127.0.0.1:\(port)/pair", headers: [("Host", "\(label)-2.local:\(port)")]))
        #expect(await second.stop() == 0)
        #expect(await first.stop() == 0)
        #expect(next, "\(second.output)")
        #expect(page.status == 200, "not 421: \(String(decoding: page.body, as: UTF8.self).prefix(300))")
    }

    @Test("should announce only its page on the machine's own name when the station is named as the machine")
    func machineName() async throws {
        let host = StationNames.machineHostName()
        try #require(!host.isEmpty && !host.contains("."), "this machine's host name is a single label")
        let station = try station(host, state: "own")
        let announced = await StationProcess.waitUntil {
            station.output.contains("announced on the network as \(host).local")
        }
        #expect(await station.stop() == 0)
        #expect(announced, "\(station.output)")
        #expect(!station.output.contains("is taken on the network"), "no collision with the machine's own name")
    }
}

/// Without avahi (no D-Bus to reach it), the station runs on with its page at its address: announcing is
/// an extra, and a service that stops ends the whole station (the HIL VMs, which have no D-Bus, caught it).
@Suite("The station's name on the local network, without avahi", .startsProcesses)
struct LocalNameWithoutAvahiTests {
    let folder = TemporaryDirectory("no-avahi")

    @Test("should run on and share its photo when no D-Bus can be reached")
    func noBus() async throws {
        let config = try StationFixture.writeConfig(
            in: folder.path, ["station": ["name = \"Hall\""], "web": ["address = \"0.0.0.0\"", "port = 0"]])
        let station = try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state", "--no-stdin", "--script", "2s press"],
            logPath: folder.path + "/station.log",
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(folder.path)/no-bus"])
        let shared = await station.waitFor("delivered ")
        #expect(shared, "the station ran on: \(station.output)")
        #expect(station.output.contains("owner's page at http://"), "the page at its address")
        #expect(await station.stop() == 0)
        #expect(!station.output.contains("finished unexpectedly"), "\(station.output)")
    }
}

/// `web.tls = "self-signed"` on the real binary: a certificate made on first start and kept, the page
/// over TLS 1.2+ with HSTS, and the same certificate after a restart.
@Suite("The owner's page over https with the station's own certificate", .serialized, .startsProcesses)
struct SelfSignedPageTests {
    let folder = TemporaryDirectory("self-signed")

    private func start(_ config: String) throws -> StationProcess {
        try StationProcess(
            ["run", "--config", config, "--state", folder.path + "/state", "--no-stdin"],
            logPath: folder.path + "/station-\(UUID().uuidString.prefix(4)).log")
    }

    /// The fingerprint the station logged and the port its page took, once it listens.
    private func served(_ station: StationProcess) async throws -> (fingerprint: String, port: Int) {
        let listening = await StationProcess.waitUntil {
            station.output.contains("owner's page at https://")
        }
        try #require(listening, "\(station.output)")
        let fingerprint = try #require(
            station.output.firstMatch(of: /certificate SHA-256 ([0-9A-F:]+)/).map { String($0.1) })
        let port = try #require(
            station.output.firstMatch(of: /owner's page at https:\/\/[^:]+:(\d+)\/pair/).map { Int($0.1)! })
        return (fingerprint, port)
    }

    @Test("should make its certificate on first start, serve TLS 1.2+ with HSTS, and keep it across a restart")
    func madeAndKept() async throws {
        let config = try StationFixture.writeConfig(
            in: folder.path, ["web": ["address = \"127.0.0.1\"", "port = 0", "tls = \"self-signed\""]])
        let first = try start(config)
        let (fingerprint, port) = try await served(first)
        let certificate = folder.path + "/state/tls/cert.pem"
        let made = try String(contentsOfFile: certificate, encoding: .utf8)
        #expect(PageCertificate.fingerprint(ofPEM: made) == fingerprint, "the logged fingerprint is the file's")
        let client = HTTPClient(connectTimeout: .seconds(5), totalTimeout: .seconds(30), caFile: certificate)
        let page = try await client.send(
            HTTPRequest(url: "https://localhost:\(port)/pair", headers: [("Host", "localhost:\(port)")]))
        #expect(page.status == 200 && page.header("strict-transport-security") == "max-age=15552000")
        let old = Process()
        old.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        old.arguments = ["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"]
        old.standardInput = FileHandle.nullDevice
        old.standardOutput = FileHandle.nullDevice
        old.standardError = FileHandle.nullDevice
        try old.run()
        old.waitUntilExit()
        #expect(old.terminationStatus != 0, "TLS 1.1 gets no session")
        #expect(await first.stop() == 0)
        let second = try start(config)
        let again = try await served(second)
        #expect(await second.stop() == 0)
        #expect(again.fingerprint == fingerprint, "the same certificate after a restart")
    }
}
