import Glibc

/// How much space is left on the file system that holds a folder.
public enum FreeSpace {
    /// Bytes available to an unprivileged writer under `path`; wraps `statvfs`.
    public static func available(at path: String) throws(FileError) -> UInt64 {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { throw FileError(call: "statvfs", path: path, errno: errno) }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }
}
