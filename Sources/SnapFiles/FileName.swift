/// One name inside a folder that the station chose: 1 to 100 ASCII letters, digits and `_ - .`, never
/// `.` or `..` nor starting with a dot (a hidden or temporary file). It cannot name a parent, a subfolder
/// or an absolute path, so a path made of `FileName`s under a folder stays inside it (`ConfinedFolder`).
public struct FileName: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// The name, or nil when `text` is not one.
    public init?(_ text: String) {
        guard Self.isWellFormed(text) else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }

    static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...100).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { isNameByte($0) || $0 == UInt8(ascii: ".") }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// The folder of a group (or a station) named `name` by its members: the name itself where it is made
    /// of letters, digits, `_` and `-` only ("Friends"); otherwise those characters of it, each other one
    /// as `_`, and 8 hex digits of the name's FNV-1a hash, so that "Family Smith" and "Family_Smith" keep
    /// folders of their own ("Family_Smith-5d0c8a1e"). The same name gives the same folder in every
    /// version and on every station: the group's folder backend shares it.
    public static func folder(for name: String) -> FileName {
        let bytes = Array(name.utf8)
        if (1...48).contains(bytes.count), bytes.allSatisfy(isNameByte) { return FileName(name)! }
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let kept = String(
            name.unicodeScalars.prefix(40).map { scalar in
                scalar.isASCII && isNameByte(UInt8(scalar.value)) ? Character(scalar) : "_"
            })
        let hex = String(hash, radix: 16)
        return FileName(kept + "-" + String(repeating: "0", count: 8 - hex.count) + hex)!
    }
}
