import Glibc

/// A folder whose files are named by `FileName`s and reached from the folder's own descriptor: each step
/// is an `openat` with `O_NOFOLLOW`, so neither a name nor a symlink someone put inside leads out of it.
/// Everything the station writes or deletes for the group (the other members' photos) goes through one.
///
/// `root` is the station's own (the state folder's `inbox`), made if missing; the folders below it are made
/// on the way to a write. Writes are atomic and durable as `AtomicFile`'s: a hidden temporary file beside
/// the target, fsynced, renamed over it, and the folder fsynced.
public struct ConfinedFolder: Sendable {
    public let root: String

    public init(_ root: String) {
        self.root = root
    }

    /// The file's path, for readers and log lines.
    public func path(_ file: FileName, in folders: [FileName]) -> String {
        ([root] + folders.map(\.rawValue) + [file.rawValue]).joined(separator: "/")
    }

    /// The file's size; 0 when it or its folder does not exist.
    public func size(of file: FileName, in folders: [FileName]) -> Int {
        guard let folder = try? open(folders, creating: false) else { return 0 }
        defer { close(folder) }
        var status = stat()
        return fstatat(folder, file.rawValue, &status, AT_SYMLINK_NOFOLLOW) == 0 ? Int(status.st_size) : 0
    }

    /// Appends `bytes` to the file (made if missing, with its folders) and returns everything it holds
    /// now, refusing (EFBIG) a file grown past `limit`.
    public func append(_ bytes: [UInt8], to file: FileName, in folders: [FileName], limit: Int) throws(FileError)
        -> [UInt8]
    {
        let folder = try open(folders, creating: true)
        defer { close(folder) }
        let target = path(file, in: folders)
        let descriptor = try Self.openFile(
            folder, file.rawValue, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, path: target)
        defer { close(descriptor) }
        try Self.writeAll(bytes, to: descriptor, path: target)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileError(call: "fstat", path: target, errno: errno) }
        let size = Int(status.st_size)
        guard size <= limit else { throw FileError(call: "read", path: target, errno: EFBIG) }
        return try FileBytes.read(descriptor, size: size, path: target)
    }

    /// Writes the file whole, atomically and durably, making its folders.
    public func write(_ bytes: [UInt8], to file: FileName, in folders: [FileName], permissions: mode_t = 0o644)
        throws(FileError)
    {
        let folder = try open(folders, creating: true)
        defer { close(folder) }
        let target = path(file, in: folders)
        let temporary = "\(AtomicFile.temporaryPrefix)\(file.rawValue).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = try Self.openFile(
            folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: permissions, path: target)
        do throws(FileError) {
            try Self.writeAll(bytes, to: descriptor, path: target)
            let (synced, error) = retryingInterrupts { Int(fsync(descriptor)) }
            if synced < 0 { throw FileError(call: "fsync", path: target, errno: error) }
            close(descriptor)
        } catch {
            close(descriptor)
            unlinkat(folder, temporary, 0)
            throw error
        }
        // renameat replaces whatever has the name, a symlink too, without following it.
        guard renameat(folder, temporary, folder, file.rawValue) == 0 else {
            let error = errno
            unlinkat(folder, temporary, 0)
            throw FileError(call: "renameat", path: target, errno: error)
        }
        try Self.sync(folder, path: target)
    }

    /// Deletes the file; one that is not there (nor its folder) is deleted already.
    public func remove(_ file: FileName, in folders: [FileName]) throws(FileError) {
        let folder: Int32
        do throws(FileError) {
            folder = try open(folders, creating: false)
        } catch {
            if error.errno == ENOENT { return }
            throw error
        }
        defer { close(folder) }
        if unlinkat(folder, file.rawValue, 0) != 0 && errno != ENOENT {
            throw FileError(call: "unlinkat", path: path(file, in: folders), errno: errno)
        }
    }

    /// The descriptor of `root/folders…`, each step opened without following a symlink; made on the way
    /// when `creating`. The caller closes it.
    private func open(_ folders: [FileName], creating: Bool) throws(FileError) -> Int32 {
        if creating { try AtomicFile.createFolder(root) }
        var current = try Self.openFile(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, path: root)
        var reached = root
        for folder in folders {
            reached += "/" + folder.rawValue
            if creating, mkdirat(current, folder.rawValue, 0o755) == 0 {
                do throws(FileError) { try Self.sync(current, path: reached) } catch {
                    close(current)
                    throw error
                }
            }
            let next: Int32
            do throws(FileError) {
                next = try Self.openFile(
                    current, folder.rawValue, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, path: reached)
            } catch {
                close(current)
                throw error
            }
            close(current)
            current = next
        }
        return current
    }

    private static func openFile(_ folder: Int32, _ name: String, _ flags: Int32, mode: mode_t = 0o644, path: String)
        throws(FileError) -> Int32
    {
        let (descriptor, error) = retryingInterrupts { Int(openat(folder, name, flags, mode)) }
        if descriptor < 0 { throw FileError(call: "openat", path: path, errno: error) }
        return Int32(descriptor)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let (done, error) = bytes.withUnsafeBytes { buffer in
                retryingInterrupts { Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if done < 0 { throw FileError(call: "write", path: path, errno: error) }
            offset += done
        }
    }

    private static func sync(_ descriptor: Int32, path: String) throws(FileError) {
        let (result, error) = retryingInterrupts { Int(fsync(descriptor)) }
        if result < 0 { throw FileError(call: "fsync", path: path, errno: error) }
    }
}
