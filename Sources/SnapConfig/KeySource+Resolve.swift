import Foundation

extension KeySource {
    /// The secret, read from where the config says; nil when it is not there or empty. The value is
    /// trimmed of surrounding whitespace (files usually end in a newline) and never logged.
    public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let raw: String?
        switch self {
        case .environment(let name):
            raw = environment[name]
        case .file(let path):
            raw = try? String(contentsOfFile: path, encoding: .utf8)
        case .credential(let name):
            // systemd's LoadCredential= puts each credential in $CREDENTIALS_DIRECTORY/NAME.
            raw = environment["CREDENTIALS_DIRECTORY"].flatMap {
                try? String(contentsOfFile: "\($0)/\(name)", encoding: .utf8)
            }
        }
        let key = raw?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return key.isEmpty ? nil : key
    }
}
