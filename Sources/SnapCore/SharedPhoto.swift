import Foundation

/// A photo another member of a group shared, downloaded and kept on the station until it expires.
public struct SharedPhoto: Sendable, Hashable, Codable {
    public var id: PhotoID
    public var group: String
    /// The member's name, as the group knows the station that shared it.
    public var member: String
    public var takenAt: Date
    /// 48 hours after `takenAt`: the station deletes its copy then.
    public var expiresAt: Date
    /// The JPEG on the station's disk.
    public var path: String

    public init(id: PhotoID, group: String, member: String, takenAt: Date, expiresAt: Date, path: String) {
        self.id = id
        self.group = group
        self.member = member
        self.takenAt = takenAt
        self.expiresAt = expiresAt
        self.path = path
    }
}

/// One photo of the group's slideshow as a screen shows it.
public struct Slide: Sendable, Hashable {
    public var photo: SharedPhoto
    /// How long ago it was taken, for "3 h ago".
    public var age: Duration
    /// Its place in the slideshow (0-based) and the slideshow's length: "2 / 5".
    public var index: Int
    public var count: Int

    public init(photo: SharedPhoto, age: Duration, index: Int, count: Int) {
        self.photo = photo
        self.age = age
        self.index = index
        self.count = count
    }
}
