import Foundation
import Logging
import ServiceLifecycle
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore

/// Brings the photos the other members of the station's groups shared in the last 48 hours to the
/// station, keeps them until they expire, and tells the station what it has (`.inboxChanged`), for the
/// slideshow on the idle and lock screens.
///
/// Every `interval` it lists each group's photos, downloads each one it does not have yet, once, and
/// deletes what expired. A download cut off resumes from its partial file (`ID.jpg.part`); a photo is
/// kept only when its size matches what the backend said and it decodes through the same guarded
/// TurboJPEG path as a capture. A photo that is not a JPEG, too large, truncated or missing is skipped
/// with a log line and tried again later with a growing wait; the slideshow goes on with the others.
/// File work and decoding run on the inbox's own thread.
public final class InboxService: Service {
    /// The largest photo taken from a member: the station itself sends at most 2048 px, well under this.
    public static let maxPhotoBytes = 20 << 20

    private let store: StationStore
    private let backend: any GroupBackend
    /// The groups in force at each round (the owner's page changes them).
    private let groups: @Sendable () -> [String]
    private let bus: EventBus
    private let logger: Logger
    private let interval: Duration
    /// Rounds, expiries and the waits before a skipped photo is tried again are on this clock.
    private let clock: any ShellClock
    private let thread = SerialThread(name: "inbox")

    public init(
        store: StationStore, backend: any GroupBackend, groups: @escaping @Sendable () -> [String], bus: EventBus,
        logger: Logger, interval: Duration, clock: any ShellClock
    ) {
        self.store = store
        self.backend = backend
        self.groups = groups
        self.bus = bus
        self.logger = logger
        self.interval = interval
        self.clock = clock
    }

    deinit { thread.shutDown() }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var unreachable = Set<String>()
            while !Task.isCancelled {
                await self.sync(unreachable: &unreachable)
                try? await self.clock.sleep(for: self.interval)
            }
        }
    }

    /// One round: expired photos out, new ones in, the station told when anything changed.
    func sync(unreachable: inout Set<String>) async {
        let now = clock.wall
        var changed = false
        do {
            let removed = try await store.writing { store throws(StoreError) in try store.purgeReceived(now: now) }
            if removed > 0 { logger.info("deleted \(removed) expired photo(s) of the groups") }
            changed = removed > 0
        } catch {
            logger.error("inbox: \(error)")
        }
        for group in groups() where !Task.isCancelled {
            let items: [SharedItem]
            do {
                items = try await backend.shared(in: group, now: now)
                if unreachable.remove(group) != nil { logger.notice("the photos of \(group) can be listed again") }
            } catch {
                // Said once per outage: a station offline for a day must not log every few minutes.
                if unreachable.insert(group).inserted { logger.warning("cannot list the photos of \(group): \(error)") }
                continue
            }
            for item in items where !Task.isCancelled {
                guard (try? store.inboxHasNothingToDo(for: item.photoID, now: now)) == false else { continue }
                if await fetch(item) { changed = true }
            }
        }
        if changed, let photos = try? store.receivedPhotos(now: clock.wall) { bus.send(.inboxChanged(photos)) }
    }

    /// Downloads, checks and keeps one photo; true when it was kept.
    private func fetch(_ item: SharedItem) async -> Bool {
        let path = store.inboxPath(for: item.photoID, group: item.group)
        let inbox = store.inbox
        let folder = StationStore.inboxFolder(of: item.group)
        let partial = StationStore.inboxFile(for: item.photoID, suffix: ".jpg.part")
        let removePartial = { @Sendable () throws(FileError) in try inbox.remove(partial, in: folder) }
        if let size = item.byteSize, size > Self.maxPhotoBytes {
            await skip(item, "is \(size) bytes, more than the \(Self.maxPhotoBytes) a station takes")
            return false
        }
        do {
            let have = try await thread.run { inbox.size(of: partial, in: folder) }
            let rest = try await backend.download(item, from: have, limit: Self.maxPhotoBytes - have)
            let bytes = try await thread.run { () throws(FileError) in
                try inbox.append(rest, to: partial, in: folder, limit: Self.maxPhotoBytes)
            }
            if let size = item.byteSize, bytes.count < size {
                // Cut off: the partial file stays, and the next round resumes from its end.
                await skip(item, "arrived cut off at \(bytes.count) of \(size) bytes; resumes next time", wait: 60)
                return false
            }
            if let size = item.byteSize, bytes.count > size {
                _ = try? await thread.run(removePartial)
                await skip(item, "is \(bytes.count) bytes, not the \(size) the group listed")
                return false
            }
            try await thread.run { () throws(ImagingError) in try Self.check(bytes) }
            let photo = SharedPhoto(
                id: item.photoID, group: item.group, member: item.member, takenAt: item.takenAt,
                expiresAt: item.expiresAt, path: path)
            try await store.writing { store throws(StoreError) in try store.keepReceived(photo, jpeg: bytes) }
            _ = try? await thread.run(removePartial)
            logger.info(
                "received \(item.photoID) from \(item.member) in \(item.group)", metadata: ["bytes": "\(bytes.count)"])
            return true
        } catch let failure as UploadFailure where failure == .offline {
            return false  // the partial file stays for the next round
        } catch let error as ImagingError {
            _ = try? await thread.run(removePartial)
            await skip(item, "is not a photo the station can show: \(error)")
        } catch {
            await skip(item, "\(error)")
        }
        return false
    }

    /// Logs why `item` was not kept and when it is tried again: after `wait` seconds, or a wait that
    /// doubles from 5 minutes up to 6 hours with each failure.
    private func skip(_ item: SharedItem, _ reason: String, wait: TimeInterval? = nil) async {
        let attempts = (try? store.inboxAttempts(for: item.photoID)) ?? 0
        let delay = wait ?? min(6 * 3600, 300 * pow(2, Double(min(attempts, 10))))
        logger.warning(
            "skipped \(item.photoID) from \(item.member) in \(item.group): \(reason)",
            metadata: ["next try in s": "\(Int(delay))"])
        let next = clock.wall.addingTimeInterval(delay)
        try? await store.writing { store throws(StoreError) in
            try store.noteInboxFailure(item.photoID, error: reason, nextAttempt: next)
        }
    }

    /// A JPEG the station can decode, within the decoder's limits: the same guarded path as a capture.
    private static func check(_ bytes: [UInt8]) throws(ImagingError) {
        guard bytes.count > 3, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .jpeg(call: "check", message: "the data is not a JPEG")
        }
        // A member's photo arrives whole: a file TurboJPEG only warns about (cut short) is not shown.
        let warnings = JPEGWarnings()
        _ = try JPEG.decode(bytes, minimumLongestSide: 64, warnings: warnings)
        if let warning = warnings.messages.first { throw .jpeg(call: "tjDecompress2", message: warning) }
    }
}
