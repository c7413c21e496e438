import Foundation

/// A group member's name as another party sent it (the group's server, a shared folder's sidecar), fit to
/// show on the screen and in a log line: `String.printable(limit:)` of it, 60 characters at most, the
/// server's own limit.
public struct MemberName: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public init(_ raw: String) {
        text = raw.printable(limit: 60)
    }

    /// The name, or "a member" when none was sent.
    public var description: String { text.isEmpty ? "a member" : text }
}

extension String {
    /// The text without what could forge a log line or hide itself on a screen: control characters (a
    /// line break starts a log line of its own), format characters (a right-to-left override reverses
    /// what follows), line and paragraph separators, private-use and unassigned code points; trimmed, and
    /// cut to `limit` characters with "…".
    public func printable(limit: Int) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate:
                continue
            default:
                kept.append(scalar)
            }
        }
        let text = String(kept).trimmingCharacters(in: .whitespaces)
        return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
