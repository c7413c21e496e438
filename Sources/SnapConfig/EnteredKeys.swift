import Foundation
import SnapFiles

/// The keys the owner entered on the page (the AI service's key, the group's password): one file each
/// under `storage.dir/keys/`, mode 0600, owned by the station's user, on the data partition. Never in the
/// config, the log, a backup (whose parts are the store, `photos/` and `inbox/` only) or a page, which
/// shows whether a key is set and its last four characters.
///
/// A key the config names (`ai.key_source`, `group.key_source`) wins where it is found: the installer's
/// word comes first, and the page says so (`StationConfig.key(_:entered:)`).
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

    /// The key entered for `name`; nil when none is, or its file cannot be read.
    public func key(_ name: Name) -> String? {
        KeySource.file(path(name)).resolve()
    }

    /// Keeps `key` for `name`, replacing the one before: written whole or not at all (`AtomicFile`), readable
    /// by the station's user alone.
    public func keep(_ key: String, for name: Name) throws(FileError) {
        try AtomicFile.createFolder(folder, permissions: 0o700)
        try AtomicFile.write(Array((key + "\n").utf8), to: path(name), permissions: 0o600)
    }

    /// Forgets the key entered for `name`; nothing happens when there is none.
    public func forget(_ name: Name) throws(FileError) {
        try AtomicFile.remove(path(name))
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

    /// The key in force for `name` and where it comes from: the config's `key_source` where it finds one,
    /// else the one entered on the page; nil when neither has one.
    public func key(
        _ name: EnteredKeys.Name, entered: EnteredKeys? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (key: String, origin: KeyOrigin)? {
        let source =
            switch name {
            case .ai: ai.keySource
            case .group: group.keySource
            case .mqtt: mqtt.keySource
            }
        if let key = source.resolve(environment: environment) { return (key, .config(source)) }
        return (entered ?? enteredKeys).key(name).map { ($0, .entered) }
    }
}
