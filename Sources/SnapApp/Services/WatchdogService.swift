import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import Synchronization

/// Sends a heartbeat through the station's event loop at half the watchdog interval. The loop answers
/// each one with WATCHDOG=1, so a loop that hangs stops the pings and systemd restarts the station,
/// even though the process is still alive.
public struct WatchdogService: Service {
    let interval: Duration
    let bus: EventBus
    /// The heartbeats are counted on this clock.
    let clock: any ShellClock

    public init(interval: Duration, bus: EventBus, clock: any ShellClock) {
        self.interval = interval
        self.bus = bus
        self.clock = clock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                bus.send(.heartbeat)
                try? await clock.sleep(for: interval / 2)
            }
        }
    }
}
