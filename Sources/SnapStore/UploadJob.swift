import Foundation
import SnapCore

/// One photo waiting to reach its group, as the upload queue keeps it.
public struct UploadJob: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        case pending, delivered, failed, expired
    }
    public var id: Int64
    /// The photo's id, also the idempotency key: a photo is queued, and sent, at most once.
    public var photoID: PhotoID
    public var group: String
    public var day: LocalDay
    public var photoPath: String
    public var takenAt: Date
    public var state: State
    public var attempts: Int
    public var nextAttempt: Date
    public var lastError: String?
}
