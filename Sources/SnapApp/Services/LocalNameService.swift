internal import CSnapAvahi
import Foundation
import Logging
import ServiceLifecycle
import SnapConfig
import SnapWeb
import Synchronization

/// Announces the station on the local network as `NAME.local` (from `station.name`: "Kitchen station"
/// is `kitchen-station.local`) with its addresses, and its page as an HTTP service, over avahi-daemon
/// (Raspberry Pi OS and the image run it; libavahi-client). A phone reaches the page by that name
/// whatever address DHCP hands the station, as people reach `octopi.local` and `homeassistant.local`.
///
/// Once the name is on the network, the pairing QR code carries it and the screen shows the address as
/// the fallback line. A name another device holds is given up for the next one (`kitchen-station-2`),
/// as avahi's own tools do. Without avahi-daemon the page keeps its address, and the station waits for
/// the daemon. The addresses are read again every 30 s and announced anew when they changed.
public final class LocalNameService: Service {
    private let config: StationConfig
    private let desk: PairingDesk
    private let server: WebServer
    private let names: StationNames
    private let logger: Logger

    public init(config: StationConfig, desk: PairingDesk, server: WebServer, names: StationNames, logger: Logger) {
        self.config = config
        self.desk = desk
        self.server = server
        self.names = names
        self.logger = logger
    }

    /// What avahi tells, from its thread.
    final class Listener: Sendable {
        let heard: @Sendable (Int32, String) -> Void
        init(_ heard: @escaping @Sendable (Int32, String) -> Void) { self.heard = heard }
    }

    public func run() async throws {
        // A shutdown cancels the waits below at once.
        try? await cancelWhenGracefulShutdown { try await self.announce() }
        // Announcing is an extra: whatever stopped it (no D-Bus, no avahi client), the service stays
        // until the station stops, as the service group ends the station when a service returns.
        try? await gracefulShutdown()
    }

    private func announce() async throws {
        // The page first: its port goes into the service.
        while server.listeningPort == nil { try await Task.sleep(for: .milliseconds(200)) }
        let port = server.listeningPort ?? config.web.port
        let addressURL = desk.url
        let scheme = config.web.servesHTTPS ? "https" : "http"
        let label = StationNames.localLabel(config.station.name)
        let listener = Listener { [desk, names, logger] state, name in
            switch Int(state) {
            case Int(SS_ANNOUNCE_ESTABLISHED.rawValue):
                names.learn(name)
                desk.url = "\(scheme)://\(name):\(port)/pair"
                desk.fallback = addressURL
                logger.notice("announced on the network as \(name): the pairing QR code carries it")
            case Int(SS_ANNOUNCE_COLLISION.rawValue):
                logger.notice("\(name) is taken on the network: trying the next name")
            case Int(SS_ANNOUNCE_NO_DAEMON.rawValue):
                desk.url = addressURL
                desk.fallback = nil
                logger.notice("no avahi-daemon: the page keeps its address (\(addressURL)) until one runs")
            default:
                logger.warning("announcing \(label).local: \(name)")
            }
        }
        // The machine's own name is avahi's already: then only the page's service, on that name.
        let ownHost = label == StationNames.machineHostName()
        let listening = config.web.address
        var addresses = ownHost ? [] : Self.announced(listening: listening)
        let context = Unmanaged.passRetained(listener)
        defer { context.release() }
        guard
            let announcer = ss_announce_start(
                label, addresses.joined(separator: ","), config.station.name,
                config.web.servesHTTPS ? "_https._tcp" : "_http._tcp",
                UInt16(port),
                { context, state, name in
                    guard let context, let name else { return }
                    Unmanaged<Listener>.fromOpaque(context).takeUnretainedValue().heard(state, String(cString: name))
                }, context.toOpaque())
        else {
            logger.warning("cannot announce \(label).local: avahi's client did not start")
            return
        }
        defer { ss_announce_stop(announcer) }
        while true {
            try await Task.sleep(for: .seconds(30))
            let now = ownHost ? [] : Self.announced(listening: listening)
            if now != addresses {
                addresses = now
                logger.info("the station's addresses changed: announcing \(now.joined(separator: ", "))")
                ss_announce_addresses(announcer, now.joined(separator: ","))
            }
        }
    }

    /// The addresses a phone on the network can reach the page at: those the page listens on (IPv4 only
    /// for "0.0.0.0", the default: a phone would try an IPv6 address first and wait), not loopback, not
    /// link-local (which needs its interface named).
    static func announced(listening: String) -> [String] {
        let all = StationNames.interfaceAddresses().filter {
            !$0.hasPrefix("127.") && $0 != "::1" && !$0.hasPrefix("fe80")
        }
        switch listening {
        case "0.0.0.0": return all.filter { !$0.contains(":") }.sorted()
        case "::": return all.sorted()
        default: return all.contains(listening) ? [listening] : []
        }
    }
}
