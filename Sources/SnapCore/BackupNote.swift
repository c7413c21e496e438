/// A backup the owner's page is making or a restore it is checking, for the ready screen: the page sends
/// one only when the work has gone on for a second (a small backup is done before anyone looks), then as
/// its percent moves, and nil when it ends. The station keeps taking photos meanwhile.
public enum BackupNote: Sendable, Hashable {
    /// A backup being made for the owner's phone: how far (0…100).
    case making(percent: Int)
    /// A backup sent to restore being checked and unpacked: how far (0…100).
    case checking(percent: Int)
}
