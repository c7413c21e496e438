import Glibc

/// A failed file-system call: which call, on which path, and the errno it returned.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Int32

    public init(call: String, path: String, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    /// Whether the disk is full (or the quota used up), which the station shows as "storage full".
    public var isDiskFull: Bool { errno == ENOSPC || errno == EDQUOT }

    public var description: String {
        "\(call)(\(path)): \(String(cString: strerror(errno)))"
    }
}

/// Retries a system call while it fails with EINTR; a programming error (EBADF) stops the process.
@inline(__always)
func retryingInterrupts(_ call: () -> Int) -> (result: Int, errno: Int32) {
    while true {
        let result = call()
        if result >= 0 { return (result, 0) }
        let error = Glibc.errno
        precondition(error != EBADF, "bad file descriptor: a bug in SnapStore")
        if error != EINTR { return (result, error) }
    }
}
