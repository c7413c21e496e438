import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

@Suite("FolderBackend")
struct FolderBackendTests {
    let folder = TemporaryDirectory("outbox")
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let taken = Date(timeIntervalSince1970: 1_773_140_400)

    private func upload(_ id: String, group: String = "Family") -> GroupUpload {
        GroupUpload(
            photoID: PhotoID(id), group: group, day: day, jpeg: Array("jpeg \(id)".utf8), takenAt: taken,
            expiresAt: taken + GroupUpload.lifetime, station: "Kitchen")
    }

    @Test("should write the photo and a sidecar with the day and the 48-hour expiry, reporting progress")
    func writes() async throws {
        let backend = FolderBackend(folder: folder.path)
        let progress = Mutex<[Double]>([])
        try await backend.upload(upload("a")) { fraction in progress.withLock { $0.append(fraction) } }
        #expect(folder.files() == ["Family/2026-03-10/a.jpg", "Family/2026-03-10/a.json"])
        let json = try #require(FileManager.default.contents(atPath: folder.path + "/Family/2026-03-10/a.json"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let sidecar = try decoder.decode(FolderBackend.Sidecar.self, from: json)
        #expect(sidecar.day == "2026-03-10")
        #expect(sidecar.expiresAt.timeIntervalSince(sidecar.takenAt) == 48 * 3600)
        #expect(sidecar.station == "Kitchen")
        #expect(progress.withLock { $0 }.last == 1)
    }

    @Test("should accept the same photo twice without a second copy, and refuse another photo that day")
    func oncePerDay() async throws {
        let backend = FolderBackend(folder: folder.path)
        try await backend.upload(upload("a")) { _ in }
        try await backend.upload(upload("a")) { _ in }
        await #expect(throws: UploadFailure.alreadySentToday) { try await backend.upload(upload("b")) { _ in } }
        try await backend.upload(upload("b", group: "Climbers")) { _ in }
        #expect(folder.files().count == 4)
    }

    @Test("should write the sticker beside the photo and name it in the sidecar")
    func sticker() async throws {
        var withSticker = upload("s")
        withSticker.sticker = [0x89, 0x50, 0x4E, 0x47]
        try await FolderBackend(folder: folder.path).upload(withSticker) { _ in }
        #expect(
            folder.files() == [
                "Family/2026-03-10/s-sticker.png", "Family/2026-03-10/s.jpg", "Family/2026-03-10/s.json",
            ])
        let json = try #require(FileManager.default.contents(atPath: folder.path + "/Family/2026-03-10/s.json"))
        #expect(String(decoding: json, as: UTF8.self).contains("\"sticker\" : \"s-sticker.png\""))
        #expect(await FolderBackend(folder: folder.path).removeExpired(now: taken + 49 * 3600) == 1)
        #expect(folder.files().isEmpty)
    }

    @Test("should say offline when the folder is not there (a USB stick pulled out)")
    func missingFolder() async {
        let backend = FolderBackend(folder: folder.path + "/unplugged")
        await #expect(throws: UploadFailure.offline) { try await backend.upload(upload("a")) { _ in } }
    }

    @Test("should delete photos whose expiry has passed")
    func expiry() async throws {
        let backend = FolderBackend(folder: folder.path)
        try await backend.upload(upload("a")) { _ in }
        #expect(await backend.removeExpired(now: taken + 47 * 3600) == 0)
        #expect(await backend.removeExpired(now: taken + 48 * 3600) == 1)
        #expect(folder.files().isEmpty)
    }
}
