import Foundation
import Logging
import SnapCore
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

@Suite("SupabaseBackend against a local Supabase-compatible server", .serialized)
struct SupabaseBackendTests {
    let fake: FakeServices
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let taken = Date(timeIntervalSince1970: 1_773_140_400)

    init() throws { fake = try FakeServices() }

    private func backend(key: String = "test-key") -> SupabaseBackend {
        SupabaseBackend(
            projectURL: fake.baseURL + "/", bucket: "snapstation", key: key,
            client: HTTPClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5)), logger: Logger(label: "test"))
    }

    private func upload(_ id: String, group: String = "Family & Friends") -> GroupUpload {
        GroupUpload(
            photoID: PhotoID(id), group: group, day: day, jpeg: [0xFF, 0xD8, 1, 2, 3], takenAt: taken,
            expiresAt: taken + GroupUpload.lifetime, station: "Kitchen", sticker: [0x89, 0x50])
    }

    private func failure(_ upload: GroupUpload, key: String = "test-key") async -> UploadFailure? {
        do {
            try await backend(key: key).upload(upload) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test("should upload the photo and sticker to the bucket, then insert the day's row")
    func uploads() async throws {
        let progress = Mutex<[Double]>([])
        try await backend().upload(upload("a")) { fraction in progress.withLock { $0.append(fraction) } }
        let requests = try await fake.requests()
        #expect(
            requests.compactMap { $0["object"] as? String } == [
                "snapstation/Family%20%26%20Friends/2026-03-10/a.jpg",
                "snapstation/Family%20%26%20Friends/2026-03-10/a-sticker.png",
            ])
        #expect(requests.last?["table"] as? String == "group_photos")
        #expect(requests.allSatisfy { $0["auth_ok"] as? Bool == true })
        #expect((requests.first?["headers"] as? [String: String])?["x-upsert"] == "true")
        #expect(progress.withLock { $0 }.last == 1)
    }

    @Test("should treat its own earlier row as done, and another photo that day as the lock")
    func oncePerDay() async throws {
        try await backend().upload(upload("a")) { _ in }
        #expect(await failure(upload("a")) == nil, "a retry after a crash completes")
        #expect(await failure(upload("b")) == .alreadySentToday)
        #expect(await failure(upload("c", group: "Climbers")) == nil)
    }

    @Test("should keep the job queued on 5xx and broken connections, and give up on a refused key")
    func failures() async throws {
        try await fake.queue("storage", ["500", "reset"])
        #expect(await failure(upload("a")) == .offline)
        #expect(await failure(upload("a")) == .offline)
        try await fake.queue("rest", ["503"])
        #expect(await failure(upload("a")) == .offline)
        let refused = await failure(upload("a"), key: "wrong")
        #expect(
            refused
                == .rejected(
                    "the server refused to upload Family%20%26%20Friends/2026-03-10/a.jpg: Invalid JWT (HTTP 400)"))
    }
}
