import Foundation
import Logging
import SnapCore
import SnapFiles
import Synchronization

/// The station's two system slots through RAUC: their status, installing a bundle into the one not
/// running, and marking the running one good once the station has shown it works.
///
/// Every call of the client blocks (it waits for the RAUC service), so each runs on this updater's own
/// thread, one at a time. What the station decides beyond RAUC is kept in its state folder
/// (`UpdateRecords`): which slot and version it confirmed, the update it installed, and how that ended.
///
/// GRUB's scheme (RAUC's grub backend, `bootchooser.c`) counts a slot good only while its TRY is 0, and
/// `grub.cfg` sets TRY on every boot: so every boot waits for `confirm()`, and a power cut before it goes
/// back to the other slot. A slot the station confirmed before (the same slot and version) is confirmed
/// again at once on start; only a new slot waits out `update.confirm_seconds`. Where such a power cut
/// (or a reset) left the older slot running, the station goes back to the slot it confirmed last, once:
/// it makes it first again and restarts into it at an idle moment (`startUpHere`).
public final class SlotUpdater: StationUpdater {
    let rauc: RAUC
    let records: UpdateRecords
    /// The version of the image's own system, for a slot no bundle was installed into.
    let imageVersion: String
    /// This boot's id (the kernel's `boot_id`): a way back asked in this boot is still under way when
    /// the station's process starts again (a crash, the watchdog), not a slot that failed.
    let bootID: @Sendable () -> String
    let logger: Logger
    /// Makes the backup kept before every install (the store's, `StationStore.keepBackup`) and says where;
    /// nil: none (tests of the slots alone).
    let backup: (@Sendable () throws -> String)?
    private let thread = SerialThread(name: "updates")
    private let installing = Lock(false)
    /// The status read last: what `status()` answers while an install holds the thread for minutes.
    private let lastStatus = Lock<UpdateStatus?>(nil)

    /// An updater over the client at `rauc`, keeping its records in `folder` (the state folder's `updates`);
    /// `imageVersion` is the running system's own (`SystemImage.version()`).
    public init(
        rauc: String, folder: String, imageVersion: String = SystemImage.version(),
        bootID: @escaping @Sendable () -> String = SystemImage.bootID, logger: Logger,
        backup: (@Sendable () throws -> String)? = nil
    ) {
        self.backup = backup
        self.rauc = RAUC(path: rauc)
        self.records = UpdateRecords(folder: folder)
        self.imageVersion = imageVersion
        self.bootID = bootID
        self.logger = logger
    }

    deinit { thread.shutDown() }

    public var systemVersion: String { imageVersion }

    /// When the last install was recorded (nil before any): cheap to read, so a service can look often
    /// and ask RAUC only when it changed.
    public var lastInstall: Date? { records.installedAt }

    public func currentStatus() -> UpdateStatus {
        if installing.withLock({ $0 }), let last = lastStatus.withLock({ $0 }) { return last }
        return readStatus()
    }

    public func status() async -> UpdateStatus {
        if installing.withLock({ $0 }), let last = lastStatus.withLock({ $0 }) { return last }
        return (try? await thread.run { [self] in readStatus() }) ?? UpdateStatus(managed: false, version: imageVersion)
    }

    public func install(
        bundle path: String, allowDowngrade: Bool = false,
        progress: @escaping @Sendable (String, Int, String) -> Void
    ) async throws(UpdateFailure) -> String {
        let claimed = installing.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard claimed else { throw .busy }
        defer { installing.withLock { $0 = false } }
        let outcome: Result<String, UpdateFailure>
        // Cancelled (the station stops): the client is ended, not waited for; an install takes minutes,
        // systemd's stop timeout seconds.
        let stopper = RAUC.Stopper()
        do {
            outcome = try await withTaskCancellationHandler {
                try await thread.run { [self] in
                    installHere(path, allowDowngrade: allowDowngrade, stopper: stopper, progress)
                }
            } onCancel: {
                stopper.stop()
            }
        } catch {
            outcome = .failure(.refused("the updater has stopped"))
        }
        return try outcome.get()
    }

    /// What a start finds: the slots, and the note for the screen when the update installed last did not
    /// start (the station came back on the slot it was installed from).
    public func startUp() async -> (status: UpdateStatus, note: UpdateNote?) {
        (try? await thread.run { [self] in startUpHere() }) ?? (
            UpdateStatus(managed: false, version: imageVersion), nil
        )
    }

