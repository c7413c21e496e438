import Foundation
import SnapCore

/// One photo on its way to a group.
public struct GroupUpload: Sendable, Hashable {
    public var photoID: PhotoID
    public var group: String
    public var day: LocalDay
    public var jpeg: [UInt8]
    public var takenAt: Date
    /// When the shared photo disappears: 48 hours after it was taken.
    public var expiresAt: Date
    public var station: String
    /// The sticker cut-out as PNG, when the station shares it.
    public var sticker: [UInt8]?

    public init(
        photoID: PhotoID, group: String, day: LocalDay, jpeg: [UInt8], takenAt: Date, expiresAt: Date, station: String,
        sticker: [UInt8]? = nil
    ) {
        self.photoID = photoID
        self.group = group
        self.day = day
        self.jpeg = jpeg
        self.takenAt = takenAt
        self.expiresAt = expiresAt
        self.station = station
        self.sticker = sticker
    }

    /// How long a shared photo lives.
    public static let lifetime: TimeInterval = 48 * 3600
}

/// Where group photos go. Implementations enforce one photo per group per day on their side too, and
/// treat a second upload of the same photo id as success, so a retried job is never sent twice.
public protocol GroupBackend: Sendable {
    /// Uploads the photo, calling `progress` with 0…1 as bytes leave.
    func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void) async throws(UploadFailure)
    /// Deletes entries whose expiry has passed, where the backend can; returns how many.
    func removeExpired(now: Date) async -> Int
}
