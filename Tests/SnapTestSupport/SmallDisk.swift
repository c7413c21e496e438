import Foundation

/// A small tmpfs mounted for one test: a disk that fills up for real (ENOSPC), as an SD card or a USB
/// stick does. Mounting needs root (CI runs as root); `reason` says why it cannot be had here.
public final class SmallDisk {
    public let path: String

    /// Why no small disk can be mounted here, or nil when one can.
    public static var unavailableReason: String? {
        getuid() == 0 ? nil : "mounting a small tmpfs needs root (run the tests as root, as CI does)"
    }

    public init(kilobytes: Int) throws {
        path = NSTemporaryDirectory() + "smalldisk-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { throw FakeError(message: "mount -t tmpfs failed at \(path)") }
    }

    /// Writes a file that takes what is left of the disk but `leaving` bytes; returns its path.
    @discardableResult
    public func fill(leaving: Int = 0) -> String {
        var stats = statvfs()
        statvfs(path, &stats)
        let free = Int(stats.f_bavail) * Int(stats.f_frsize)
        let filler = path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: Data(count: max(0, free - leaving)))
        return filler
    }

    deinit {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = ["-l", path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}
