import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Testing

@Suite(
    "MQTTLink: the station's connection to a real Mosquitto broker",
    .enabled(if: MosquittoBroker.available, Comment(rawValue: MosquittoBroker.missing)), .startsProcesses)
struct MQTTLinkTests {
    let logger = Logger(label: "test")

    private func settings(_ broker: MosquittoBroker, password: String? = nil, version: MQTTSettings.Version = .v5)
        -> MQTTLink.Settings
    {
        MQTTLink.Settings(
            broker: .init(host: "127.0.0.1", port: broker.port, tls: broker.certificate != nil),
            username: broker.username, password: password ?? broker.password, version: version,
            caFile: broker.certificate ?? "", clientID: "station-\(UUID().uuidString.prefix(8))",
            will: ("test/station/availability", "offline"), subscriptions: ["test/station/press"])
    }

    private func connected(_ link: MQTTLink) async -> Bool {
        await eventually { link.state == .connected }
    }

    @Test(
        "should publish the latest of each topic, retained, at MQTT 5 and 3.1.1",
        arguments: MQTTSettings.Version.allCases)
    func publishesRetained(version: MQTTSettings.Version) async throws {
        let broker = try MosquittoBroker()
        let link = MQTTLink(settings(broker, version: version), logger: logger)
        link.start()
        defer { link.stop() }
        #expect(await connected(link))
        link.publish("test/station/kcal", "100")
        link.publish("test/station/kcal", "640")
        link.publish("test/station/title", "Rye bread with butter")
        // A subscriber that comes later gets the retained latest of each. One that comes while the three are
        // still on their way reads a retained "100" and then live ones: it reads again until the broker holds
        // both topics.
        var seen: [String] = []
        #expect(
            await eventually {
                seen = await broker.messages("test/station/#", count: 2, seconds: 3, retainedOnly: true).sorted()
                return seen.count == 2
            })
        #expect(seen == ["test/station/kcal 640", "test/station/title Rye bread with butter"])
    }

    @Test("should say that the broker refused the password, and not connect")
    func refusedPassword() async throws {
        let broker = try MosquittoBroker()
        for version in MQTTSettings.Version.allCases {
            let state = await MQTTLink.trial(
                settings(broker, password: "wrong", version: version), clock: SystemClock(), logger: logger)
            #expect(state == .refused(.credentials), "\(version): \(state)")
        }
        let state = await MQTTLink.trial(settings(broker), clock: SystemClock(), logger: logger)
        #expect(state == .connected)
    }

    @Test("should say a broker that is not there is not reached")
    func unreachable() async throws {
        let port = FakeServices.freePort()
        let settings = MQTTLink.Settings(broker: .init(host: "127.0.0.1", port: port, tls: false), clientID: "lonely")
        let state = await MQTTLink.trial(settings, clock: SystemClock(), logger: logger)
        guard case .unreachable(let why) = state else {
            Issue.record("expected unreachable, got \(state)")
            return
        }
        #expect(why.lowercased().contains("refused"), "in the system's words: \(why)")
    }

    @Test("should say a broker that takes the connection but never answers is unreachable at exactly the trial's limit")
    func silentBroker() async throws {
        let silent = try SilentListener()
        let clock = HeldClock()
        let settings = MQTTLink.Settings(
            broker: .init(host: "127.0.0.1", port: silent.port, tls: false), clientID: "silent")
        let trial = Task { await MQTTLink.trial(settings, timeout: .seconds(10), clock: clock, logger: logger) }
        #expect(await clock.sleepers() == [.seconds(10)], "the trial's limit; the link itself waits on nothing")
        clock.advance(by: .milliseconds(9_999))
        #expect(clock.deadlines == [.seconds(10)], "no answer yet at 9.999 s, still trying")
        clock.advance(by: .milliseconds(1))
        #expect(await trial.value == .unreachable("no answer in 10 s"))
    }

    @Test("should check the broker's certificate: refuse one it cannot verify, connect when it trusts its CA")
    func checksCertificates() async throws {
        let broker = try MosquittoBroker(tls: true)
        var untrusted = settings(broker)
        untrusted.caFile = ""  // the system's CAs, which never signed the test's certificate
        let refused = await MQTTLink.trial(untrusted, clock: SystemClock(), logger: logger)
        guard case .unreachable = refused else {
            Issue.record("a certificate no CA signed was accepted: \(refused)")
            return
        }
        #expect(await MQTTLink.trial(settings(broker), clock: SystemClock(), logger: logger) == .connected)
    }

    @Test(
        "should lose nothing it holds while the broker is down, try again after 1, 2, 4 and 8 s of its clock, and publish the latest at the next try once it is back"
    )
    func survivesTheBrokerGoing() async throws {
        let broker = try MosquittoBroker()
        let clock = HeldClock()
        let link = MQTTLink(settings(broker), clock: clock, logger: logger)
        link.start()
        defer { link.stop() }
        #expect(await connected(link))
        link.publish("test/station/kcal", "100")
        #expect(
            await eventually {
                await broker.messages("test/station/kcal", count: 1, seconds: 2) == ["test/station/kcal 100"]
            })
        broker.stop()
        // Each wait, as the link asks the clock for it once a try has failed; the clock moved to its end.
        // (A link that was connected starts the waits again at the first.)
        var waits: [Duration] = []
        for _ in 0..<4 {
            let deadlines = await clock.sleepers()
            waits.append(deadlines[0] - clock.uptime)
            if case .unreachable = link.state {} else { Issue.record("\(link.state) while it waits to try again") }
            clock.advance(by: deadlines[0] - clock.uptime)
        }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        // Meanwhile the state moves on three times: only the last is kept.
        for kcal in ["200", "300", "910"] { link.publish("test/station/kcal", kcal) }
        // The fifth wait is 16 s: the broker back at 15.999 s of it is not tried yet; at 16 s it is.
        let fifth = await clock.sleepers()
        #expect(fifth == [clock.uptime + .seconds(16)])
        try broker.start()
        clock.advance(by: .seconds(16) - .milliseconds(1))
        #expect(link.state != .connected)
        clock.advance(by: .milliseconds(1))
        // The broker comes back without its retained messages (no persistence): the link publishes its table.
        #expect(await connected(link))
        var back: [String] = []
        #expect(
            await eventually {
                back = await broker.messages("test/station/kcal", count: 1, seconds: 2)
                return !back.isEmpty
            })
        #expect(back == ["test/station/kcal 910"])
    }

    @Test("should hand on a message on a subscribed topic, and say offline when it stops")
    func receivesAndSaysOffline() async throws {
        let broker = try MosquittoBroker()
        let heard = Heard()
        let link = MQTTLink(settings(broker), logger: logger) { topic, payload, retained in
            heard.lines.withLock {
                $0.append("\(topic) \(String(decoding: payload, as: UTF8.self))\(retained ? " (retained)" : "")")
            }
        }
        link.start()
        #expect(await connected(link))
        link.publish("test/station/availability", "online")
        // Sent until heard: the link subscribes as it connects, a moment after the state says so.
        #expect(
            await eventually(every: .milliseconds(300)) {
                await broker.send("test/station/press", "PRESS")
                return heard.lines.withLock { $0.contains("test/station/press PRESS") }
            })
        link.stop()
        #expect(await eventually { link.state == .stopped })
        #expect(
            await broker.messages("test/station/availability", count: 1, seconds: 3)
                == ["test/station/availability offline"])
    }
}

