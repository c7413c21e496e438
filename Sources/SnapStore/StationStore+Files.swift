import Foundation
internal import GRDB
import SnapCore

/// The station's own photo files: `photos/DAY/ID.jpg`, `ID-thumb.jpg` and `ID-sticker.png`. Every path the
/// station reads, serves or deletes for a photo is made here, from the photo's id (a `PhotoID`) and its day
/// folder (a `LocalDay`), two types that hold nothing but letters, digits and dashes: never a path read
/// from a row. A row keeps its day folder (`files_day`); its old path columns (`photo_path`,
/// `thumbnail_path`, `sticker_path`) say only whether it has the file (empty or NULL: not), and are still
/// written with the path made here, for the older slot a rollback starts, which reads them.
extension StationStore {
    /// Where the photo, thumbnail and sticker of `id` taken on `day` live.
    public func paths(for id: PhotoID, day: LocalDay) -> (photo: String, thumbnail: String, sticker: String) {
        Self.paths(for: id, day: day, in: directory)
    }

    static func paths(for id: PhotoID, day: LocalDay, in directory: String)
        -> (photo: String, thumbnail: String, sticker: String)
    {
        let folder = "\(directory)/photos/\(day)"
        return ("\(folder)/\(id).jpg", "\(folder)/\(id)-thumb.jpg", "\(folder)/\(id)-sticker.png")
    }

    /// The day folder of `photo`'s files, where they are exactly where `paths(for:day:)` puts them; nil
    /// where it has none (a meal logged by hand) or they are anywhere else.
    func filesDay(of photo: ProcessedPhoto) -> LocalDay? {
        Self.filesDay(of: photo.id, paths: [photo.photoPath, photo.thumbnailPath, photo.stickerPath], in: directory)
    }

    /// The day folder that `paths`, the files of `id` as a store in `directory` named them, are in: the
    /// first that is given must be one of `paths(for:day:in:)` for a day, or there is none.
    static func filesDay(of id: PhotoID, paths: [String?], in directory: String) -> LocalDay? {
        guard let path = paths.compactMap({ $0 }).first(where: { !$0.isEmpty }) else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        guard let day = LocalDay((folder as NSString).lastPathComponent) else { return nil }
        let made = Self.paths(for: id, day: day, in: directory)
        return [made.photo, made.thumbnail, made.sticker].contains(path) ? day : nil
    }

    /// The files of the photo `id` whose row is `row`: made from the id and the row's `files_day`, each
    /// only where the row has it. No day folder, no files.
    func files(of id: PhotoID, _ row: Row, sticker column: String? = "sticker_path")
        -> (photo: String, thumbnail: String, sticker: String?)
    {
        guard let day = (row["files_day"] as String?).flatMap(LocalDay.init) else { return ("", "", nil) }
        let made = paths(for: id, day: day)
        func has(_ column: String) -> Bool { !((row[column] as String?) ?? "").isEmpty }
        return (
            has("photo_path") ? made.photo : "", has("thumbnail_path") ? made.thumbnail : "",
            column.map(has) == true ? made.sticker : nil
        )
    }

    /// The photo of `row`, a row of `photos`, `meals` or `analysis_jobs` whose id is in `idColumn`.
    func photo(_ row: Row, id idColumn: String = "id", sticker: String? = "sticker_path") -> ProcessedPhoto {
        let id = PhotoID(row[idColumn] as String)
        let files = files(of: id, row, sticker: sticker)
        return ProcessedPhoto(
            id: id, photoPath: files.photo, thumbnailPath: files.thumbnail,
            takenAt: Date(timeIntervalSince1970: row["taken_at"]), stickerPath: files.sticker)
    }

    /// Gives `files_day` to the rows that lack it and name their files where `paths(for:day:)` puts them:
    /// rows of a store from before the day folders were kept (the migration "v15"), and rows an older slot
    /// wrote after a rollback (it knows only the path columns). Run at every open; a path anywhere else
    /// names no file of the station's, and its row keeps none.
    static func fillFilesDays(_ db: Database, in directory: String) throws {
        let tables = [
            ("photos", "id", "sticker_path"), ("meals", "id", "sticker_path"), ("analysis_jobs", "photo_id", nil),
            ("upload_jobs", "photo_id", nil),
        ]
        for (table, idColumn, sticker) in tables {
            let columns =
                "photo_path" + (table == "upload_jobs" ? "" : ", thumbnail_path") + (sticker.map { ", " + $0 } ?? "")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, \(idColumn) AS id, \(columns) FROM \(table)
                    WHERE files_day IS NULL AND (photo_path != ''\(sticker.map { " OR \($0) IS NOT NULL" } ?? ""))
                    """)
            for row in rows {
                guard let id = PhotoID(parsing: row["id"]) else { continue }
                let paths: [String?] = [row["photo_path"], row["thumbnail_path"], sticker.flatMap { row[$0] }]
                guard let day = filesDay(of: id, paths: paths, in: directory) else { continue }
                try db.execute(
                    sql: "UPDATE \(table) SET files_day = ? WHERE rowid = ?",
                    arguments: [day.description, row["rowid"] as Int64])
            }
        }
    }
}
