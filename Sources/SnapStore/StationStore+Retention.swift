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
            let (old, kept) = try database.read { db in
                (
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM photos WHERE taken_at < ?", arguments: [cutoff.timeIntervalSince1970]
                    ).map { files(of: PhotoID($0["id"] as String), $0) },
                    // A meal's sticker stays in the jar until the meal is deleted or the cap takes it.
                    try mealStickers(db)
                )
            }
            for files in old {
                let paths: [String] =
                    [files.photo, files.thumbnail] + (files.sticker.map { kept.contains($0) ? [] : [$0] } ?? [])
                for path in paths where !path.isEmpty {
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

    /// Every file the rows of `photos` name (photo, thumbnail, sticker), as `files(of:_:)` makes them.
    func namedFiles(_ db: Database) throws -> Set<String> {
        Set(
            try Row.fetchAll(db, sql: "SELECT * FROM photos").flatMap { row in
                let files = files(of: PhotoID(row["id"] as String), row)
                return [files.photo, files.thumbnail, files.sticker ?? ""].filter { !$0.isEmpty }
            })
    }

    /// The stickers the meals keep.
    private func mealStickers(_ db: Database) throws -> Set<String> {
        Set(
            try Row.fetchAll(db, sql: "SELECT * FROM meals WHERE sticker_path IS NOT NULL").compactMap {
                files(of: PhotoID($0["id"] as String), $0).sticker
            })
    }

    func removeEmptyDayFolders() {
        let root = directory + "/photos"
        for day in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            rmdir(root + "/" + day)  // fails, harmlessly, unless empty
        }
    }
}

extension StationStore {
    /// Deletes image files in the photo folders that no row names: a photo written just before a crash
    /// that came before its row. Called once at start, before anything is captured; returns how many.
    @discardableResult
    public func removeOrphanFiles() throws(StoreError) -> Int {
        do {
            let named = try database.read { db in try namedFiles(db).union(mealStickers(db)) }
            let root = directory + "/photos"
            var removed = 0
            for day in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(day)")) ?? [] {
                    let path = "\(root)/\(day)/\(name)"
                    guard !named.contains(path), unlink(path) == 0 else { continue }
                    removed += 1
                }
            }
            removeEmptyDayFolders()
            return removed
        } catch {
            throw StoreError("remove orphan photo files", error)
        }
    }
}

extension StationStore {
    /// Deletes the oldest meals' stickers until those left take at most `capBytes` on disk (the meals
    /// stay, and show a round cut of their thumbnail while it lasts). Returns how many were deleted.
    @discardableResult
    public func trimStickers(capBytes: Int) throws(StoreError) -> Int {
        do {
            let stickers = try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM meals WHERE sticker_path IS NOT NULL ORDER BY taken_at DESC")
                    .compactMap { row -> (id: String, path: String)? in
                        let id = PhotoID(row["id"] as String)
                        return files(of: id, row).sticker.map { (id.rawValue, $0) }
                    }
            }
            var total = 0
            var removed = 0
            for sticker in stickers {
                var info = stat()
                total += stat(sticker.path, &info) == 0 ? Int(info.st_size) : 0
                guard total > capBytes else { continue }
                // The row first: a sticker row without its file would be a lie; a file without a row is
                // an orphan the next start removes.
                try database.write { db in
                    try db.execute(sql: "UPDATE meals SET sticker_path = NULL WHERE id = ?", arguments: [sticker.id])
                    try db.execute(sql: "UPDATE photos SET sticker_path = NULL WHERE id = ?", arguments: [sticker.id])
                }
                if unlink(sticker.path) != 0 && errno != ENOENT {
                    throw FileError(call: "unlink", path: sticker.path, errno: errno)
                }
                removed += 1
            }
            return removed
        } catch {
            throw StoreError("trim stickers", error)
        }
    }
}
