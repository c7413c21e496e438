import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Testing

@testable import SnapWeb

/// Tries the broker as the station does (`StationBrokerTrier`): one connection with the settings saved and
/// the password the test gives.
private struct LinkTrier: BrokerTrier {
    let password: String

    func tryBroker(_ settings: MQTTSettings) async -> BrokerStatus {
        guard let broker = settings.broker else { return .unreachable(settings.address) }
        let state = await MQTTLink.trial(
            .init(broker: broker, username: settings.username, password: password, clientID: "page-try"),
            clock: SystemClock(), logger: Logger(label: "web-test"))
        switch state {
        case .connected: return .connected
        case .refused(.credentials): return .refusedCredentials
        case .refused(let other): return .refused("\(other)")
        case .unreachable(let why): return .unreachable(why)
        case .connecting, .stopped: return .connecting
        }
    }
}

@Suite(
    "The owner's page: the home's broker, saved and tried at once against a real Mosquitto",
    .enabled(if: MosquittoBroker.available, Comment(rawValue: MosquittoBroker.missing)), .startsProcesses)
struct HomeSettingsTests {
    private func form(_ csrf: String, _ url: String) -> [(String, String)] {
        [
            ("csrf", csrf), ("mqtt_url", url), ("mqtt_username", "station"), ("mqtt_version", "3.1.1"),
            ("mqtt_button", "1"), ("try_mqtt", "1"),
        ]
    }

    @Test("should save the broker, try it at once, and say the broker's answer: a wrong password, then taken")
    func savesAndTries() async throws {
        let broker = try MosquittoBroker()
        let address = "mqtt://127.0.0.1:\(broker.port)"
        for (password, said) in [
            ("wrong", "The broker refused the user name or password."),
            (broker.password, "The broker at \(address) took the station."),
        ] {
            let station = try WebTestStation(brokerTrier: LinkTrier(password: password))
            let owner = try await station.pair()
            let page = await station.get("/settings", cookie: owner.cookie).text
            #expect(page.contains("name=\"mqtt_url\"") && page.contains("name=\"try_mqtt\""))
            let tried = await station.post("/settings", form(owner.csrf, address), cookie: owner.cookie)
            #expect(tried.status == 200 && tried.text.contains(said), "\(tried.text.suffix(600))")
            #expect(
                try station.store.runtimeSettings().mqtt
                    == MQTTSettings(address: address, username: "station", version: .v311, countdownButton: true),
                "saved first")
        }
    }

    @Test("should refuse an address that is no broker's, keeping what was sent, and save nothing")
    func refusesAnAddress() async throws {
        let station = try WebTestStation(brokerTrier: LinkTrier(password: "x"))
        let owner = try await station.pair()
        let refused = await station.post("/settings", form(owner.csrf, "http://hub.local"), cookie: owner.cookie)
        #expect(refused.status == 400)
        #expect(refused.text.contains("is not a broker") && refused.text.contains("value=\"http://hub.local\""))
        #expect(try station.store.runtimeSettings().mqtt == nil)
    }

    @Test("should show the broker's password on the Keys page with how the connection stands")
    func keysShowTheBroker() async throws {
        let station = try WebTestStation(broker: .refusedCredentials) { config in
            config.mqtt.broker = MQTTSettings(address: "mqtt://hub.local", username: "station")
        }
        let owner = try await station.pair()
        let keys = await station.get("/keys", cookie: owner.cookie).text
        #expect(keys.contains("Home Assistant (MQTT)") && keys.contains("mqtt://hub.local"))
        #expect(keys.contains("The broker refused the user name or password."))
        #expect(keys.contains("action=\"/keys/mqtt\""))
    }
}
