import Foundation

/// A backup's tar made as its reader asks for it (`next`): the header, then each file in pieces of at
/// most 64 KiB, hashed as they are read, then `SHA256SUMS` and the archive's end. Nothing is made ahead of
/// the reader, so a slow phone holds the making back instead of the station's memory growing, and a
/// reader that stops stops it. The store's copy it reads (`deleting`) goes with it. With a seal
/// (`BackupSeal`) the tar goes out encrypted, piece by piece, as it is made.
public final class BackupPieces {
    /// One file of the backup: bytes at hand, or a file read as it goes.
    enum Part {
        case bytes(String, [UInt8])
        case file(String, String)
    }

    /// The file being read: its name, descriptor, size and the bytes left.
    private struct Reading {
        var name: String
        var descriptor: Int32
        var size: Int
        var left: Int
        var path: String
    }

    /// What is still to come, the next last.
    private var parts: [Part]
    private let sumsName: String
    private let modified: Int
    private let copy: String
    private let hash = SHA256Stream()
    private var sums: [(name: String, sum: String)] = []
    private var reading: Reading?
    private var summed = false
    private var ended = false
    private let sealer: BackupSealer?
    /// The tar's size as the parts' sizes say at the start (the sums' file reckoned at its most).
    private let total: Int
    /// The tar's bytes made so far.
    private var made = 0

    /// How much of the backup is made (0…1), for its progress on the screen.
    public var fraction: Double { total > 0 ? min(1, Double(made) / Double(total)) : 1 }

    init(_ parts: [Part], sums: String, modified: Date, deleting copy: String, sealed seal: BackupSeal? = nil) {
        self.parts = parts.reversed()
        sumsName = sums
        self.modified = Int(modified.timeIntervalSince1970)
        self.copy = copy
        sealer = seal.map(BackupSealer.init)
        total =
            parts.reduce(2 * Tar.block) { total, part in
                let (name, size): (String, Int)
                switch part {
                case .bytes(let named, let bytes): (name, size) = (named, bytes.count)
                case .file(let named, let path):
                    var status = stat()
                    (name, size) = (named, stat(path, &status) == 0 ? Int(status.st_size) : 0)
                }
                // Its header and padded bytes, and its line in the sums.
                return total + Tar.block + size + Tar.padding(after: size) + 67 + name.utf8.count
            } + Tar.block
    }

    deinit {
        if let reading { close(reading.descriptor) }
        unlink(copy)
    }

    /// The backup's next piece; nil after its end.
    public func next() throws(BackupProblem) -> [UInt8]? {
        guard let sealer else { return try tarPiece() }
        return try sealer.next(from: tarPiece)
    }

    /// The tar's next piece; nil after its end.
    private func tarPiece() throws(BackupProblem) -> [UInt8]? {
        let piece = try tarPieceMade()
        made += piece?.count ?? 0
        return piece
    }

    private func tarPieceMade() throws(BackupProblem) -> [UInt8]? {
        if let file = reading { return try piece(of: file) }
        if let part = parts.popLast() {
            switch part {
            case .bytes(let name, let bytes):
                hash.update(bytes)
                sums.append((name, hash.finish()))
                return try Tar.header(name: name, size: bytes.count, modified: modified) + bytes
                    + [UInt8](repeating: 0, count: Tar.padding(after: bytes.count))
            case .file(let name, let path):
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw .failed("open \(path): \(String(cString: strerror(errno)))") }
                var status = stat()
                guard fstat(descriptor, &status) == 0 else {
                    close(descriptor)
                    throw .failed("read \(path)")
                }
                let size = Int(status.st_size)
                let file = Reading(name: name, descriptor: descriptor, size: size, left: size, path: path)
                reading = file
                return try Tar.header(name: name, size: size, modified: modified) + (try piece(of: file))
            }
        }
        if !summed {
            summed = true
            parts = [.bytes(sumsName, Array(sums.map { "\($0.sum)  \($0.name)\n" }.joined().utf8))]
            return try tarPieceMade()
        }
        guard !ended else { return nil }
        ended = true
        return [UInt8](repeating: 0, count: 2 * Tar.block)
    }

    /// The file's next piece, with its padding after its last (then it is closed and its sum kept). Its
    /// size is read once: a file that changes meanwhile is an error (the station writes photos atomically,
    /// so one only appears or goes, never grows).
    private func piece(of file: Reading) throws(BackupProblem) -> [UInt8] {
        var piece = [UInt8](repeating: 0, count: min(file.left, 64 * 1024))
        let count = piece.withUnsafeMutableBytes { read(file.descriptor, $0.baseAddress, $0.count) }
        guard count == piece.count else {
            throw .failed("read \(file.path): it changed while the backup was made")
        }
        hash.update(piece)
        guard file.left - count == 0 else {
            reading?.left -= count
            return piece
        }
        close(file.descriptor)
        reading = nil
        sums.append((file.name, hash.finish()))
        return piece + [UInt8](repeating: 0, count: Tar.padding(after: file.size))
    }
}
