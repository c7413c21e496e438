import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import Synchronization
import Testing

@testable import SnapApp

/// A group backend in front of the folder backend that counts downloads, and can cut one short.
final class RecordingBackend: GroupBackend {
    let inner: FolderBackend
    let downloads = Lock<[(id: String, offset: Int)]>([])
    /// The next download of this many bytes or more is cut after this many.
    let cutAfter = Lock<Int?>(nil)

    init(_ inner: FolderBackend) { self.inner = inner }

    func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void) async throws(UploadFailure) {
        try await inner.upload(upload, progress: progress)
    }
    func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] {
        try await inner.shared(in: group, now: now)
    }
    func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
        downloads.withLock { $0.append((item.photoID.rawValue, offset)) }
        let bytes = try await inner.download(item, from: offset, limit: limit)
        if let cut = cutAfter.withLock({ $0.take() }) { return Array(bytes.prefix(cut)) }
        return bytes
    }
    func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] {
        try await inner.removeOwn(photos)
    }
}

@Suite("The group inbox: the other members' photos")
struct InboxServiceTests {
    let folder = TemporaryDirectory("inbox")
    let clock = HeldClock()
    var now: Date { clock.wall }

    var day: LocalDay { LocalDay(containing: now, in: TimeZone(identifier: "UTC")!) }

    /// Shares a photo from `station` into the shared folder, as that station would.
    func share(_ id: String, from station: String, bytes: [UInt8]? = nil, hoursAgo: Double = 1) async throws {
        let taken = now.addingTimeInterval(-hoursAgo * 3600)
        try await FolderBackend(folder: folder.path + "/shared", station: station).upload(
            GroupUpload(
                photoID: PhotoID(id), group: "Family", day: day, jpeg: bytes ?? TestImages.jpeg(width: 96, height: 64),
                takenAt: taken, expiresAt: taken + GroupUpload.lifetime, station: station)
        ) { _ in }
    }

    func service(
        _ backend: any GroupBackend, store: StationStore, bus: EventBus, log: CapturedLog,
        interval: Duration = .seconds(300)
    ) -> InboxService {
        InboxService(
            store: store, backend: backend, groups: { ["Family"] }, bus: bus, logger: log.logger,
            interval: interval, clock: clock)
    }

    /// Runs the service's own loop on the held clock; `round()` moves the clock to its next round and
    /// returns once that round is done (the loop waits on the clock again).
    func running(_ inbox: InboxService, interval: Duration) async -> (
        round: @Sendable () async -> Void, stop: Task<Void, any Error>
    ) {
        let task = Task { try await inbox.run() }
        _ = await clock.sleepers()
        let clock = clock
        return (
            {
                clock.advance(by: interval)
                _ = await clock.sleepers()
            }, task
        )
    }

    func backend() throws -> RecordingBackend {
        try AtomicFile.createFolder(folder.path + "/shared")
        return RecordingBackend(FolderBackend(folder: folder.path + "/shared", station: "Kitchen"))
    }

    @Test("should fetch the other stations' photos once, leave its own, and tell the station")
    func fetchesOnce() async throws {
        let backend = try backend()
        let store = try StationStore(directory: folder.path + "/state")
        try await share("hall-1", from: "Hall", hoursAgo: 2)
        try await share("porch-1", from: "Porch")
        try await share("own-1", from: "Kitchen")
        let own = ProcessedPhoto(id: PhotoID("own-1"), photoPath: "/x.jpg", thumbnailPath: "/x-t.jpg", takenAt: now)
        try store.share(own, group: "Family", day: day, now: now)
        let bus = EventBus()
        let inbox = service(backend, store: store, bus: bus, log: CapturedLog())
        var unreachable = Set<String>()
        await inbox.sync(unreachable: &unreachable)
        await inbox.sync(unreachable: &unreachable)
        #expect(backend.downloads.withLock { $0.map(\.id) } == ["hall-1", "porch-1"], "each once, not its own")
        let kept = try store.receivedPhotos(now: now)
        #expect(kept.map(\.member) == ["Hall", "Porch"])
        #expect(kept.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        bus.finish()
        var events: [Event] = []
        for await event in bus.events { events.append(event) }
        #expect(events == [.inboxChanged(kept)], "one message, for the round that changed something")
    }

    @Test("should skip what is not a photo, too large or missing, log why, and keep the rest")
    func badInput() async throws {
        let backend = try backend()
        let store = try StationStore(directory: folder.path + "/state")
        try await share("good", from: "Hall")
        try await share("text", from: "Porch", bytes: Array("this is not a JPEG".utf8))
        try await share("broken", from: "Attic", bytes: [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 9, count: 500))
        try await share("gone", from: "Cellar")
        unlink(folder.path + "/shared/Family/Cellar/\(day)/gone.jpg")
        let log = CapturedLog()
        var unreachable = Set<String>()
        await service(backend, store: store, bus: EventBus(), log: log).sync(unreachable: &unreachable)
        #expect(try store.receivedPhotos(now: now).map(\.id.rawValue) == ["good"])
        for id in ["text", "broken", "gone"] {
            #expect(log.all.contains { $0.contains("skipped \(id)") }, "\(id) is named in the log")
            #expect(try store.inboxAttempts(for: PhotoID(id)) == 1)
        }
        #expect(log.all.contains { $0.contains("skipped text") && $0.contains("not a JPEG") })
        await service(backend, store: store, bus: EventBus(), log: log).sync(unreachable: &unreachable)
        #expect(backend.downloads.withLock { $0.count } == 4, "failed ones wait before the next try")
    }

