import Foundation
import SnapConfig
import SnapFiles
import Synchronization

/// The names and addresses the page answers to: a request whose Host is anything else is refused, and a
/// form's Origin must be one of them too. A page on another website whose name was rebound to the
/// station's address (DNS rebinding) sends its own name as Host, and gets nothing.
///
/// Always allowed: `localhost`, every address of the station's interfaces (read again when a Host does
/// not match, since DHCP may have handed out a new one), the machine's host name with and without
/// `.local`, the station's own `.local` name (`localName`, which it announces over mDNS, or the one it
/// settled on after a collision: `learn`), the host of `web.public_url`, and `web.names`.
public final class StationNames: Sendable {
    private let fixed: Set<String>
    private let interfaces: @Sendable () -> Set<String>
    private let known: Lock<Set<String>>
    /// Names the station took while running (the `.local` name avahi settled on after a collision).
    private let learned = Lock<Set<String>>([])

    public init(
        config: StationConfig, hostName: String = StationNames.machineHostName(),
        interfaces: @escaping @Sendable () -> Set<String> = { StationNames.interfaceAddresses() }
    ) {
        var fixed: Set<String> = ["localhost", Self.localName(config.station.name)]
        if !hostName.isEmpty { fixed.formUnion([hostName, hostName + ".local"]) }
        if let host = URL(string: config.web.publicURL)?.host { fixed.insert(host) }
        fixed.formUnion(config.web.names)
        self.fixed = Set(fixed.map { $0.lowercased() })
        self.interfaces = interfaces
        self.known = Lock(interfaces())
    }

    /// Whether a request's Host header (a name or address, with or without its port) is the station's.
    public func allows(host header: String?) -> Bool {
        guard let host = Self.hostPart(header) else { return false }
        if fixed.contains(host) || known.withLock({ $0.contains(host) }) || learned.withLock({ $0.contains(host) }) {
            return true
        }
        let now = interfaces()
        known.withLock { $0 = now }
        return now.contains(host)
    }

    /// Answers to `name` from now on (the station announced itself under it).
    public func learn(_ name: String) {
        _ = learned.withLock { $0.insert(name.lowercased()) }
    }

    /// The host of a Host header or an Origin's authority, lowercased, without port, brackets or a final
    /// dot; nil when there is none.
    static func hostPart(_ header: String?) -> String? {
        guard var text = header?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            text = String(text[text.index(after: text.startIndex)..<end])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        if text.hasSuffix(".") { text.removeLast() }
        return text.isEmpty ? nil : text
    }

    /// The station's name on the local network: its `station.name` in lower case, letters and digits
    /// with '-' between words, and `.local` ("Kitchen station" is `kitchen-station.local`).
    public static func localName(_ stationName: String) -> String { localLabel(stationName) + ".local" }

    /// `localName` without `.local`: the host label avahi announces.
    public static func localLabel(_ stationName: String) -> String {
        var label = ""
        for character in stationName.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                label.append(character)
            } else if !label.isEmpty && label.last != "-" {
                label.append("-")
            }
        }
        while label.last == "-" { label.removeLast() }
        return label.isEmpty ? "snapstation" : String(label.prefix(63))
    }

    public static func machineHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
    }

    /// Every address of every interface that is up, loopback included, as text (IPv6 without its zone).
    public static func interfaceAddresses() -> Set<String> {
        Set(interfaces().map(\.address))
    }

    /// Each address of each interface that is up, in the system's order, with whether it is loopback.
    static func interfaces() -> [(address: String, loopback: Bool)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [("127.0.0.1", true), ("::1", true)] }
        defer { freeifaddrs(list) }
        var found: [(address: String, loopback: Bool)] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                found.append(
                    (
                        String(text.split(separator: "%").first ?? Substring(text)).lowercased(),
                        flags & Int32(IFF_LOOPBACK) != 0
                    ))
            }
        }
        return found
    }
}