    /// Marks the booted slot good (the bootloader keeps it), and records it as confirmed; a first start of
    /// an installed update ends it as "updated to VERSION".
    public func confirm() async throws(UpdateFailure) {
        let outcome: Result<Void, UpdateFailure>
        do {
            outcome = try await thread.run { [self] in confirmHere() }
        } catch {
            outcome = .failure(.refused("the updater has stopped"))
        }
        try outcome.get()
    }

    // MARK: on the updater's thread

    func readStatus() -> UpdateStatus {
        let status = readStatusFromRAUC()
        lastStatus.withLock { $0 = status }
        return status
    }

    private func readStatusFromRAUC() -> UpdateStatus {
        guard FileManager.default.isExecutableFile(atPath: rauc.path) else {
            return UpdateStatus(managed: false, version: imageVersion, problem: "\(rauc.path) is not installed")
        }
        let slots: RAUC.Status
        do {
            slots = try rauc.status()
        } catch {
            return UpdateStatus(managed: false, version: imageVersion, problem: error.message)
        }
        let booted = slots.bootedSlot
        let running = booted?.version ?? imageVersion
        let primary = slots.primarySlot
        // Read once: the version each slot was confirmed with, for the slots RAUC knows no version of.
        let ran = records.confirmedSlots
        // An update waits for its restart once the running slot is good and another is primary; while the
        // running slot is being tried, the bootloader's primary is the old one, which is no update.
        let pending: UpdateStatus.Pending? =
            if booted?.bootGood == true, let primary, let name = primary.bootname, name != slots.booted {
                UpdateStatus.Pending(
                    slot: name, version: primary.version ?? ran[name] ?? "?")
            } else {
                nil
            }
        return UpdateStatus(
            managed: true, version: running, booted: slots.booted, primary: primary?.bootname,
            // Confirmed with this version before: last (also an older station's record), or before the other.
            confirmed: records.confirmed == UpdateRecords.Mark(slot: slots.booted ?? "", version: running)
                || ran[slots.booted ?? ""] == running,
            slots: slots.slots.map {
                UpdateStatus.Slot(
                    name: $0.name, bootname: $0.bootname ?? "", state: $0.state, bootGood: $0.bootGood,
                    version: $0.version ?? ($0.bootname == slots.booted ? running : nil)
                        ?? $0.bootname.flatMap { ran[$0] })
            }, pending: pending, outcome: records.outcome)
    }

    private func installHere(
        _ path: String, allowDowngrade: Bool, stopper: RAUC.Stopper,
        _ progress: @escaping @Sendable (String, Int, String) -> Void
    ) -> Result<String, UpdateFailure> {
        let status = readStatus()
        guard status.managed else { return .failure(.notManaged(status.problem ?? "no slots")) }
        guard status.confirmed else { return .failure(.unconfirmed) }
        let target = status.slots.first { $0.bootname != status.booted }?.bootname ?? "?"
        do {
            let bundle = try rauc.info(path)
            // RAUC installs any bundle the keyring signed, an older one too (one with a flaw since fixed):
            // the station asks the owner first, before anything is written; a version it cannot order too.
            let downgrade = SemanticVersion.needsConfirmation(bundle.version, over: status.version)
            guard !downgrade || allowDowngrade else {
                let older = UpdateFailure.older(bundle: bundle.version, running: status.version)
                logger.warning("update: \(path) not installed: \(older) (the owner may ask for it)")
                return .failure(older)
            }
            // What the station holds is kept first: an update that goes wrong loses nothing.
            if let backup {
                do {
                    let kept = try backup()
                    logger.notice("update: a backup before installing \(bundle.version): \(kept)")
                } catch {
                    logger.error("update: \(path) not installed: no backup could be made: \(error)")
                    return .failure(.noBackup("\(error)"))
                }
            }
            let asked = downgrade ? ", older than the \(status.version) that runs, as the owner asked" : ""
            logger.notice(
                "update: installing \(bundle.version) into slot \(target)\(asked)", metadata: ["bundle": "\(path)"])
            // What that slot ran is gone once RAUC writes it: a new system is tried, whatever its version.
            try? records.forget(slot: target)
            try rauc.install(path, stopper: stopper) { percent, step in progress(bundle.version, percent, step) }
            try? records.install(.init(slot: target, version: bundle.version, from: status.version, at: Date()))
            logger.notice("update: installed \(bundle.version) into slot \(target)")
            return .success(bundle.version)
        } catch {
            logger.error("update: \(path) not installed: \(error.message)")
            return .failure(.refused(error.message))
        }
    }