    @Test("should refuse a photo listed as larger than a station takes without downloading it")
    func tooLarge() async throws {
        let store = try StationStore(directory: folder.path + "/state")
        let huge = SharedItem(
            photoID: PhotoID("huge"), group: "Family", member: "Hall", takenAt: now, expiresAt: now + 3600,
            location: "/nowhere", byteSize: 30 << 20)
        struct Listing: GroupBackend {
            let item: SharedItem
            func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void)
                async throws(UploadFailure)
            {}
            func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] { [item] }
            func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
                Issue.record("downloaded a photo listed at 30 MB")
                return []
            }
            func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] { [] }
        }
        let log = CapturedLog()
        var unreachable = Set<String>()
        await service(Listing(item: huge), store: store, bus: EventBus(), log: log).sync(unreachable: &unreachable)
        #expect(log.all.contains { $0.contains("skipped huge") && $0.contains("more than") })
    }

    @Test("should resume a download cut off in the middle from where it stopped")
    func resumes() async throws {
        let backend = try backend()
        let store = try StationStore(directory: folder.path + "/state")
        let jpeg = TestImages.jpeg(width: 320, height: 240)
        try await share("hall-1", from: "Hall", bytes: jpeg)
        backend.cutAfter.withLock { $0 = 700 }
        var unreachable = Set<String>()
        await service(backend, store: store, bus: EventBus(), log: CapturedLog()).sync(unreachable: &unreachable)
        #expect(try store.receivedPhotos(now: now).isEmpty, "cut off: not kept yet")
        let partial = store.inboxPath(for: PhotoID("hall-1"), group: "Family") + ".part"
        #expect(FileManager.default.contents(atPath: partial)?.count == 700)
        // The wait for a cut download is short; the next round after it resumes from byte 700.
        try await store.writing { store throws(StoreError) in
            try store.noteInboxFailure(PhotoID("hall-1"), error: "test", nextAttempt: Date.distantPast)
        }
        await service(backend, store: store, bus: EventBus(), log: CapturedLog()).sync(unreachable: &unreachable)
        #expect(backend.downloads.withLock { $0.map(\.offset) } == [0, 700])
        let kept = try #require(try store.receivedPhotos(now: now).first)
        #expect(FileManager.default.contents(atPath: kept.path).map { [UInt8]($0) } == jpeg, "whole, byte for byte")
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test("should delete received photos, their files and rows, when they expire")
    func expiry() async throws {
        let store = try StationStore(directory: folder.path + "/state")
        let photo = SharedPhoto(
            id: PhotoID("old"), group: "Family", member: "Hall", takenAt: now - 47 * 3600, expiresAt: now + 3600,
            path: store.inboxPath(for: PhotoID("old"), group: "Family"))
        try store.keepReceived(photo, jpeg: TestImages.jpeg())
        #expect(try store.purgeReceived(now: now) == 0)
        #expect(try store.snapshot(groups: ["Family"], day: day, now: now).inbox.map(\.id) == [photo.id])
        #expect(try store.purgeReceived(now: now + 3600) == 1)
        #expect(!FileManager.default.fileExists(atPath: photo.path))
        #expect(try store.receivedPhotos(now: now).isEmpty)
    }

    @Test("should try a skipped photo again only when its wait has passed on the clock: 5 minutes, then 10")
    func retriesOnTheClock() async throws {
        let backend = try backend()
        let store = try StationStore(directory: folder.path + "/state")
        try await share("text", from: "Porch", bytes: Array("this is not a JPEG".utf8))
        let log = CapturedLog()
        let (round, task) = await running(
            service(backend, store: store, bus: EventBus(), log: log, interval: .seconds(60)), interval: .seconds(60))
        defer { task.cancel() }
        func tries() -> Int { backend.downloads.withLock { $0.count } }
        #expect(tries() == 1, "the first round at 0 s")
        for _ in 1...4 { await round() }
        #expect(tries() == 1, "not at 240 s: the wait is 300 s")
        await round()
        #expect(tries() == 2, "tried again at 300 s")
        #expect(
            log.all.filter { $0.contains("skipped text") }.map { $0.contains("next try in s\": 600]") } == [
                false, true,
            ])
        for _ in 1...9 { await round() }
        #expect(tries() == 2, "not at 840 s: the second wait is 600 s")
        await round()
        #expect(tries() == 3, "tried again at 900 s")
    }

    @Test("should delete a received photo at the round its 48 hours end, and tell the station")
    func expiresOnTheClock() async throws {
        let backend = try backend()
        let store = try StationStore(directory: folder.path + "/state")
        try await share("hall-1", from: "Hall", hoursAgo: 47)
        let bus = EventBus()
        let (round, task) = await running(
            service(backend, store: store, bus: bus, log: CapturedLog(), interval: .seconds(1800)),
            interval: .seconds(1800))
        defer { task.cancel() }
        let kept = try store.receivedPhotos(now: now)
        #expect(kept.map(\.id.rawValue) == ["hall-1"], "received in the first round")
        await round()
        #expect(try store.receivedPhotos(now: now).count == 1, "kept at 47 h 30 min")
        await round()
        #expect(try store.receivedPhotos(now: now).isEmpty, "gone at 48 h")
        #expect(!FileManager.default.fileExists(atPath: try #require(kept.first).path))
        task.cancel()
        _ = await task.result
        bus.finish()
        var events: [Event] = []
        for await event in bus.events { events.append(event) }
        #expect(events == [.inboxChanged(kept), .inboxChanged([])])
    }
}
