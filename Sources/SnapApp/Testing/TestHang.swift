import Foundation
import Logging
import ServiceLifecycle

/// A deliberate hang, for the system test of the watchdog, and the one test hook in the running
/// station: it exists only when `SNAPSTATION_TEST_HANG=1` is in the environment.
///
/// SIGUSR2 then blocks every thread of the cooperative pool, as a deadlock would: the event loop stops
/// handling heartbeats, the WATCHDOG=1 pings stop, and systemd's watchdog, not a crash, has to restart
/// the station, which stays alive. Nothing of it is in the event loop itself.
public struct TestHang: Service {
    let logger: Logger

    /// The hang service when the environment asks for it; nil otherwise.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        guard environment["SNAPSTATION_TEST_HANG"] == "1" else { return nil }
        self.logger = logger
    }

    public func run() async throws {
        signal(SIGUSR2, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR2)
        let (signals, continuation) = AsyncStream<Void>.makeStream()
        source.setEventHandler { continuation.yield() }
        source.resume()
        defer { source.cancel() }
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                logger.warning("SIGUSR2 with SNAPSTATION_TEST_HANG=1: the cooperative pool hangs here, as a test")
                for _ in 0..<max(2, ProcessInfo.processInfo.activeProcessorCount) {
                    Task.detached { while true { sleep(3600) } }
                }
            }
        }
    }
}
