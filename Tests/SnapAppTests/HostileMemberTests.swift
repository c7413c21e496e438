import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapStore
import SnapTestSupport
import Testing

@testable import SnapApp

/// The audit's attack (2026-11-27): a member of the group shares rows whose photo id is a path. The
/// current schema refuses them (Tests/Group/check_fake.py: 400 23514); here a project with an older
/// schema lets them through, and the station itself must skip them, write nothing outside its inbox, and
/// go on receiving the ordinary photos.
@Suite(
    "A hostile group member against the station's inbox", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct HostileMemberTests {
    let folder = TemporaryDirectory("hostile")

    private func backend(_ fake: FakeServices, _ member: FakeServices.Member, log: Logger) -> SupabaseBackend {
        SupabaseBackend(
            projectURL: fake.baseURL, bucket: "snapstation", key: member.key, anonKey: member.anonKey,
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(20)), logger: log)
    }

    private func share(_ id: String, _ backend: SupabaseBackend) async throws {
        let now = Date()
        try await backend.upload(
            GroupUpload(
                photoID: PhotoID(id), group: "Friends",
                day: LocalDay(containing: now, in: TimeZone(identifier: "UTC")!),
                jpeg: TestImages.jpeg(width: 96, height: 64), takenAt: now, expiresAt: now + GroupUpload.lifetime,
                station: id)
        ) { _ in }
    }

    /// Every file under the test's folder, relative to it.
    private func files() -> Set<String> {
        Set(
            (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter { relative in
                var isFolder: ObjCBool = false
                let path = folder.path + "/" + relative
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
                return exists && !isFolder.boolValue
            })
    }

    @Test("should skip rows whose id is a path, write nothing outside its inbox, and keep receiving the others' photos")
    func pathLikeIDs() async throws {
        let fake = try await FakeServices()
        let kitchen = try await fake.member("Kitchen", of: "Friends")
        let mallory = try await fake.member("Mallory", of: "Friends")
        let hall = try await fake.member("Hall", of: "Friends")
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        try await share("mallory-1", backend(fake, mallory, log: quiet))
        let hostile = [
            "../../x", "../../../victim-file", folder.path + "/absolute", "a/../../x",
            String(repeating: "a", count: 300),
            "../../../../run/snapstation/reboot/x",
        ]
        try await fake.olderSchemaRows(copying: "mallory-1", ids: hostile)
        #expect(try await fake.rows().count == 1 + hostile.count, "the older schema took them")

        // The victim's state folder two levels down, so that "../../x" would still land in the test's folder.
        let store = try StationStore(directory: folder.path + "/home/station/state")
        let before = files()
        let log = CapturedLog()
        let inbox = InboxService(
            store: store, backend: backend(fake, kitchen, log: log.logger), groups: { ["Friends"] }, bus: EventBus(),
            logger: log.logger, interval: .seconds(300), clock: SystemClock())
        var unreachable = Set<String>()
        await inbox.sync(unreachable: &unreachable)
        #expect(try store.receivedPhotos(now: Date()).map(\.id) == [PhotoID("mallory-1")], "only the ordinary row")
        let skipped = log.all.filter { $0.contains("skipped a photo of Mallory in Friends") }
        #expect(skipped.count == hostile.count, "each named in the log: \(log.all)")
        let written = files().subtracting(before).filter { !$0.hasPrefix("home/station/state/snapstation.sqlite") }
        #expect(written == ["home/station/state/inbox/Friends/mallory-1.jpg"], "nothing outside the inbox: \(written)")

        // The station goes on: Hall's photo comes in the next round, and the expired ones go from the inbox.
        try await share("hall-1", backend(fake, hall, log: quiet))
        await inbox.sync(unreachable: &unreachable)
        #expect(
            try store.receivedPhotos(now: Date()).map(\.id).sorted { $0.rawValue < $1.rawValue } == [
                PhotoID("hall-1"), PhotoID("mallory-1"),
            ])
        #expect(try store.purgeReceived(now: Date() + 3 * 24 * 3600) == 2)
        #expect(files().filter { $0.hasSuffix(".jpg") }.isEmpty, "both deleted, and nothing else")
    }
}
