/// Where the station meets the home's MQTT broker (`[mqtt]`; SPEC.md, "At home"): off by default (no
/// address). Home Assistant finds the station there by its MQTT discovery. The password is a key, never a
/// setting: `mqtt.key_source` or the one entered on the page (`EnteredKeys`).
public struct MQTTSettings: Sendable, Hashable, Codable {
    /// `mqtt://host[:port]` (1883) or `mqtts://host[:port]` (8883, TLS with the certificate checked); ""
    /// for none.
    public var address: String
    public var username: String
    /// MQTT 5, or 3.1.1 for an older broker.
    public var version: Version
    /// Whether a `button` entity may start the countdown from the home's hub.
    public var countdownButton: Bool

    public enum Version: String, Sendable, Hashable, Codable, CaseIterable {
        case v5 = "5"
        case v311 = "3.1.1"
    }

    public init(address: String = "", username: String = "", version: Version = .v5, countdownButton: Bool = false) {
        self.address = address
        self.username = username
        self.version = version
        self.countdownButton = countdownButton
    }

    /// No broker.
    public static let none = MQTTSettings()

    /// The broker's host, port and whether it speaks TLS; nil when `address` is not one.
    public struct Broker: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var tls: Bool

        public init(host: String, port: Int, tls: Bool) {
            self.host = host
            self.port = port
            self.tls = tls
        }
    }

    public var broker: Broker? { Self.broker(address) }

    /// `address` read as the config and the page write it.
    public static func broker(_ address: String) -> Broker? {
        let tls: Bool
        let rest: Substring
        if address.hasPrefix("mqtt://") {
            (tls, rest) = (false, address.dropFirst(7))
        } else if address.hasPrefix("mqtts://") {
            (tls, rest) = (true, address.dropFirst(8))
        } else {
            return nil
        }
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        var host = String(authority)
        var port = tls ? 8883 : 1883
        if authority.hasPrefix("[") {
            // An IPv6 address: [::1]:1883.
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let given = Int(after.dropFirst()) else { return nil }
                port = given
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let given = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = String(authority[..<colon])
            port = given
        }
        let allowed = host.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || ".-:".unicodeScalars.contains($0)
        }
        guard !host.isEmpty, allowed, (1...65535).contains(port) else { return nil }
        return Broker(host: host, port: port, tls: tls)
    }

    /// What is wrong with `address`, for the config's and the page's message; nil when it is fine or "".
    public static func problem(address: String) -> String? {
        guard !address.isEmpty, broker(address) == nil else { return nil }
        return "an address like mqtt://homeassistant.local or mqtts://broker.example:8883"
    }
}

/// MQTT topics as the station writes them.
public enum HomeTopics {
    /// Whether `text` is one topic level Home Assistant's discovery takes: letters, digits, - and _
    /// (homeassistant/components/mqtt/discovery.py, `TOPIC_MATCHER`).
    public static func isLevel(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
    }
}

/// How the station's connection to the home's broker stands, for the owner's page.
public enum BrokerStatus: Sendable, Hashable {
    case connecting
    case connected
    /// The broker refused the user name or password.
    case refusedCredentials
    /// The broker refused the station for another reason, in libmosquitto's words.
    case refused(String)
    /// The broker was not reached, in the system's words.
    case unreachable(String)
}

/// Connects once to a broker with the given settings and the broker's password in force, and says how it
/// went: the settings page's "Save and try".
public protocol BrokerTrier: Sendable {
    func tryBroker(_ settings: MQTTSettings) async -> BrokerStatus
}
