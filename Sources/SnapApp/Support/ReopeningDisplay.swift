import SnapDevices
import SnapFiles
import Synchronization

/// The display frames go to: the one opened at start or, where that was missing (DRM master held by
/// another process, a panel not yet powered), its stand-in until the real one opens. `reopen` runs on
/// the display's own thread, every `interval`, until it succeeds; the display service then draws the
/// current screen on it and the station is told.
final class ReopeningDisplay: Sendable {
    private let current: Lock<any Display>
    private let reopen: (@Sendable () throws(DeviceError) -> any Display)?

    /// `display` as opened at start; `reopen` opens the real one, nil when there is nothing to retry.
    init(_ display: any Display, reopen: (@Sendable () throws(DeviceError) -> any Display)?) {
        current = Lock(display)
        self.reopen = reopen
    }

    /// The display to draw on now.
    var display: any Display { current.withLock { $0 } }

    /// Whether a missing display is being waited for.
    var waitsForDisplay: Bool { reopen != nil }

    /// Tries `reopen` on `thread` every `interval` of `clock` until it opens (true), or the task is
    /// cancelled (false).
    func reopenWhenAvailable(every interval: Duration, on thread: SerialThread, clock: any ShellClock) async -> Bool {
        guard let reopen else { return false }
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return false }
            let opened = try? await thread.run { () -> Bool in
                guard let display = try? reopen() else { return false }
                self.current.withLock { $0 = display }
                return true
            }
            if opened == true { return true }
        }
        return false
    }
}
