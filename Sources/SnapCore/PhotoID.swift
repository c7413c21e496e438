import Foundation

/// Names one photo: a capture from the moment the shutter fires, or a photo another member shared. File
/// names, store rows and the group's object names are made from it, so it holds only what is safe as one
/// file name everywhere: 1 to 64 ASCII letters, digits, `_` and `-` (no dot, no slash, nothing to escape).
///
/// A value from outside (a group's row, a form, a URL, a sidecar file's name) becomes one through
/// `init?(parsing:)`, which refuses anything else; `init(_:)` is for ids the station makes itself and stops
/// the process on a malformed one, since that is a bug in the station. Decoding checks as parsing does.
public struct PhotoID: Sendable, Hashable, TextCoded, CustomStringConvertible {
    /// The longest id taken: the station's own are 20 characters (`PhotoID.new`).
    public static let maximumLength = 64

    public let rawValue: String

    /// An id the station made; a malformed one is a bug.
    public init(_ rawValue: String) {
        precondition(
            Self.isWellFormed(rawValue), "a malformed photo id made by the station: \(rawValue.debugDescription)")
        self.rawValue = rawValue
    }

    /// An id from outside, or nil when it is not one.
    public init?(parsing text: String) {
        guard Self.isWellFormed(text) else { return nil }
        rawValue = text
    }

    public var text: String { rawValue }
    public static let textMeaning = "a photo id"

    public var description: String { rawValue }

    /// 1 to 64 of `A-Z a-z 0-9 _ -`, judged by Unicode scalar (so no look-alike or combining mark passes).
    public static func isWellFormed(_ text: String) -> Bool {
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            guard count <= maximumLength, scalar.isASCII else { return false }
            switch UInt8(scalar.value) {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return count > 0
    }
}

extension PhotoID {
    /// `YYYYMMDD-HHMMSS-xxxx` in local time: sortable, readable in a file list, and unique in practice.
    public static func new(at date: Date, in timeZone: TimeZone) -> PhotoID {
        let parts = Calendar.gregorian(in: timeZone).dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(
            format: "%04d%02d%02d-%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
        return PhotoID("\(stamp)-\(String(UInt16.random(in: 0...UInt16.max), radix: 16))")
    }
}
