import Glibc

/// Reads whole files into `[UInt8]` with one allocation, the size `fstat` gives, and no copy through
/// `Data`: a 12 MP JPEG is 8 MB, and a second copy of it is the difference between the station's peak
/// memory and libvips'.
public enum FileBytes {
    /// The file's bytes; wraps `open`, `fstat` and `read`. A file larger than `limit` is refused (EFBIG)
    /// before anything is read.
    public static func read(_ path: String, limit: Int = .max) throws(FileError) -> [UInt8] {
        try read(path, limit: limit, flags: 0, regularOnly: false)
    }

    /// The bytes of a file someone else put there (another station's, in a shared folder): only a regular
    /// file, not through a symlink, and opened without blocking, so a FIFO or a device named like a photo
    /// cannot hold the reading thread (EINVAL for anything else).
    public static func readPlainFile(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        try read(path, limit: limit, flags: O_NONBLOCK | O_NOFOLLOW, regularOnly: true)
    }

    private static func read(_ path: String, limit: Int, flags: Int32, regularOnly: Bool) throws(FileError)
        -> [UInt8]
    {
        let (descriptor, openError) = retryingInterrupts { Int(Glibc.open(path, O_RDONLY | O_CLOEXEC | flags)) }
        guard descriptor >= 0 else { throw FileError(call: "open", path: path, errno: openError) }
        let file = Int32(descriptor)
        defer { Glibc.close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw FileError(call: "fstat", path: path, errno: errno) }
        if regularOnly && (status.st_mode & S_IFMT) != S_IFREG {
            throw FileError(call: "read", path: path, errno: EINVAL)
        }
        let size = Int(status.st_size)
        guard size <= limit else { throw FileError(call: "read", path: path, errno: EFBIG) }
        return try read(file, size: size, path: path)
    }

    /// The first `size` bytes of the open file `file` (from its start, wherever its offset is), in one
    /// allocation; fewer when the file shrank while being read.
    static func read(_ file: Int32, size: Int, path: String) throws(FileError) -> [UInt8] {
        var failure: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let (got, error) = retryingInterrupts {
                    pread(file, buffer.baseAddress! + count, size - count, off_t(count))
                }
                if got < 0 { failure = FileError(call: "pread", path: path, errno: error) }
                if got <= 0 { break }  // an error, or the file shrank while being read
                count += got
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Calls `body` with the file's bytes mapped read-only in place, and unmaps them when it returns: no
    /// buffer and no copy (the page cache's pages are the bytes), which saves reading 8 MB into a buffer
    /// of its own, a twentieth of `snapstation process`'s time on a 12 MP JPEG. Only for a file no one
    /// shortens while it is mapped (a read beyond a shortened end is SIGBUS): the command's input, not
    /// the station's spool. An empty file gives an empty buffer.
    public static func withMapped<Result>(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
        throws(FileError) -> Result
    {
        let (descriptor, openError) = retryingInterrupts { Int(Glibc.open(path, O_RDONLY | O_CLOEXEC)) }
        guard descriptor >= 0 else { throw FileError(call: "open", path: path, errno: openError) }
        let file = Int32(descriptor)
        defer { Glibc.close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw FileError(call: "fstat", path: path, errno: errno) }
        let size = Int(status.st_size)
        guard size > 0 else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        // MAP_POPULATE maps every page at once instead of one fault at a time during the decode.
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file, 0), mapping != MAP_FAILED
        else { throw FileError(call: "mmap", path: path, errno: errno) }
        defer { munmap(mapping, size) }
        return body(UnsafeBufferPointer(start: mapping.assumingMemoryBound(to: UInt8.self), count: size))
    }

    /// The file's bytes, or nil when it is missing or unreadable.
    public static func readIfPresent(_ path: String) -> [UInt8]? {
        try? read(path)
    }
}
