import Foundation
import SnapCore

/// Where the station may send what: the address checks the config reader, the page and the key rules share.
extension StationConfig {
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// A plain-http URL to the owner's own network: a private or link-local address (RFC 1918, RFC 4193,
    /// RFC 3927, fe80::/10), a `NAME.local` (mDNS) or a single-label host name. A local vision server
    /// runs there (a Pi cannot host one); the station sends it no key (`Station.makeAnalyzer`).
    public static func isPrivateNetwork(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme == "http", let host = url.host else { return false }
        return isPrivateHost(host)
    }

    /// A host of the owner's own network, as `isPrivateNetwork` says it for a URL: a private or link-local
    /// address, a `NAME.local` or a single-label name.
    public static func isPrivateHost(_ name: String) -> Bool {
        let host = name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            let octets = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return octets[0] == 10 || (octets[0] == 172 && (16...31).contains(octets[1]))
                || (octets[0] == 192 && octets[1] == 168) || (octets[0] == 169 && octets[1] == 254)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            return bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80)
        }
        return host.hasSuffix(".local") || !host.contains(".")
    }

    /// This machine: the loopback addresses and `localhost`.
    public static func isLoopbackHost(_ name: String) -> Bool {
        let host = name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The broker's password for `settings`, only where it goes to the broker it was entered for (or, the
    /// installer's, to the config file's broker: `key(_:for:)`) and is not sent in clear beyond the home's
    /// network: over `mqtts://`, or plain `mqtt://` to this machine or a host of the home's network. Nil
    /// otherwise: the station connects without it and the broker says whether it takes that.
    public func brokerPassword(for settings: MQTTSettings) -> String? {
        guard let broker = settings.broker else { return nil }
        guard broker.tls || Self.isLoopbackHost(broker.host) || Self.isPrivateHost(broker.host) else { return nil }
        return key(.mqtt, for: settings.address)?.key
    }

    /// https anywhere; plain http only to this machine (a Supabase running locally), never across a network.
    public static func isSecureOrLocal(_ text: String) -> Bool {
        guard let url = URL(string: text), let host = url.host else { return false }
        return url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
    }
}
