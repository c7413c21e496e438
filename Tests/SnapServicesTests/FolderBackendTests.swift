import Foundation
import SnapCore
import SnapFiles
import SnapServices
import SnapTestSupport
import Synchronization
import Testing

@Suite("FolderBackend")
struct FolderBackendTests {
    let folder = TemporaryDirectory("outbox")
    let day = LocalDay(year: 2026, month: 3, day: 10)
    let taken = Date(timeIntervalSince1970: 1_773_140_400)

    private func backend(_ station: String = "Kitchen") -> FolderBackend {
        FolderBackend(folder: folder.path, station: station)
    }

    private func upload(_ id: String, group: String = "Family", station: String = "Kitchen") -> GroupUpload {
        GroupUpload(
            photoID: PhotoID(id), group: group, day: day, jpeg: Array("jpeg \(id)".utf8), takenAt: taken,
            expiresAt: taken + GroupUpload.lifetime, station: station)
    }

    @Test("should write the photo and a sidecar under the station's own folder, reporting progress")
    func writes() async throws {
        let progress = Lock<[Double]>([])
        try await backend().upload(upload("a")) { fraction in progress.withLock { $0.append(fraction) } }
        #expect(folder.files() == ["Family/Kitchen/2026-03-10/a.jpg", "Family/Kitchen/2026-03-10/a.json"])
        let json = try #require(FileManager.default.contents(atPath: folder.path + "/Family/Kitchen/2026-03-10/a.json"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let sidecar = try decoder.decode(FolderBackend.Sidecar.self, from: json)
        #expect(sidecar.day == "2026-03-10")
        #expect(sidecar.expiresAt.timeIntervalSince(sidecar.takenAt) == 48 * 3600)
        #expect(sidecar.station == "Kitchen")
        #expect(progress.withLock { $0 }.last == 1)
    }

    @Test("should hold each station to one photo a day per group, not the whole group")
    func oncePerMemberPerDay() async throws {
        try await backend().upload(upload("a")) { _ in }
        try await backend().upload(upload("a")) { _ in }
        await #expect(throws: UploadFailure.alreadySentToday) { try await backend().upload(upload("b")) { _ in } }
        try await backend().upload(upload("b", group: "Climbers")) { _ in }
        try await backend("Hall").upload(upload("c", station: "Hall")) { _ in }
        #expect(folder.files().count == 6, "Kitchen in two groups, and Hall in Family, the same day")
    }

    @Test("should list the group's photos of every station, and hand over a photo's bytes from an offset")
    func receives() async throws {
        try await backend().upload(upload("a")) { _ in }
        try await backend("Hall").upload(upload("h", station: "Hall")) { _ in }
        try await backend("Porch").upload(upload("p", group: "Climbers", station: "Porch")) { _ in }
        let listed = try await backend().shared(in: "Family", now: taken + 3600)
        #expect(Set(listed.map(\.photoID.rawValue)) == ["a", "h"], "the group's photos, the station's own among them")
        let hall = try #require(listed.first { $0.photoID == PhotoID("h") })
        #expect(hall.member == "Hall" && hall.byteSize == 6 && hall.expiresAt == taken + GroupUpload.lifetime)
        #expect(try await backend().download(hall, from: 0, limit: 100) == Array("jpeg h".utf8))
        #expect(try await backend().download(hall, from: 5, limit: 100) == Array("h".utf8), "a cut download resumes")
        await #expect(throws: UploadFailure.self) { _ = try await backend().download(hall, from: 0, limit: 3) }
        #expect(try await backend().shared(in: "Family", now: taken + 48 * 3600).isEmpty, "expired photos are gone")
    }

    @Test("should write the sticker beside the photo and name it in the sidecar")
    func sticker() async throws {
        var withSticker = upload("s")
        withSticker.sticker = [0x89, 0x50, 0x4E, 0x47]
        try await backend().upload(withSticker) { _ in }
        #expect(
            folder.files() == [
                "Family/Kitchen/2026-03-10/s-sticker.png", "Family/Kitchen/2026-03-10/s.jpg",
                "Family/Kitchen/2026-03-10/s.json",
            ])
        let json = try #require(FileManager.default.contents(atPath: folder.path + "/Family/Kitchen/2026-03-10/s.json"))
        #expect(String(decoding: json, as: UTF8.self).contains("\"sticker\" : \"s-sticker.png\""))
    }

    @Test("should say offline when the folder is not there (a USB stick pulled out)")
    func missingFolder() async {
        let backend = FolderBackend(folder: folder.path + "/unplugged", station: "Kitchen")
        await #expect(throws: UploadFailure.offline) { try await backend.upload(upload("a")) { _ in } }
        await #expect(throws: UploadFailure.offline) { _ = try await backend.shared(in: "Family", now: taken) }
    }

    @Test("should clear the temporary files a crash mid-copy left in its own folders, and only there")
    func leftovers() async throws {
        try await backend().upload(upload("a")) { _ in }
        let own = folder.path + "/Family/Kitchen/2026-03-10/\(AtomicFile.temporaryPrefix)b.jpg.4242.17"
        let others = folder.path + "/Family/Hall/2026-03-10/\(AtomicFile.temporaryPrefix)h.jpg.99.1"
        try AtomicFile.write(Array("half".utf8), to: own)
        try AtomicFile.write(Array("theirs".utf8), to: others)
        await backend().removeLeftovers()
        #expect(!FileManager.default.fileExists(atPath: own))
        #expect(FileManager.default.fileExists(atPath: others), "another station's copy may be in progress")
        #expect(folder.files().contains("Family/Kitchen/2026-03-10/a.jpg"))
    }

    @Test(
        "should take a full disk as a wait, not a refusal, and send once there is space",
        .enabled(if: SmallDisk.unavailableReason == nil, Comment(rawValue: SmallDisk.unavailableReason ?? "")))
    func diskFull() async throws {
        let stick = try SmallDisk(kilobytes: 256)
        let backend = FolderBackend(folder: stick.path, station: "Kitchen")
        var big = upload("a")
        big.jpeg = [UInt8](repeating: 7, count: 100_000)
        let filler = stick.fill(leaving: 20_000)
        await #expect(throws: UploadFailure.destinationFull) { try await backend.upload(big) { _ in } }
        #expect(!FileManager.default.fileExists(atPath: stick.path + "/Family/Kitchen/2026-03-10/a.json"))
        unlink(filler)
        try await backend.upload(big) { _ in }
        #expect(FileManager.default.fileExists(atPath: stick.path + "/Family/Kitchen/2026-03-10/a.json"))
    }

    @Test("should delete only the station's own photos at expiry, again without harm")
    func removesOwn() async throws {
        try await backend().upload(upload("a")) { _ in }
        try await backend("Hall").upload(upload("h", station: "Hall")) { _ in }
        let own = OwnShare(photoID: PhotoID("a"), group: "Family", day: day)
        #expect(try await backend().removeOwn([own]) == [PhotoID("a")])
        #expect(try await backend().removeOwn([own]) == [PhotoID("a")], "idempotent")
        #expect(folder.files() == ["Family/Hall/2026-03-10/h.jpg", "Family/Hall/2026-03-10/h.json"])
    }
}
