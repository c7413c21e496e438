import Foundation

/// Reads a backup's tar from a file, a block at a time, through one buffer of 64 KiB; a sealed one
/// (`BackupSeal`) is opened a piece at a time with the passphrase as it is read.
final class BackupReader {
    private let descriptor: Int32
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    private let unsealing: Unsealing?
    let path: String
    /// The bytes of the tar read so far, told after each read (a restore's progress).
    var onRead: (Int) -> Void = { _ in }
    private var consumed = 0
    /// Whether the file is sealed with a passphrase: only then may it hold keys.
    var sealed: Bool { unsealing != nil }

    /// The backup at `path`; a sealed one needs `passphrase` (`.locked` without one, `.wrongPassphrase`
    /// with another).
    init(path: String, passphrase: String? = nil) throws(BackupProblem) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            buffer.deallocate()
            throw BackupProblem.failed("open \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        do throws(BackupProblem) {
            unsealing = try Self.unsealing(descriptor, path: path, passphrase: passphrase)
        } catch {
            Glibc.close(descriptor)
            buffer.deallocate()
            throw error
        }
    }

    deinit {
        Glibc.close(descriptor)
        buffer.deallocate()
    }

    /// The seal's opener when the file starts with a seal's head (the file then read on from its end),
    /// else nil (the file read again from its start).
    private static func unsealing(_ descriptor: Int32, path: String, passphrase: String?) throws(BackupProblem)
        -> Unsealing?
    {
        var head = [UInt8](repeating: 0, count: BackupSeal.headSize)
        let count = try readFully(descriptor, path: path, into: &head)
        guard BackupSeal.isSealed(Array(head[0..<count])) else {
            guard lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw .failed("read \(path): \(String(cString: strerror(errno)))")
            }
            return nil
        }
        guard count == head.count else { throw .truncated }
        guard let passphrase else { throw .locked }
        return Unsealing(try BackupSeal(head: head, passphrase: passphrase), descriptor: descriptor, path: path)
    }

    /// Reads into `bytes` until it is full or the file ends: the count read.
    fileprivate static func readFully(_ descriptor: Int32, path: String, into bytes: inout [UInt8], from start: Int = 0)
        throws(BackupProblem) -> Int
    {
        var done = start
        while done < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw .failed("read \(path): \(String(cString: strerror(errno)))") }
            guard read > 0 else { break }
            done += read
        }
        return done
    }

    /// Exactly `count` bytes into the buffer's start, or `.truncated` at the file's end.
    private func fill(_ count: Int) throws(BackupProblem) -> UnsafeRawBufferPointer {
        var done = 0
        while done < count {
            let read: Int
            if let unsealing {
                read = try unsealing.read(into: buffer.baseAddress! + done, count: count - done)
            } else {
                read = Glibc.read(descriptor, buffer.baseAddress! + done, count - done)
                if read < 0 && errno == EINTR { continue }
                if read < 0 { throw .failed("read \(path): \(String(cString: strerror(errno)))") }
            }
            guard read > 0 else { throw .truncated }
            done += read
        }
        consumed += count
        onRead(consumed)
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    /// The next file's name and size; nil at the archive's end.
    func next() throws(BackupProblem) -> (name: String, size: Int)? {
        try Tar.read(header: Array(try fill(Tar.block)))
    }

    /// The file's `size` bytes, handed to `body` in pieces of at most 64 KiB, then its padding skipped.
    func content(_ size: Int, _ body: (UnsafeRawBufferPointer) throws(BackupProblem) -> Void) throws(BackupProblem) {
        var left = size + Tar.padding(after: size)
        var data = size
        while left > 0 {
            let count = min(left, buffer.count)
            let piece = try fill(count)
            if data > 0 { try body(UnsafeRawBufferPointer(rebasing: piece[..<min(count, data)])) }
            data -= min(count, data)
            left -= count
        }
    }

    /// Whether the archive ends as it should after its first zero block (`next` gave nil): its second
    /// zero block, and in a sealed file nothing after the last piece.
    func ended() throws(BackupProblem) -> Bool {
        guard try fill(Tar.block).allSatisfy({ $0 == 0 }) else { return false }
        guard let unsealing else { return true }
        return try unsealing.atEnd()
    }
}

/// A sealed file's pieces opened in turn (`BackupSeal`), each checked whole before a byte of it is used.
private final class Unsealing {
    private let seal: BackupSeal
    private let descriptor: Int32
    private let path: String
    /// A sealed piece as read, with room for one byte more: the byte that tells whether it is the last.
    private var sealed = [UInt8](repeating: 0, count: BackupSeal.pieceSize + BackupSeal.tagSize + 1)
    private var carried: UInt8?
    private var plain = [UInt8](repeating: 0, count: BackupSeal.pieceSize)
    private var start = 0
    private var end = 0
    private var number: UInt64 = 0
    private var ended = false

    init(_ seal: BackupSeal, descriptor: Int32, path: String) {
        self.seal = seal
        self.descriptor = descriptor
        self.path = path
    }

    /// Up to `count` opened bytes into `target`; 0 after the last piece.
    func read(into target: UnsafeMutableRawPointer, count: Int) throws(BackupProblem) -> Int {
        if start == end {
            guard !ended else { return 0 }
            try openNext()
        }
        let taken = min(count, end - start)
        plain.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + start, byteCount: taken) }
        start += taken
        return taken
    }

    func atEnd() throws(BackupProblem) -> Bool {
        while start == end && !ended { try openNext() }
        return start == end && ended
    }

    /// Reads and opens the next piece. A piece is the last when the file ends with it: a whole piece is
    /// read with one byte more to tell. At the file's end a piece that opens only as one that is not the
    /// last, or does not open at all, is a file cut short (a download stopped; a byte flipped in the last
    /// piece reads so too: either way nothing is taken); before it, one that does not open is damaged.
    private func openNext() throws(BackupProblem) {
        let whole = BackupSeal.pieceSize + BackupSeal.tagSize
        var count = 0
        if let carried {
            sealed[0] = carried
            count = 1
            self.carried = nil
        }
        count = try BackupReader.readFully(descriptor, path: path, into: &sealed, from: count)
        let last = count <= whole
        if count > whole { carried = sealed[whole] }
        let length = min(count, whole)
        guard length >= BackupSeal.tagSize else { throw .truncated }
        let opened = sealed.withUnsafeBytes { sealed in
            plain.withUnsafeMutableBytes { plain in
                seal.open(
                    UnsafeRawBufferPointer(rebasing: sealed[..<length]), number: number, last: last,
                    into: plain.baseAddress!)
            }
        }
        guard opened else {
            if last { throw .truncated }
            throw .damaged("sealed piece \(number + 1)")
        }
        (start, end) = (0, length - BackupSeal.tagSize)
        number += 1
        ended = last
    }
}
