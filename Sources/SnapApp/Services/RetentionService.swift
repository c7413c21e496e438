import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import Synchronization

/// Deletes photos past the retention, and the station's own shared photos from the group backend once
/// their 48 hours are over, at start and then every quarter of an hour. Deleting is idempotent and
/// retried: a photo is marked removed only when the backend says it is gone.
public struct RetentionService: Service {
    let store: StationStore
    let backend: any GroupBackend
    let retention: Duration
    /// The meals' stickers kept on disk, at most (`jar.sticker_cap_mb`).
    let stickerCapBytes: Int
    let logger: Logger
    /// Told `.storageLow` when a pass ends with less free than `bytes` (nil: never).
    let low: (bytes: UInt64, bus: EventBus)?
    /// The time a pass counts the retention from, and waits its quarter of an hour on.
    let clock: any ShellClock
    /// Between two passes.
    static let every: Duration = .seconds(900)

    public init(
        store: StationStore, backend: any GroupBackend, retention: Duration, stickerCapBytes: Int = 200 << 20,
        low: (bytes: UInt64, bus: EventBus)? = nil, logger: Logger, clock: any ShellClock = SystemClock()
    ) {
        self.low = low
        self.clock = clock
        self.store = store
        self.backend = backend
        self.retention = retention
        self.stickerCapBytes = stickerCapBytes
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = clock.wall
                do {
                    let cutoff = now.addingTimeInterval(-retention.seconds)
                    let removed = try await store.writing { store throws(StoreError) in
                        try store.purgePhotos(takenBefore: cutoff)
                    }
                    if removed > 0 { logger.info("deleted \(removed) photo(s) past the retention") }
                    let trimmed = try await store.writing { [stickerCapBytes] store throws(StoreError) in
                        try store.trimStickers(capBytes: stickerCapBytes)
                    }
                    if trimmed > 0 { logger.info("deleted the \(trimmed) oldest sticker(s): over jar.sticker_cap_mb") }
                } catch {
                    logger.error("retention: \(error)")
                }
                await removeOwnShares(now: now)
                checkFreeSpace()
                try? await clock.sleep(for: Self.every)
            }
        }
    }
}

extension RetentionService {
    /// Says the storage is nearly full once a pass has deleted what it could and the free space is still
    /// under `low` (the machine tells the household once a day).
    func checkFreeSpace() {
        guard let low, let free = try? FreeSpace.available(at: store.directory), free < low.bytes else { return }
        logger.warning("storage: \(free / 1_000_000) MB free, nearly full")
        low.bus.send(.storageLow)
    }

    /// Deletes the station's expired shares from the backend and records which are gone.
    func removeOwnShares(now: Date) async {
        do {
            let jobs = try store.ownExpiredShares(now: now)
            guard !jobs.isEmpty else { return }
            let own = jobs.map { OwnShare(photoID: $0.photoID, group: $0.group, day: $0.day) }
            let gone = try await backend.removeOwn(own)
            try await store.writing { store throws(StoreError) in try store.markRemoteRemoved(gone) }
            logger.info("removed \(gone.count) expired photo(s) of this station from the group")
        } catch let failure as UploadFailure where failure == .offline {
            return  // tried again in a quarter of an hour
        } catch {
            logger.error("removing expired shares: \(error)")
        }
    }
}
