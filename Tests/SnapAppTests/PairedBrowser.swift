import Foundation
import SnapStore

/// A browser paired with a station's page, put in its store before the station starts: its cookie and its
/// form token. The session's hash is made by coreutils' `sha256sum`, not by the station's own code.
struct PairedBrowser {
    let cookie: String
    let csrf: String
    /// The session's token, which no file may hold after a factory reset.
    let token: String

    init(in state: String, name: String) throws {
        token = "token-\(name)-\(UUID().uuidString)"
        let hash = Process()
        hash.executableURL = URL(fileURLWithPath: "/bin/sh")
        hash.arguments = ["-c", "printf %s \"$0\" | sha256sum", token]
        let pipe = Pipe()
        hash.standardOutput = pipe
        try hash.run()
        let digest = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        hash.waitUntilExit()
        let store = try StationStore(directory: state)
        csrf = "csrf-\(name)"
        try store.createSession(
            WebSession(
                tokenHash: String(digest.prefix(64)), csrf: csrf, name: name, created: Date(), lastSeen: Date()))
        cookie = "snapstation_session=\(token)"
    }
}
