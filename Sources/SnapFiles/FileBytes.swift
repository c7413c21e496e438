import Glibc

/// Reads whole files into `[UInt8]` with one allocation, the size `fstat` gives, and no copy through
/// `Data`: a 12 MP JPEG is 8 MB, and a second copy of it is the difference between the station's peak
/// memory and libvips'.
public enum FileBytes {
    /// The file's bytes; wraps `open`, `fstat` and `read`. A file larger than `limit` is refused (EFBIG)
    /// before anything is read.
    public static func read(_ path: String, limit: Int = .max) throws(FileError) -> [UInt8] {
        let (descriptor, openError) = retryingInterrupts { Int(Glibc.open(path, O_RDONLY | O_CLOEXEC)) }
        guard descriptor >= 0 else { throw FileError(call: "open", path: path, errno: openError) }
        let file = Int32(descriptor)
        defer { Glibc.close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw FileError(call: "fstat", path: path, errno: errno) }
        let size = Int(status.st_size)
        guard size <= limit else { throw FileError(call: "read", path: path, errno: EFBIG) }
        var failure: FileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let (got, error) = retryingInterrupts { Glibc.read(file, buffer.baseAddress! + count, size - count) }
                if got < 0 { failure = FileError(call: "read", path: path, errno: error) }
                if got <= 0 { break }  // an error, or the file shrank while being read
                count += got
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// The file's bytes, or nil when it is missing or unreadable.
    public static func readIfPresent(_ path: String) -> [UInt8]? {
        try? read(path)
    }
}
