import Foundation
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import SnapText
import Synchronization
import Testing

@testable import SnapApp

/// The service that sends the machine's notices, against the fake's webhook: in order, in the language in
/// force when it sends, a kind turned off since not at all, a failed one tried again and then given up.
@Suite("NoticeService: the notices as they go out", .serialized, .startsProcesses)
struct NoticeServiceTests {
    let fake: FakeServices

    init() async throws { fake = try await FakeServices() }

    func hooks() async throws -> [[String: String]] {
        try await fake.requests().filter { $0["path"] as? String == "/hook/kitchen" }.compactMap {
            ($0["body"] as? String).flatMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
        }
    }

    @Test("should send each notice once, in order and in the station's language, and none of a kind turned off")
    func inOrder() async throws {
        let settings = Lock(
            (NoticeSettings(address: fake.baseURL + "/hook/kitchen", format: .webhook, off: [.storage]), Language.fr))
        let log = CapturedLog()
        let service = NoticeService(
            station: "Cuisine", page: nil, backoff: [], settings: { settings.withLock { $0 } }, logger: log.logger)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        service.post(.storageFull)
        service.post(.updateInstalled(version: "2.0.0"))
        #expect(await eventually { log.all.contains { $0.contains("notice sent (update)") } })
        // One after another: the update's came after the storage's was passed over.
        let sent = try await hooks()
        #expect(sent.map { $0["kind"] } == ["update"], "\(sent)")
        #expect(sent.first?["title"] == "La mise à jour 2.0.0 est installée" && sent.first?["station"] == "Cuisine")
    }

    @Test("should try a notice the webhook failed again after each of its waits, and give up after the last")
    func again() async throws {
        let settings = NoticeSettings(address: fake.baseURL + "/hook/kitchen", format: .webhook)
        let log = CapturedLog()
        let clock = HeldClock()
        let service = NoticeService(
            station: "Kitchen", page: nil, backoff: [.seconds(10), .seconds(60)], settings: { (settings, .en) },
            logger: log.logger, clock: clock)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        try await fake.queue("hook", ["503"])
        service.post(.photoDue(group: "Family"))
        #expect(await clock.sleepers(1) == [.seconds(10)], "the first wait: 10 s from the failed try")
        clock.advance(by: .seconds(10))
        #expect(await eventually { log.all.contains { $0.contains("notice sent (photo_due)") } })
        let delivered = try await fake.requests().filter { $0["path"] as? String == "/hook/kitchen" }
        #expect(delivered.count == 2, "the failed try and the one that went")
        try await fake.queue("hook", ["503", "500", "503"])
        service.post(.storageFull)
        #expect(await clock.sleepers(1) == [.seconds(20)], "10 s from the second notice's first try, at 10 s")
        clock.advance(by: .seconds(10))
        #expect(await clock.sleepers(1) == [.seconds(80)], "then 60 s")
        clock.advance(by: .seconds(59))
        #expect(await clock.sleepers(1) == [.seconds(80)], "still waiting a second before its 60 s")
        clock.advance(by: .seconds(1))
        #expect(
            await eventually {
                log.all.contains { $0.contains("notice storage not sent, given up: HTTP 503") }
            })
        #expect(
            try await hooks().map { $0["kind"] } == ["photo_due", "photo_due", "storage", "storage", "storage"],
            "each try kept")
    }

    @Test("should send the owner's test at once, beside the queue, and say the server's refusal")
    func test() async throws {
        let log = CapturedLog()
        let service = NoticeService(
            station: "Küche", page: nil, settings: { (NoticeSettings.none, .en) }, logger: log.logger)
        let topic = NoticeSettings(address: fake.baseURL + "/ntfy/kitchen-test", format: .ntfy)
        #expect(await service.tryNotices(topic, language: .de) == .sent, "no run() needed: the page waits for it")
        let polled = try await HTTPClient().send(HTTPRequest(url: fake.baseURL + "/ntfy/kitchen-test/json?poll=1"))
        let message = try #require(
            try JSONSerialization.jsonObject(with: Data(polled.body.split(separator: UInt8(ascii: "\n"))[0]))
                as? [String: Any])
        #expect(message["title"] as? String == "Küche erreicht Ihre Handys")
        let locked = NoticeSettings(address: fake.baseURL + "/ntfy/locked-kitchen", format: .ntfy)
        #expect(await service.tryNotices(locked, language: .en) == .refused("HTTP 403: forbidden"))
    }
}

@Suite("RetentionService: the storage nearly full, and its passes on the clock it is given", .startsProcesses)
struct StorageLowTests {
    @Test("should delete a photo at the first pass after its retention ends, a quarter of an hour apart")
    func passes() async throws {
        let folder = TemporaryDirectory("retention-passes")
        let store = try StationStore(directory: folder.path + "/state")
        let clock = HeldClock()
        let utc = TimeZone(identifier: "UTC")!
        // Taken 47 h 50 min before the clock's start: ten minutes of its 48 hours left.
        let taken = clock.wall.addingTimeInterval(-(48 * 3600 - 600))
        let id = PhotoID.new(at: taken, in: utc)
        let paths = store.paths(for: id, day: LocalDay(containing: taken, in: utc))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]  // the files' bytes are not what retention reads
        try store.storePhoto(
            ProcessedPhoto(id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: taken),
            jpeg: jpeg, thumbnail: jpeg)
        let service = RetentionService(
            store: store, backend: FolderBackend(folder: folder.path + "/group", station: "Kitchen"),
            retention: .seconds(48 * 3600), logger: CapturedLog().logger, clock: clock)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        #expect(await clock.sleepers(1) == [.seconds(900)], "the first pass done, the next in 15 minutes")
        #expect(FileManager.default.fileExists(atPath: paths.photo), "ten minutes of its retention left: kept")
        clock.advance(by: .seconds(899))
        #expect(await clock.sleepers(1) == [.seconds(900)], "no pass before its quarter of an hour")
        clock.advance(by: .seconds(1))
        #expect(await clock.sleepers(1) == [.seconds(1800)], "the second pass done")
        #expect(!FileManager.default.fileExists(atPath: paths.photo), "past its 48 hours at the second pass: gone")
    }

    @Test("should say the storage is nearly full after a pass that leaves less free than the threshold")
    func nearlyFull() async throws {
        let folder = TemporaryDirectory("storage-low")
        let store = try StationStore(directory: folder.path + "/state")
        let bus = EventBus()
        let free = try FreeSpace.available(at: store.directory)
        let service = RetentionService(
            store: store, backend: FolderBackend(folder: folder.path + "/group", station: "Kitchen"),
            retention: .seconds(3600), low: (free * 2, bus), logger: CapturedLog().logger)
        let running = Task { try await service.run() }
        defer { running.cancel() }
        var events = bus.events.makeAsyncIterator()
        #expect(await events.next() == .storageLow)
    }
}
