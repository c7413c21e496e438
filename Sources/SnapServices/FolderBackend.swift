import Foundation
import SnapCore
import SnapFiles

/// The folder group backend: each day's photo as `GROUP/DAY/ID.jpg` with an `ID.json` sidecar, written
/// atomically into a folder — a USB stick, a synced folder, a network share.
///
/// A different photo already in the group's day folder means the day is taken; the same id again is a
/// retry and succeeds without writing. A missing folder (the stick is out) is `offline`: the job waits.
public struct FolderBackend: GroupBackend {
    public var folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// The sidecar that travels with each photo.
    public struct Sidecar: Codable, Sendable, Hashable {
        public var group: String
        public var day: String
        public var photo: String
        public var takenAt: Date
        public var expiresAt: Date
        public var station: String
        public var sticker: String?
    }

    public func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw .offline
        }
        let dayFolder = "\(folder)/\(Self.safeName(upload.group))/\(upload.day)"
        let existing = ((try? FileManager.default.contentsOfDirectory(atPath: dayFolder)) ?? [])
            .filter { $0.hasSuffix(".json") }
        if existing.contains("\(upload.photoID).json") {
            progress(1)
            return
        }
        guard existing.isEmpty else { throw .alreadySentToday }
        progress(0)
        let sidecar = Sidecar(
            group: upload.group, day: upload.day.description, photo: "\(upload.photoID).jpg", takenAt: upload.takenAt,
            expiresAt: upload.expiresAt, station: upload.station,
            sticker: upload.sticker == nil ? nil : "\(upload.photoID)-sticker.png")
        do {
            try AtomicFile.write(upload.jpeg, to: "\(dayFolder)/\(upload.photoID).jpg")
            if let sticker = upload.sticker {
                try AtomicFile.write(sticker, to: "\(dayFolder)/\(upload.photoID)-sticker.png")
            }
            progress(0.9)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            // The sidecar goes last: its presence is what marks the day as taken.
            try AtomicFile.write(try encoder.encode(sidecar), to: "\(dayFolder)/\(upload.photoID).json")
        } catch let error as FileError where error.errno == ENOENT || error.errno == EROFS || error.errno == EIO {
            throw .offline
        } catch {
            throw .rejected("\(error)")
        }
        progress(1)
    }

    public func removeExpired(now: Date) async -> Int {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var removed = 0
        let walker = FileManager.default.enumerator(atPath: folder)
        while let relative = walker?.nextObject() as? String {
            guard relative.hasSuffix(".json"), let data = FileManager.default.contents(atPath: "\(folder)/\(relative)"),
                let sidecar = try? decoder.decode(Sidecar.self, from: data), sidecar.expiresAt <= now
            else { continue }
            let base = "\(folder)/\(relative)".dropLast(5)
            for suffix in [".jpg", "-sticker.png", ".json"] { unlink(base + suffix) }
            removed += 1
        }
        return removed
    }

    /// A group name as a folder name: no slashes or leading dots.
    static func safeName(_ group: String) -> String {
        let cleaned = group.map { $0 == "/" || $0 == "\\" ? "_" : $0 }
        return String(cleaned.drop { $0 == "." }).isEmpty ? "group" : String(String(cleaned).drop { $0 == "." })
    }
}
