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

/// A photo a member shared, as the backend lists it.
public struct SharedItem: Sendable, Hashable {
    public var photoID: PhotoID
    public var group: String
    /// The member's name, as the group knows the station that shared it.
    public var member: String
    public var takenAt: Date
    public var expiresAt: Date
    /// Where the backend keeps the photo: the object's name in the bucket, or the file's path.
    public var location: String
    /// The photo's size when the backend says: a download must come to exactly this.
    public var byteSize: Int?

    public init(
        photoID: PhotoID, group: String, member: String, takenAt: Date, expiresAt: Date, location: String,
        byteSize: Int?
    ) {
        self.photoID = photoID
        self.group = group
        self.member = member
        self.takenAt = takenAt
        self.expiresAt = expiresAt
        self.location = location
        self.byteSize = byteSize
    }
}

/// One of the station's own shared photos, to be deleted from the backend when its 48 hours are over.
public struct OwnShare: Sendable, Hashable {
    public var photoID: PhotoID
    public var group: String
    public var day: LocalDay

    public init(photoID: PhotoID, group: String, day: LocalDay) {
        self.photoID = photoID
        self.group = group
        self.day = day
    }
}

/// Where group photos go, and where the other members' photos come from. Implementations enforce one
/// photo per member per group per day on their side too, and treat a second upload of the same photo id
/// as success, so a retried job is never sent twice.
public protocol GroupBackend: Sendable {
    /// Uploads the photo, calling `progress` with 0…1 as bytes leave.
    func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void) async throws(UploadFailure)
    /// The photos shared in `group` that have not expired at `now`, oldest first, the station's own
    /// among them.
    func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem]
    /// The bytes of `item` from `offset` on, at most `limit` of them: a download cut off resumes where it
    /// stopped. A photo that is gone is `.rejected`.
    func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8]
    /// Deletes the station's own photos (their 48 hours are over); returns those that are gone now,
    /// counting those that were gone already.
    func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID]
    /// Clears what a crash may have left half-written on the backend's side; called once at start.
    func removeLeftovers() async
}

extension GroupBackend {
    public func removeLeftovers() async {}
}
