import Foundation

/// Reads a backup's tar from a file, a block at a time, through one buffer of 64 KiB.
final class BackupReader {
    private let descriptor: Int32
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    let path: String

    init(path: String) throws(BackupProblem) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            buffer.deallocate()
            throw BackupProblem.failed("open \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
    }

    deinit {
        Glibc.close(descriptor)
        buffer.deallocate()
    }

    /// Exactly `count` bytes into the buffer's start, or `.truncated` at the file's end.
    private func fill(_ count: Int) throws(BackupProblem) -> UnsafeRawBufferPointer {
        var done = 0
        while done < count {
            let read = Glibc.read(descriptor, buffer.baseAddress! + done, count - done)
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                if read == 0 { throw .truncated }
                throw .failed("read \(path): \(String(cString: strerror(errno)))")
            }
            done += read
        }
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
}
