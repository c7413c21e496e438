import Foundation
import Glibc

/// Writes files so that a reader, or a power cut, sees either the old state or the whole new file.
///
/// The bytes go to a hidden temporary file beside the target, which is fsynced, renamed over the target,
/// and then the folder is fsynced so the rename itself is durable. A crash leaves at most a hidden
/// temporary file, which `removeLeftovers(in:)` clears at the next start.
public enum AtomicFile {
    /// The prefix of temporary files; names starting with it are never a finished file.
    public static let temporaryPrefix = ".tmp-"

    /// Writes `bytes` to `path` atomically and durably, creating the folder if needed; `permissions` are
    /// the new file's (a secret's: 0o600).
    public static func write(_ bytes: some ContiguousBytes, to path: String, permissions: mode_t = 0o644)
        throws(FileError)
    {
        let writer = try Writer(path: path, permissions: permissions)
        try writer.append(bytes)
        try writer.commit()
    }

    /// A file written in pieces (a bundle streamed from the owner's phone) and made visible whole: the
    /// pieces go to a hidden temporary file beside `path`, which `commit()` fsyncs, renames over `path`
    /// and makes durable; a writer dropped without `commit()` deletes it.
    ///
    /// One owner uses a writer, from one thread at a time (the owner's `SerialThread`): it is Sendable so
    /// that the owner can hand it to that thread.
    public final class Writer: @unchecked Sendable {
        public let path: String
        let temporary: String
        private var descriptor: Int32
        /// The bytes appended so far.
        public private(set) var written = 0

        /// Opens the temporary file for `path`, creating the folder if needed.
        public init(path: String, permissions: mode_t = 0o644) throws(FileError) {
            let url = URL(fileURLWithPath: path)
            let folder = url.deletingLastPathComponent().path
            try AtomicFile.createFolder(folder)
            self.path = path
            temporary =
                "\(folder)/\(AtomicFile.temporaryPrefix)\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
            descriptor = try AtomicFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: permissions)
        }

        deinit { discard() }

        /// Writes `bytes` after what was written.
        public func append(_ bytes: some ContiguousBytes) throws(FileError) {
            let failure: FileError? = bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let (done, error) = retryingInterrupts {
                        Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    }
                    if done < 0 { return FileError(call: "write", path: temporary, errno: error) }
                    offset += done
                }
                return nil
            }
            if let failure { throw failure }
            written += bytes.withUnsafeBytes { $0.count }
        }

        /// Makes the file visible at `path`, whole and durable.
        public func commit() throws(FileError) {
            let (synced, error) = retryingInterrupts { Int(fsync(descriptor)) }
            if synced < 0 {
                discard()
                throw FileError(call: "fsync", path: temporary, errno: error)
            }
            Glibc.close(descriptor)
            descriptor = -1
            if rename(temporary, path) != 0 {
                let error = errno
                unlink(temporary)
                throw FileError(call: "rename", path: path, errno: error)
            }
            try AtomicFile.syncFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }

        /// Drops what was written.
        public func discard() {
            guard descriptor >= 0 else { return }
            Glibc.close(descriptor)
            descriptor = -1
            unlink(temporary)
        }
    }

    /// Creates `folder` and its parents, and fsyncs the parent of each folder it made. `permissions` are
    /// `folder`'s own when it is made (its parents get 0755).
    public static func createFolder(_ folder: String, permissions: mode_t = 0o755) throws(FileError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue { return }
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        if parent != folder { try createFolder(parent) }
        if mkdir(folder, permissions) != 0 && errno != EEXIST {
            throw FileError(call: "mkdir", path: folder, errno: errno)
        }
        try syncFolder(parent)
    }

    /// Deletes the file at `path`; nothing happens when there is none.
    public static func remove(_ path: String) throws(FileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileError(call: "unlink", path: path, errno: errno) }
    }

    /// Deletes temporary files a crash left in `folder` and its subfolders.
    public static func removeLeftovers(in folder: String) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        for case let relative as String in walker
        where URL(fileURLWithPath: relative).lastPathComponent.hasPrefix(temporaryPrefix) {
            unlink(folder + "/" + relative)
        }
    }

    /// Deletes the temporary files a crash left while writing `path` (beside it, named after it).
    public static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = temporaryPrefix + url.lastPathComponent + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            unlink(folder + "/" + name)
        }
    }

    public static func syncFolder(_ folder: String) throws(FileError) {
        let descriptor = try open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        defer { Glibc.close(descriptor) }
        try sync(descriptor, path: folder)
    }

    fileprivate static func open(_ path: String, _ flags: Int32, mode: mode_t) throws(FileError) -> Int32 {
        let (descriptor, error) = retryingInterrupts { Int(Glibc.open(path, flags, mode)) }
        if descriptor < 0 { throw FileError(call: "open", path: path, errno: error) }
        return Int32(descriptor)
    }

    private static func sync(_ descriptor: Int32, path: String) throws(FileError) {
        let (result, error) = retryingInterrupts { Int(fsync(descriptor)) }
        if result < 0 { throw FileError(call: "fsync", path: path, errno: error) }
    }
}
