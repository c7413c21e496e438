import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapUpdates

/// The station's side of A/B updates: health decides.
///
/// - At start it says so on the display when the update installed last did not start (the station came
///   back on the old slot by itself).
/// - It marks the running slot good: at once where it confirmed this slot and version before (GRUB's
///   scheme spends a try on every boot), otherwise after `confirmAfter` of running. Running that long in
///   this process means READY and a fed watchdog throughout: the unit is `Type=notify` with
///   `WatchdogSec`, and systemd kills and restarts a station whose loop stops answering, which starts
///   this wait again. A slot that never gets there is never marked, and the guard unit's reboot (or the
///   next power cut) takes the bootloader back to the other slot.
/// - Then it looks for an update installed and waiting (another slot primary while the running one is
///   good) and tells the machine, which asks for the restart at an idle moment: every `pollEvery`, and
///   within two seconds of an install (`snapstation update install` over SSH writes the updater's record,
///   whose change is cheap to see; asking RAUC is not).
public struct UpdateService: Service {
    let updater: SlotUpdater
    let bus: EventBus
    let confirmAfter: Duration
    let pollEvery: Duration
    let logger: Logger
    /// The wait before the slot is marked good and the polls are counted on this clock.
    let clock: any ShellClock

    public init(
        updater: SlotUpdater, bus: EventBus, confirmAfter: Duration, pollEvery: Duration = .seconds(30), logger: Logger,
        clock: any ShellClock
    ) {
        self.updater = updater
        self.bus = bus
        self.confirmAfter = confirmAfter
        self.pollEvery = pollEvery
        self.logger = logger
        self.clock = clock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            let (status, note) = await updater.startUp()
            guard status.managed else {
                logger.info("updates: not set up on this system (\(status.problem ?? "no slots"))")
                return
            }
            logger.info(
                "updates: running \(status.version) on slot \(status.booted ?? "?")",
                metadata: ["confirmed": "\(status.confirmed)", "primary": "\(status.primary ?? "none")"])
            if let note { bus.send(.update(note)) }
            if !status.confirmed {
                logger.notice("update: slot \(status.booted ?? "?") is marked good after \(confirmAfter) of running")
                try? await clock.sleep(for: confirmAfter)
                guard !Task.isCancelled else { return }
            }
            try? await updater.confirm()
            var announced: String?
            var lastInstall = updater.lastInstall
            var lastAsked = clock.uptime - pollEvery
            while !Task.isCancelled {
                let install = updater.lastInstall
                if install != lastInstall || clock.uptime - lastAsked >= pollEvery {
                    (lastInstall, lastAsked) = (install, clock.uptime)
                    if let pending = await updater.status().pending, pending.version != announced {
                        logger.notice("update: \(pending.version) waits in slot \(pending.slot) for a restart")
                        bus.send(.update(.restarting(version: pending.version)))
                        announced = pending.version
                    }
                }
                try? await clock.sleep(for: .seconds(2))
            }
        }
        // A station whose updates are not set up stays until it stops: a service that returns ends the group.
        try? await gracefulShutdown()
    }
}
