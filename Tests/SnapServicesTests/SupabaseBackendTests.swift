import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

/// The Supabase backend against the stand-in, whose REST and Storage routes run in a real PostgreSQL
/// with docs/supabase/schema.sql: its constraints and row-level security answer, not the fake's code.
@Suite(
    "SupabaseBackend against the Supabase stand-in on a real PostgreSQL", .serialized,
    .enabled(if: FakeServices.postgres != nil, Comment(rawValue: FakeServices.noPostgres)), .startsProcesses)
struct SupabaseBackendTests {
    let fake: FakeServices
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let taken = Date()

    init() async throws { fake = try await FakeServices() }

    private func backend(_ member: FakeServices.Member, key: String? = nil) -> SupabaseBackend {
        SupabaseBackend(
            projectURL: fake.baseURL + "/", bucket: "snapstation", key: key ?? member.key, anonKey: member.anonKey,
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(10)), logger: Logger(label: "test"))
    }

    private func upload(_ id: String, group: String = "Family & Friends", day: LocalDay? = nil) -> GroupUpload {
        let day = day ?? LocalDay(containing: taken, in: TimeZone(identifier: "UTC")!)
        return GroupUpload(
            photoID: PhotoID(id), group: group, day: day, jpeg: TestImages.jpeg(width: 64, height: 48),
            takenAt: taken, expiresAt: taken + GroupUpload.lifetime, station: "Kitchen", sticker: [0x89, 0x50])
    }

    private func failure(_ upload: GroupUpload, _ backend: SupabaseBackend) async -> UploadFailure? {
        do {
            try await backend.upload(upload) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test("should upload the photo and sticker as the member, then insert the day's row with its size")
    func uploads() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        let progress = Lock<[Double]>([])
        try await backend(kitchen).upload(upload("a")) { fraction in progress.withLock { $0.append(fraction) } }
        let day = upload("a").day
        // Under the group's folder, a UUID the server made, not under its name.
        let objects = try await fake.objects()
        let folder = String(objects.first?.prefix(36) ?? "")
        #expect(folder.count == 36 && folder.allSatisfy { $0.isHexDigit || $0 == "-" }, "\(objects)")
        #expect(objects == ["\(folder)/\(day)/a-sticker.png", "\(folder)/\(day)/a.jpg"])
        let row = try #require(try await fake.rows().first)
        #expect(row["member_name"] as? String == "Kitchen", "the server names the member, not the station")
        #expect(row["byte_size"] as? Int == upload("a").jpeg.count)
        #expect(progress.withLock { $0 }.last == 1)
    }

    @Test("should hold each member to one photo a day in each group, and accept a retry of the same photo")
    func oncePerMemberPerDay() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        let hall = try await fake.member("Hall", of: "Family & Friends")
        _ = try await fake.member("Kitchen", of: "Climbers", as: kitchen)
        try await backend(kitchen).upload(upload("a")) { _ in }
        #expect(await failure(upload("a"), backend(kitchen)) == nil, "a retry after a crash completes")
        #expect(await failure(upload("b"), backend(kitchen)) == .alreadySentToday, "the server's 409")
        #expect(
            try await fake.objects().allSatisfy { !$0.contains("/b") }, "the refused photo's objects are deleted")
        #expect(await failure(upload("h"), backend(hall)) == nil, "another member shares the same day")
        #expect(await failure(upload("c", group: "Climbers"), backend(kitchen)) == nil, "and so does another group")
        #expect(try await fake.rows().count == 3)
    }

    @Test("should deliver a photo whose id another station used too: ids are unique per member")
    func sameIDOtherStation() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        let porch = try await fake.member("Porch", of: "Climbers")
        try await backend(kitchen).upload(upload("20260310-090000-1a2b")) { _ in }
        try await backend(porch).upload(upload("20260310-090000-1a2b", group: "Climbers")) { _ in }
        let rows = try await fake.rows().filter { $0["photo_id"] as? String == "20260310-090000-1a2b" }
        #expect(Set(rows.compactMap { $0["member_name"] as? String }) == ["Kitchen", "Porch"], "both delivered")
    }

    @Test("should be refused outside its groups (no folder to write to), and with a key the project did not sign")
    func refusals() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        _ = try await fake.member("Porch", of: "Climbers")
        guard case .rejected(let outside)? = await failure(upload("x", group: "Climbers"), backend(kitchen)) else {
            Issue.record("a photo into a group the station is not in went through")
            return
        }
        #expect(outside.contains("not a member of Climbers"), "the server names no folder to a stranger: \(outside)")
        #expect(try await fake.objects().isEmpty, "nothing was written")
        let forged = await failure(upload("y"), backend(kitchen, key: kitchen.key + "x"))
        #expect(
            forged != nil && forged != .offline,
            "a bad signature is refused, not retried: \(String(describing: forged))")
    }

    @Test("should keep the job queued on 5xx and broken connections")
    func transient() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        try await fake.queue("storage", ["500", "reset"])
        #expect(await failure(upload("a"), backend(kitchen)) == .offline)
        #expect(await failure(upload("a"), backend(kitchen)) == .offline)
        try await fake.queue("rest", ["503"])
        #expect(await failure(upload("a"), backend(kitchen)) == .offline)
        #expect(await failure(upload("a"), backend(kitchen)) == nil)
    }

    @Test("should list the group's photos, download one, and resume a download that was cut off")
    func receives() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        let hall = try await fake.member("Hall", of: "Family & Friends")
        let porch = try await fake.member("Porch", of: "Climbers")
        try await backend(hall).upload(upload("h")) { _ in }
        try await backend(porch).upload(upload("p", group: "Climbers")) { _ in }
        let listed = try await backend(kitchen).shared(in: "Family & Friends", now: Date())
        let item = try #require(listed.first)
        #expect(listed.map(\.photoID) == [PhotoID("h")])
        #expect(item.member == "Hall" && item.byteSize == upload("h").jpeg.count)
        #expect(try await backend(kitchen).shared(in: "Climbers", now: Date()).isEmpty, "not its group: nothing")
        let whole = try await backend(kitchen).download(item, from: 0, limit: 1 << 20)
        #expect(whole == upload("h").jpeg)
        let rest = try await backend(kitchen).download(item, from: 100, limit: 1 << 20)
        #expect(rest == Array(whole.dropFirst(100)), "a Range request from where the cut left off")
        let porchItem = SharedItem(
            photoID: PhotoID("p"), group: "Climbers", member: "Porch", takenAt: taken, expiresAt: taken + 3600,
            location: "Climbers/\(upload("p").day)/p.jpg", byteSize: nil)
        await #expect(throws: UploadFailure.self, "another group's object is not readable") {
            _ = try await backend(kitchen).download(porchItem, from: 0, limit: 1 << 20)
        }
    }

    @Test("should delete its own objects at expiry, again without harm, and leave the others' alone")
    func expiry() async throws {
        let kitchen = try await fake.member("Kitchen", of: "Family & Friends")
        let hall = try await fake.member("Hall", of: "Family & Friends")
        try await backend(kitchen).upload(upload("a")) { _ in }
        try await backend(hall).upload(upload("h")) { _ in }
        _ = try await fake.control("/_control/age", ["hours": 49])
        let expired = try await fake.control("/_control/expire") as? [String: Any]
        #expect(expired?["deleted"] as? Int == 2, "the server's job deletes the expired rows")
        #expect(try await fake.rows().isEmpty)
        let own = OwnShare(photoID: PhotoID("a"), group: "Family & Friends", day: upload("a").day)
        let stranger = OwnShare(photoID: PhotoID("h"), group: "Family & Friends", day: upload("h").day)
        #expect(try await backend(kitchen).removeOwn([own, stranger]).count == 2)
        #expect(try await backend(kitchen).removeOwn([own]) == [PhotoID("a")], "idempotent")
        let left = try await fake.objects()
        #expect(left.allSatisfy { $0.contains("/h") }, "Hall's objects stay: \(left)")
        #expect(!left.isEmpty)
    }
}
