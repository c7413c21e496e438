import Foundation
import SnapCore
import SnapFiles

/// Reads the station's `Instant` from the shell's clock (`SystemClock` in the station): uptime and the
/// wall clock. The machine's timers run on the same clock (`shell`), so its deadlines are theirs.
public struct StationClock: Sendable {
    public let shell: any ShellClock

    public init(_ shell: any ShellClock = SystemClock()) {
        self.shell = shell
    }

    public func now() -> Instant {
        Instant(uptime: shell.uptime, wall: shell.wall)
    }
}
