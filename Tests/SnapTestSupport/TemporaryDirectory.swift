import Foundation

/// A fresh folder under the system's temporary folder, removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "snapstation") {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Files under the folder, as paths relative to it, sorted.
    public func files() -> [String] {
        let walker = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let next = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + next, isDirectory: &isFolder), !isFolder.boolValue {
                found.append(next)
            }
        }
        return found.sorted()
    }
}
