import Foundation
import SnapFiles

/// The factory reset's erasing of the state folder (`storage.dir`, the station's own folder).
///
/// The running station only marks the folder (`markForErasing`) and restarts: the store is open while it
/// runs, and the clients hold their keys. The next start erases everything in the folder but what a reset
/// keeps (`keptByReset`) before the store opens, and removes the mark last: a start cut short (a power
/// cut) erases again until it is done. Files are deleted, not overwritten: on an SD card's flash,
/// overwriting a file does not reach the blocks it used (the README says so).
extension StationStore {
    /// The file that marks the state folder for erasing at the next start.
    public static let eraseMark = "erase-at-start"
    /// What a reset keeps in the state folder: the installed image's update records and bundles
    /// (`updates/`), which hold nothing of the owner's and tell which slot is good.
    public static let keptByReset: Set<String> = ["updates"]

    /// Marks `directory` for erasing at the next start, written whole or not at all.
    public static func markForErasing(_ directory: String) throws(FileError) {
        try AtomicFile.write(Array("erase \(directory)\n".utf8), to: directory + "/" + eraseMark, permissions: 0o600)
    }

    /// Erases the state folder `markForErasing` marked, before the store opens: every file and folder in
    /// it but `keptByReset`, then the mark. Returns the names it removed (sorted); nil when no mark waited.
    @discardableResult
    public static func applyErase(in directory: String) throws(FileError) -> [String]? {
        let mark = directory + "/" + eraseMark
        guard FileManager.default.fileExists(atPath: mark) else { return nil }
        // A mark names the folder it was written for: one copied into another folder erases nothing there.
        let written = String(decoding: FileBytes.readIfPresent(mark) ?? [], as: UTF8.self)
        guard written == "erase \(directory)\n", directory != "/" else {
            throw FileError(call: "erase (the mark names another folder)", path: mark, errno: EINVAL)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0 != eraseMark && !keptByReset.contains($0) }.sorted()
        } catch {
            throw FileError(call: "list", path: directory, errno: Self.errno(of: error))
        }
        for name in names {
            do {
                try FileManager.default.removeItem(atPath: directory + "/" + name)
            } catch {
                throw FileError(call: "remove", path: directory + "/" + name, errno: Self.errno(of: error))
            }
        }
        try AtomicFile.syncFolder(directory)
        if unlink(mark) != 0 { throw FileError(call: "unlink", path: mark, errno: Glibc.errno) }
        try AtomicFile.syncFolder(directory)
        return names
    }

    /// The POSIX error under a Foundation file error; EIO when it has none.
    private static func errno(of error: any Error) -> Int32 {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EIO
    }

    /// The station's own delivered photos the group's server may still hold, whatever their age: a
    /// factory reset deletes them there (`GroupBackend.removeOwn`) before it erases the station.
    public func ownLiveShares() throws(StoreError) -> [UploadJob] {
        try jobs(where: "state = 'delivered' AND remote_removed = 0", [], limit: 10_000)
    }
}
