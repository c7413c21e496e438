import Logging
import SnapConfig
import SnapCore
import SnapFiles
import SnapServices

/// The settings page's "Save and try" for the home's broker: one connection with the settings asked and
/// the broker's password where it goes to that broker (`StationConfig.brokerPassword`: the one entered for
/// it, or the installer's for the config's own; never in clear beyond the home's network), its answer
/// within 10 s.
struct StationBrokerTrier: BrokerTrier {
    let config: StationConfig
    let logger: Logger
    /// The trial's 10 s are counted on this clock.
    let clock: any ShellClock

    func tryBroker(_ settings: MQTTSettings) async -> BrokerStatus {
        guard let broker = settings.broker else { return .unreachable(settings.address) }
        let trying = MQTTLink.Settings(
            broker: broker, username: settings.username, password: config.brokerPassword(for: settings),
            version: settings.version,
            caFile: config.mqtt.caFile, clientID: "snapstation-try-\(UInt32.random(in: 0...UInt32.max))")
        let state = await MQTTLink.trial(trying, clock: clock, logger: logger)
        logger.info("home: the broker at \(settings.address) tried from the page: \(state)")
        return HomeService.status(of: state, version: settings.version)
    }
}
