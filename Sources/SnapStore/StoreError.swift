internal import GRDB
import SnapCore
import SnapFiles

/// A failed store operation: what the station was doing and what SQLite or the file system said.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var message: String
    /// The disk is full: the station shows "storage full" rather than a generic error.
    public var isDiskFull: Bool

    public var description: String { "\(operation): \(message)" }

    /// What the state machine is told: "storage full", or the failed operation and why.
    public var storageFailure: StorageFailure {
        isDiskFull ? .full : .failed(description)
    }

    /// A photo whose files are not where the store puts them (`StationStore.paths(for:day:)`): a bug of
    /// the caller's.
    struct Misplaced: Error, CustomStringConvertible {
        var description: String { "its files are not where paths(for:day:) puts them" }
    }

    init(_ operation: String, _ error: any Error) {
        self.operation = operation
        if let database = error as? DatabaseError {
            message = database.message ?? "\(database.resultCode)"
            isDiskFull = database.resultCode == .SQLITE_FULL
        } else if let file = error as? FileError {
            message = file.description
            isDiskFull = file.isDiskFull
        } else {
            message = "\(error)"
            isDiskFull = false
        }
    }
}
