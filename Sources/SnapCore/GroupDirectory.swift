import Foundation

/// One member of a group, as the group's server lists it.
public struct GroupMember: Sendable, Hashable {
    /// The name the other stations show for it ("Kitchen").
    public var name: String
    public var joinedAt: Date
    /// When it last shared a photo in the group; nil when it never has.
    public var lastShared: Date?
    /// It is this station.
    public var isStation: Bool

    public init(name: String, joinedAt: Date, lastShared: Date?, isStation: Bool) {
        self.name = name
        self.joinedAt = joinedAt
        self.lastShared = lastShared
        self.isStation = isStation
    }
}

/// Making, joining and leaving groups on the group's server, as the owner does on the page. Failures are
/// `UploadFailure`s: `.rejected` carries the server's words for the person (a wrong code, a full group),
/// `.offline` and `.signInFailed` as for a photo.
public protocol GroupDirectory: Sendable {
    /// Makes `group` with the station as its first member, named `member`; answers its invite code.
    func create(group: String, member: String) async throws(UploadFailure) -> String
    /// Joins the group whose invite code this is, as `member`; answers the group's name.
    func join(code: String, member: String) async throws(UploadFailure) -> String
    /// A new invite code for `group`; the old one stops working.
    func invite(group: String) async throws(UploadFailure) -> String
    /// Leaves `group`: its rows go, and the station deletes the objects it shared there.
    func leave(group: String) async throws(UploadFailure)
    /// The members of `group`, in the order they joined.
    func members(of group: String) async throws(UploadFailure) -> [GroupMember]
}
