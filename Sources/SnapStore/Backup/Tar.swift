import Foundation

/// The backup's container: POSIX ustar (IEEE Std 1003.1, "pax" chapter's ustar header), so that an owner
/// can open a backup with any `tar`. Only what a backup holds: regular files under 8 GiB whose names fit
/// ustar's 100 + 155 bytes. Written and read as a stream, a block of 512 bytes at a time.
enum Tar {
    static let block = 512

    /// The header block of a regular file `name` of `size` bytes (mode 0644, `modified` seconds).
    static func header(name: String, size: Int, modified: Int) throws(BackupProblem) -> [UInt8] {
        let bytes = Array(name.utf8)
        // A long name splits at a "/" into the prefix (155) and the name (100).
        var (prefix, rest) = ([UInt8](), bytes)
        if bytes.count > 100 {
            guard
                let cut = bytes.indices.last(where: {
                    bytes[$0] == UInt8(ascii: "/") && $0 <= 155 && bytes.count - $0 - 1 <= 100
                })
            else { throw BackupProblem.nameTooLong(name) }
            (prefix, rest) = (Array(bytes[..<cut]), Array(bytes[(cut + 1)...]))
        }
        var header = [UInt8](repeating: 0, count: block)
        func put(_ field: [UInt8], at offset: Int) {
            header.replaceSubrange(offset..<(offset + field.count), with: field)
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(rest, at: 0)
        put(octal(0o644, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(modified, width: 12), at: 136)
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148)
        header[156] = UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0] + Array("00".utf8), at: 257)
        put(prefix, at: 345)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(octal(sum, width: 7) + [UInt8(ascii: " ")], at: 148)
        return header
    }

    /// What a header block says: nil for an end-of-archive (zero) block.
    static func read(header: [UInt8]) throws(BackupProblem) -> (name: String, size: Int)? {
        guard header.contains(where: { $0 != 0 }) else { return nil }
        func text(_ range: Range<Int>) -> String {
            String(decoding: header[range].prefix { $0 != 0 }, as: UTF8.self)
        }
        func number(_ range: Range<Int>) -> Int? {
            Int(text(range).trimmingCharacters(in: CharacterSet(charactersIn: " ")), radix: 8)
        }
        var blank = header
        blank.replaceSubrange(148..<156, with: Array(repeating: UInt8(ascii: " "), count: 8))
        guard header[257..<262].elementsEqual("ustar".utf8), let stated = number(148..<156),
            stated == blank.reduce(0, { $0 + Int($1) })
        else { throw BackupProblem.damaged("a file's header") }
        guard header[156] == UInt8(ascii: "0") || header[156] == 0, let size = number(124..<136), size >= 0 else {
            throw BackupProblem.damaged("a file's header")
        }
        let prefix = text(345..<500)
        return (prefix.isEmpty ? text(0..<100) : prefix + "/" + text(0..<100), size)
    }

    /// The zero bytes after `size` bytes of content, to the block's end.
    static func padding(after size: Int) -> Int { (block - size % block) % block }
}
