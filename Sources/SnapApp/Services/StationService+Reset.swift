import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapStore

extension StationService {
    /// How long a factory reset waits for the group's server before it erases the station without it.
    static let farewellLimit: Duration = .seconds(20)

    /// The factory reset, confirmed on the page and at the station. Where the group's server answers, the
    /// station's own photos there are deleted and it leaves `groups` (its rows go); where it does not (no
    /// network, 20 s), the log says so and the erasing goes on: the photos there end with their 48 hours.
    /// Then the state folder is marked and the station restarts; the next start erases it
    /// (`StationStore.applyErase`). A mark that cannot be written is a storage problem on the screen, and
    /// nothing is erased.
    func eraseStation(groups: [String]) async {
        let (backend, store, logger) = (parts.backend, parts.store, logger)
        let left =
            await withTimeout(Self.farewellLimit, on: clock.shell) {
                await Self.leave(groups, backend: backend, store: store, logger: logger)
            } != nil
        if !left {
            logger.warning(
                "factory reset: the group's server did not answer in \(Self.farewellLimit); erasing without it")
        }
        do {
            try StationStore.markForErasing(store.directory)
        } catch {
            logger.error("factory reset: the state folder could not be marked for erasing: \(error)")
            bus.send(.storageFailed(error.isDiskFull ? .full : .failed("\(error)")))
            return
        }
        restart("factory reset: restarting to erase \(store.directory) as the station starts")
    }

    /// The restore waiting, confirmed at the station: a backup of what it replaces is kept, the restore
    /// marked for the next start (`StationStore.confirmRestore`, on the store's thread behind its writes),
    /// and the station restarts into it (`applyRestore`). Where that backup cannot be made (a full card),
    /// nothing is replaced: the outcome says why, for the page, and the station goes on.
    func restore(_ version: String) async {
        let store = parts.store
        do {
            let confirmed = try await store.writing { store throws(StoreError) in
                do throws(BackupProblem) {
                    return Result<StagedRestore?, BackupProblem>.success(try store.confirmRestore())
                } catch {
                    return .failure(error)
                }
            }
            guard let staged = try confirmed.get() else {
                logger.warning("restore of the backup made by \(version): nothing waits any more")
                bus.send(.restoreNotConfirmed)
                return
            }
            logger.notice(
                "restore: kept \(staged.keptBackup ?? "no backup") of what the backup made by \(version) replaces")
        } catch {
            logger.error("restore of the backup made by \(version): \(error); the station keeps what it has")
            store.noteRestoreProblem("\(error)")
            bus.send(.restoreNotConfirmed)
            return
        }
        restart("restarting into the backup made by \(version): the store is replaced as the station starts")
    }

    /// Deletes the station's photos on the group's server, then leaves each group; each failure logged.
    private static func leave(_ groups: [String], backend: any GroupBackend, store: StationStore, logger: Logger) async
    {
        do {
            let own = try store.ownLiveShares().map { OwnShare(photoID: $0.photoID, group: $0.group, day: $0.day) }
            if !own.isEmpty {
                let gone = try await backend.removeOwn(own)
                logger.notice(
                    "factory reset: \(gone.count) of the station's \(own.count) photo(s) deleted on the group's server")
            }
        } catch {
            logger.warning("factory reset: the station's photos on the group's server were not deleted: \(error)")
        }
        guard let directory = backend as? any GroupDirectory else { return }
        for group in groups {
            do {
                try await directory.leave(group: group)
                logger.notice("factory reset: left \(group)")
            } catch {
                logger.warning("factory reset: could not leave \(group): \(error)")
            }
        }
    }
}
