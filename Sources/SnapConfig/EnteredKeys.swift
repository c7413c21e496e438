import Foundation
import SnapCore
import SnapFiles

/// Where a key is sent: the scheme, host and port of the address it was entered for
/// (`https://api.openai.com:443`, `mqtts://broker.example:8883`). A key belongs to its destination: it is
/// sent there and nowhere else, so an address changed on the page (or by a backup) does not take the key
/// with it (`StationConfig.key(_:for:entered:)`).
public struct KeyDestination: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    /// The destination of `address` (an AI service's `http(s)://…`, a broker's `mqtt(s)://…`); nil when it
    /// names none.
    public init?(_ address: String) {
        if let broker = MQTTSettings.broker(address) {
            description = "\(broker.tls ? "mqtts" : "mqtt")://\(broker.host.lowercased()):\(broker.port)"
            return
        }
        guard let url = URLComponents(string: address), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        description = "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    fileprivate init(text: String) { description = text }
}

/// The keys the owner entered on the page (the AI service's key, the group's password, the broker's
/// password): one file each under `storage.dir/keys/`, mode 0600, owned by the station's user, on the data
/// partition, with the destination it was entered for beside it (`NAME.for`). Never in the config, the
/// log, a plain backup (whose parts are the store, `photos/` and `inbox/` only) or a page, which shows
/// whether a key is set and where it goes.
///
/// A key the config names (`ai.key_source`, `group.key_source`, `mqtt.key_source`) wins where it is found
/// and goes to the config file's own address: the installer's word comes first, and the page says so
/// (`StationConfig.key(_:for:entered:)`). The group's password goes only to the config's `group.url`, which
/// the page cannot change: it has no destination of its own.
public struct EnteredKeys: Sendable {
    public enum Name: String, Sendable, CaseIterable {
        case ai
        case group
        /// The home's MQTT broker's password.
        case mqtt
    }

    /// A key as the page takes it: printable ASCII without spaces, as every API key and the station's
    /// generated passwords are, at most 512 characters.
    public static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 512 && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    public let folder: String

    public init(folder: String) { self.folder = folder }

    public func path(_ name: Name) -> String { "\(folder)/\(name.rawValue).key" }

    /// Where the destination of `name`'s key is kept.
    func destinationPath(_ name: Name) -> String { "\(folder)/\(name.rawValue).for" }

    /// The key entered for `name`, wherever it goes; nil when none is, or its file cannot be read.
    public func key(_ name: Name) -> String? {
        KeySource.file(path(name)).resolve()
    }

    /// The key entered for `name` where it was entered for `destination`; nil otherwise.
    public func key(_ name: Name, for destination: KeyDestination?) -> String? {
        guard let destination, self.destination(of: name) == destination else { return nil }
        return key(name)
    }

    /// Where the key entered for `name` goes; nil when none is entered or it names none.
    public func destination(of name: Name) -> KeyDestination? {
        FileBytes.readIfPresent(destinationPath(name)).map {
            KeyDestination(text: String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Keeps `key` for `name`, replacing the one before, entered for `destination` (nil for the group's
    /// password, which goes only to the config's server): written whole or not at all (`AtomicFile`), its
    /// destination first, readable by the station's user alone.
    public func keep(_ key: String, for name: Name, to destination: KeyDestination?) throws(FileError) {
        try AtomicFile.createFolder(folder, permissions: 0o700)
        if let destination {
            try AtomicFile.write(
                Array((destination.description + "\n").utf8), to: destinationPath(name), permissions: 0o600)
        } else {
            try AtomicFile.remove(destinationPath(name))
        }
        try AtomicFile.write(Array((key + "\n").utf8), to: path(name), permissions: 0o600)
    }

    /// A key entered before keys had destinations (a station updated from an older version) goes to
    /// `destination`, the address in force as it first starts with this version: the one it was entered for.
    public func bindUnbound(_ name: Name, to destination: KeyDestination?) {
        guard let destination, key(name) != nil, !FileManager.default.fileExists(atPath: destinationPath(name)) else {
            return
        }
        try? AtomicFile.write(
            Array((destination.description + "\n").utf8), to: destinationPath(name), permissions: 0o600)
    }

    /// Forgets the key entered for `name` and where it went; nothing happens when there is none.
    public func forget(_ name: Name) throws(FileError) {
        try AtomicFile.remove(path(name))
        try AtomicFile.remove(destinationPath(name))
    }
}

/// Where a key in force comes from.
public enum KeyOrigin: Sendable, Equatable {
    /// The config's `key_source`, found: the installer's.
    case config(KeySource)
    /// Entered on the page.
    case entered
}

extension StationConfig {
    /// The keys entered on this station's page.
    public var enteredKeys: EnteredKeys { EnteredKeys(folder: storage.dir + "/keys") }

    /// The address `name`'s key goes to in this config (the AI service's, the broker's), or nil for the
    /// group's password (the config's server).
    public func keyAddress(_ name: EnteredKeys.Name) -> String? {
        switch name {
        case .ai: ai.baseURL
        case .group: nil
        case .mqtt: mqtt.broker.address
        }
    }

    /// The key for `name` that goes to `address` (nil: the address in force in this config,
    /// `keyAddress`), and where it comes from: the config's `key_source` where it finds one and `address` is
    /// the config file's own (the installer's key goes to the installer's address, never to one set on the
    /// page), else the one entered on the page for that address; nil when neither has one.
    public func key(
        _ name: EnteredKeys.Name, for address: String? = nil, entered: EnteredKeys? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (key: String, origin: KeyOrigin)? {
        let (source, fileAddress): (KeySource, String?) =
            switch name {
            case .ai: (ai.keySource, settingsRule.defaults.aiService.baseURL)
            case .group: (group.keySource, nil)
            case .mqtt: (mqtt.keySource, settingsRule.defaults.mqtt.address)
            }
        let destination = (address ?? keyAddress(name)).flatMap(KeyDestination.init)
        let belongs =
            fileAddress == nil || (destination != nil && destination == fileAddress.flatMap(KeyDestination.init))
        if belongs, let key = source.resolve(environment: environment) { return (key, .config(source)) }
        let keys = entered ?? enteredKeys
        let found = name == .group ? keys.key(name) : keys.key(name, for: destination)
        return found.map { ($0, .entered) }
    }
}
