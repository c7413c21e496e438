import Foundation
internal import GRDB
import SnapCore
import SnapFiles

extension StationStore {
    /// Deletes photos taken before `cutoff` (files first, then rows) and expires their pending uploads.
    /// Returns how many photos were deleted. Meals keep their macros; their thumbnails go with the photo.
    @discardableResult
    public func purgePhotos(takenBefore cutoff: Date) throws(StoreError) -> Int {
        do {
            let old = try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, photo_path, thumbnail_path, sticker_path FROM photos WHERE taken_at < ?",
                    arguments: [cutoff.timeIntervalSince1970])
            }
            for row in old {
                let photo: String = row["photo_path"]
                let thumbnail: String = row["thumbnail_path"]
                let sticker: String? = row["sticker_path"]
                let paths = [photo, thumbnail] + (sticker.map { [$0] } ?? [])
                for path in paths {
                    if unlink(path) != 0 && errno != ENOENT {
                        throw FileError(call: "unlink", path: path, errno: errno)
                    }
                }
            }
            try database.write { db in
                try db.execute(sql: "DELETE FROM photos WHERE taken_at < ?", arguments: [cutoff.timeIntervalSince1970])
                try db.execute(
                    sql: "UPDATE upload_jobs SET state = 'expired' WHERE state = 'pending' AND taken_at < ?",
                    arguments: [cutoff.timeIntervalSince1970])
            }
            removeEmptyDayFolders()
            return old.count
        } catch {
            throw StoreError("purge photos", error)
        }
    }

    private func removeEmptyDayFolders() {
        let root = directory + "/photos"
        for day in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            rmdir(root + "/" + day)  // fails, harmlessly, unless empty
        }
    }
}
