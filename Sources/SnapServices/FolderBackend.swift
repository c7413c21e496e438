import Foundation
import SnapCore
import SnapFiles

/// The folder group backend: each station's photo of the day as `GROUP/STATION/DAY/ID.jpg` with an
/// `ID.json` sidecar, written atomically into a folder that the group's stations share — a synced
/// folder, a network share, or a USB stick carried between them.
///
/// Each station writes only under its own name; it reads the other stations' folders for the group's
/// slideshow and deletes only its own photos when their 48 hours are over. A different photo already in
/// the station's day folder means the day is taken; the same id again is a retry and succeeds without
/// writing. A missing folder (the stick is out) is `offline`: the job waits.
public struct FolderBackend: GroupBackend {
    public var folder: String
    /// This station's name: its subfolder in each group.
    public var station: String

    public init(folder: String, station: String) {
        self.folder = folder
        self.station = station
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

    /// Where this station's photos of `day` for `group` go.
    func dayFolder(group: String, day: LocalDay) -> String {
        "\(folder)/\(FileName.folder(for: group))/\(FileName.folder(for: station))/\(day)"
    }

    /// The same folder, as names under `folder` that the station writes through without following a
    /// symlink another station may have put in the shared folder.
    func dayNames(group: String, day: LocalDay) -> [FileName] {
        [FileName.folder(for: group), FileName.folder(for: station), FileName(day.description)!]
    }

    /// The largest sidecar read: a few hundred bytes are written.
    static let maxSidecarBytes = 64 << 10

    public func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        guard isMounted else { throw .offline }
        let dayFolder = dayFolder(group: upload.group, day: upload.day)
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
        let shared = ConfinedFolder(folder)
        let names = dayNames(group: upload.group, day: upload.day)
        func file(_ suffix: String) -> FileName { FileName(upload.photoID.rawValue + suffix)! }
        do {
            try shared.write(upload.jpeg, to: file(".jpg"), in: names)
            if let sticker = upload.sticker { try shared.write(sticker, to: file("-sticker.png"), in: names) }
            progress(0.9)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            // The sidecar goes last: its presence is what marks the day as taken.
            try shared.write([UInt8](try encoder.encode(sidecar)), to: file(".json"), in: names)
        } catch let error as FileError where error.errno == ENOENT || error.errno == EROFS || error.errno == EIO {
            throw .offline
        } catch let error as FileError where error.isDiskFull {
            throw .destinationFull
        } catch {
            throw .rejected("\(error)")
        }
        progress(1)
    }

    public func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] {
        guard isMounted else { throw .offline }
        let groupFolder = "\(folder)/\(FileName.folder(for: group))"
        let decoder = JSONDecoder()
        // Other stations' sidecars are read with the station's own parser, not ICU's (see InternetDate).
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = InternetDate.rfc3339(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date"))
            }
            return date
        }
        var items: [SharedItem] = []
        for member in (try? FileManager.default.contentsOfDirectory(atPath: groupFolder)) ?? [] {
            let memberFolder = "\(groupFolder)/\(member)"
            for day in (try? FileManager.default.contentsOfDirectory(atPath: memberFolder)) ?? [] {
                let dayFolder = "\(memberFolder)/\(day)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dayFolder)) ?? []
                where name.hasSuffix(".json") && !name.hasPrefix(AtomicFile.temporaryPrefix) {
                    // The photo is ID.jpg beside ID.json, whatever the sidecar says: another station's
                    // file names none of the station's paths.
                    guard let id = PhotoID(parsing: String(name.dropLast(5))),
                        let bytes = try? FileBytes.readPlainFile("\(dayFolder)/\(name)", limit: Self.maxSidecarBytes),
                        let sidecar = try? decoder.decode(Sidecar.self, from: Data(bytes)), sidecar.expiresAt > now
                    else { continue }
                    let photo = "\(dayFolder)/\(id).jpg"
                    let size = (try? FileManager.default.attributesOfItem(atPath: photo)[.size]) as? Int
                    items.append(
                        SharedItem(
                            photoID: id, group: group, member: MemberName(sidecar.station).text,
                            takenAt: sidecar.takenAt, expiresAt: sidecar.expiresAt, location: photo, byteSize: size))
                }
            }
        }
        return items.sorted { $0.takenAt < $1.takenAt }
    }

    public func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
        guard isMounted else { throw .offline }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.readPlainFile(item.location, limit: offset + limit)
        } catch {
            throw .rejected("\(item.location) cannot be read: \(error)")
        }
        return Array(bytes.dropFirst(offset))
    }

    public func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] {
        guard isMounted else { throw .offline }
        let shared = ConfinedFolder(folder)
        return photos.map { photo in
            // The sidecar first: without it the photo is no longer listed, whatever else a cut leaves.
            for suffix in [".json", ".jpg", "-sticker.png"] {
                try? shared.remove(
                    FileName(photo.photoID.rawValue + suffix)!, in: dayNames(group: photo.group, day: photo.day))
            }
            rmdir(dayFolder(group: photo.group, day: photo.day))  // fails, harmlessly, unless empty
            return photo.photoID
        }
    }

    /// Deletes the temporary files a crash mid-copy left in this station's folders: a synced folder would
    /// otherwise share them with the group.
    public func removeLeftovers() async {
        for group in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            AtomicFile.removeLeftovers(in: "\(folder)/\(group)/\(FileName.folder(for: station))")
        }
    }

    private var isMounted: Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue
    }
}