    private func startUpHere() -> (UpdateStatus, UpdateNote?) {
        let status = readStatus()
        guard status.managed, let booted = status.booted else { return (status, nil) }
        if let installed = records.installed {
            // Installed into a slot that is neither running nor waiting for its restart: it did not start.
            guard installed.slot != booted, status.pending?.slot != installed.slot, installed.from == status.version
            else { return (status, nil) }
            return leftBehind(installed.slot, tried: installed.version, status)
        }
        if let back = records.returning, back.mark.slot != booted {
            // Asked in this boot: the station's process started again before the restart (a crash, the
            // watchdog); the way back is still under way.
            if back.bootID == bootID() { return (status, nil) }
            // Confirmed there since (an older station on that slot keeps no record of the way back).
            if records.confirmed == back.mark {
                records.endReturn()
            } else {
                // Gone back to once (below), and down again before the station could confirm it: it stays
                // behind, said with what RAUC says it holds.
                let held = status.slots.first { $0.bootname == back.mark.slot }?.version ?? back.mark.version
                return leftBehind(back.mark.slot, tried: held, status)
            }
        }
        // The slot confirmed last is not the one running, and no update is under way: GRUB passed over it
        // because its last start never reached `confirm()` (a power cut or a reset in the seconds between
        // GRUB's try and the station's start), and this older slot came up instead. It was confirmed, so
        // it is whole (unless RAUC's status says another bundle went into it): it is made first again, and
        // the station, once it has confirmed this slot, finds it waiting and restarts into it when idle.
        // Once: should it not come up again, the branch above leaves it behind.
        guard let last = records.confirmed, last.slot != booted, records.returning == nil,
            let slot = status.slots.first(where: { $0.bootname == last.slot }),
            slot.version == nil || slot.version == last.version
        else { return (status, nil) }
        // The record first: without it, a slot that keeps failing would be gone back to again and again.
        do {
            try records.returnTo(last, bootID: bootID())
        } catch {
            logger.error("update: slot \(last.slot) (\(last.version)) is not gone back to: \(error)")
            return (status, nil)
        }
        do {
            try rauc.markActiveOther()
        } catch {
            records.endReturn()
            logger.error("update: slot \(last.slot) (\(last.version)) could not be made first again: \(error)")
            return (status, nil)
        }
        logger.warning(
            "update: slot \(last.slot) (\(last.version)), confirmed last, did not come up at its last start (a power cut or a reset before the station confirmed it); slot \(booted) (\(status.version)) runs instead, and the station goes back to slot \(last.slot) at its next idle moment"
        )
        return (readStatus(), nil)
    }

    /// The slot `slot` was tried with `tried` and never confirmed: said once, and marked bad for good, or
    /// GRUB's last resort (every slot tried) boots it again.
    private func leftBehind(_ slot: String, tried: String, _ status: UpdateStatus) -> (UpdateStatus, UpdateNote?) {
        var status = status
        let outcome = UpdateOutcome.rolledBack(tried: tried, running: status.version)
        try? records.end(outcome)
        status.outcome = outcome
        logger.error("update: \(outcome)")
        do {
            try rauc.markBad(other: true)
        } catch {
            logger.error("update: slot \(slot) could not be marked bad: \(error.message)")
        }
        return (status, .rolledBack(tried: tried, running: status.version))
    }

    private func confirmHere() -> Result<Void, UpdateFailure> {
        do {
            try rauc.markGood()
        } catch {
            logger.error("update: the running slot could not be marked good: \(error.message)")
            return .failure(.refused(error.message))
        }
        let status = readStatus()
        let slot = status.booted ?? "?"
        try? records.confirm(.init(slot: slot, version: status.version))
        logger.notice("update: slot \(slot) (\(status.version)) marked good")
        if let installed = records.installed, installed.slot == slot {
            let outcome = UpdateOutcome.updated(version: installed.version, from: installed.from)
            try? records.end(outcome)
            logger.notice("update: \(outcome)")
        }
        return .success(())
    }
}