extension MQTTLinkTests {
    @Test("should say which message the broker kept from before (retained), given again at every connection")
    func retained() async throws {
        let broker = try MosquittoBroker()
        await broker.send("test/station/press", "PRESS", retained: true)
        let heard = Heard()
        let link = MQTTLink(settings(broker), logger: logger) { topic, payload, retained in
            heard.lines.withLock {
                $0.append("\(topic) \(String(decoding: payload, as: UTF8.self))\(retained ? " (retained)" : "")")
            }
        }
        link.start()
        defer { link.stop() }
        #expect(await connected(link))
        #expect(
            await eventually {
                heard.lines.withLock { $0.contains("test/station/press PRESS (retained)") }
            },
            "the retained press given as the link subscribes, marked")
        #expect(
            await eventually(every: .milliseconds(300)) {
                await broker.send("test/station/press", "LIVE")
                return heard.lines.withLock { $0.contains("test/station/press LIVE") }
            }, "a press sent now, not marked")
    }
}

/// What a link heard, from its thread.
private final class Heard: Sendable {
    let lines = Lock<[String]>([])
}

/// A TCP port on 127.0.0.1 that takes connections (the kernel completes them) and never reads or answers:
/// a broker that hangs.
private final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        (descriptor, port) = try loopbackListener(backlog: 8)
    }

    deinit { close(descriptor) }
}
