import Foundation
internal import GRDB
import SnapCore
import SnapFiles

/// The photos the groups' other members shared, kept in `inbox/GROUP/ID.jpg` until they expire, and the
/// station's own shared photos that must go from the server when their 48 hours are over.
///
/// Every file of the inbox is named by the station (`FileName.folder(for:)` of the group, the parsed
/// `PhotoID`) and written, appended to and deleted through `inbox`, a `ConfinedFolder`: nothing a member
/// sends leads outside `inbox/`. The `path` kept in each row is for an older slot after a rollback; this
/// binary names the file again from the row's group and id, to read it as to delete it.
extension StationStore {
    /// The folder of the received photos.
    public var inbox: ConfinedFolder { Self.inbox(in: directory) }

    /// The folder of the received photos of a store in `directory`.
    static func inbox(in directory: String) -> ConfinedFolder { ConfinedFolder(directory + "/inbox") }

    /// The file a received photo is kept in; a download in progress is `ID.jpg.part` beside it.
    public static func inboxFile(for id: PhotoID, suffix: String = ".jpg") -> FileName {
        FileName(id.rawValue + suffix)!  // a PhotoID and a suffix of the station's are one file name
    }

    /// The folder (under `inbox`) of the photos received in `group`.
    public static func inboxFolder(of group: String) -> [FileName] { [FileName.folder(for: group)] }

    /// Where a received photo is, for readers.
    public func inboxPath(for id: PhotoID, group: String) -> String {
        inbox.path(Self.inboxFile(for: id), in: Self.inboxFolder(of: group))
    }

    /// The received photos that have not expired at `now`, oldest first.
    public func receivedPhotos(now: Date) throws(StoreError) -> [SharedPhoto] {
        do {
            return try database.read { db in try received(db, now: now) }
        } catch {
            throw StoreError("read the received photos", error)
        }
    }

    func received(_ db: Database, now: Date) throws -> [SharedPhoto] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM received_photos WHERE expires_at > ? ORDER BY taken_at",
            arguments: [now.timeIntervalSince1970]
        ).compactMap { row in
            // A row from before ids were parsed (the migration "v10" deletes them) is not a photo to show.
            guard let id = PhotoID(parsing: row["photo_id"]) else { return nil }
            let group: String = row["group_name"]
            return SharedPhoto(
                id: id, group: group, member: row["member"],
                takenAt: Date(timeIntervalSince1970: row["taken_at"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"]), path: inboxPath(for: id, group: group))
        }
    }

    /// Whether `id` needs nothing more from the inbox: received already, one of the station's own photos,
    /// or a failed download whose next try is not due at `now`.
    public func inboxHasNothingToDo(for id: PhotoID, now: Date) throws(StoreError) -> Bool {
        do {
            return try database.read { db in
                let known = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM received_photos WHERE photo_id = ?1)
                            OR EXISTS (SELECT 1 FROM upload_jobs WHERE photo_id = ?1)
                            OR EXISTS (SELECT 1 FROM inbox_failures WHERE photo_id = ?1 AND next_attempt > ?2)
                        """,
                    arguments: [id.rawValue, now.timeIntervalSince1970])
                return known ?? false
            }
        } catch {
            throw StoreError("read the inbox", error)
        }
    }

    /// Keeps a received photo: the file (written atomically, then the folder synced) before its row.
    public func keepReceived(_ photo: SharedPhoto, jpeg: [UInt8]) throws(StoreError) {
        do {
            try inbox.write(jpeg, to: Self.inboxFile(for: photo.id), in: Self.inboxFolder(of: photo.group))
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO received_photos
                        (photo_id, group_name, member, taken_at, expires_at, path, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        photo.id.rawValue, photo.group, photo.member, photo.takenAt.timeIntervalSince1970,
                        photo.expiresAt.timeIntervalSince1970, inboxPath(for: photo.id, group: photo.group), jpeg.count,
                    ])
                try db.execute(sql: "DELETE FROM inbox_failures WHERE photo_id = ?", arguments: [photo.id.rawValue])
            }
        } catch {
            throw StoreError("keep the received photo \(photo.id)", error)
        }
    }

    /// Records a failed download of `id`: tried again after `nextAttempt`.
    public func noteInboxFailure(_ id: PhotoID, error: String, nextAttempt: Date) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO inbox_failures (photo_id, attempts, next_attempt, last_error) VALUES (?, 1, ?, ?)
                        ON CONFLICT(photo_id) DO UPDATE SET attempts = attempts + 1, next_attempt = excluded.next_attempt,
                        last_error = excluded.last_error
                        """,
                    arguments: [id.rawValue, nextAttempt.timeIntervalSince1970, error])
            }
        } catch {
            throw StoreError("note the failed download of \(id)", error)
        }
    }

    /// How often the download of `id` has failed.
    public func inboxAttempts(for id: PhotoID) throws(StoreError) -> Int {
        do {
            return try database.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT attempts FROM inbox_failures WHERE photo_id = ?", arguments: [id.rawValue])
                    ?? 0
            }
        } catch {
            throw StoreError("read the inbox", error)
        }
    }

    /// Deletes the received photos expired at `now` (files first, then rows), and partial downloads and
    /// failure notes older than 48 hours. Returns how many photos went.
    @discardableResult
    public func purgeReceived(now: Date) throws(StoreError) -> Int {
        do {
            let expired = try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT photo_id, group_name FROM received_photos WHERE expires_at <= ?",
                    arguments: [now.timeIntervalSince1970])
            }
            for row in expired { try removeReceived(row["photo_id"], group: row["group_name"]) }
            try database.write { db in
                try db.execute(
                    sql: "DELETE FROM received_photos WHERE expires_at <= ?", arguments: [now.timeIntervalSince1970])
                try db.execute(
                    sql: "DELETE FROM inbox_failures WHERE next_attempt < ?",
                    arguments: [now.timeIntervalSince1970 - 48 * 3600])
            }
            removeStalePartials(olderThan: now.addingTimeInterval(-48 * 3600))
            return expired.count
        } catch {
            throw StoreError("delete expired received photos", error)
        }
    }

    /// What the station keeps of a group it left: the photos the others shared there go (files, then
    /// rows), and its own photos still waiting to go there are not sent ("left GROUP"). Returns how many
    /// of each.
    @discardableResult
    public func forgetGroup(_ group: String) throws(StoreError) -> (received: Int, unsent: Int) {
        do {
            let ids = try database.read { db in
                try String.fetchAll(
                    db, sql: "SELECT photo_id FROM received_photos WHERE group_name = ?", arguments: [group])
            }
            for id in ids { try removeReceived(id, group: group) }
            let unsent = try database.write { db in
                try db.execute(sql: "DELETE FROM received_photos WHERE group_name = ?", arguments: [group])
                try db.execute(
                    sql:
                        "UPDATE upload_jobs SET state = 'failed', last_error = ? WHERE state = 'pending' AND group_name = ?",
                    arguments: ["the station left \(group)", group])
                return db.changesCount
            }
            return (ids.count, unsent)
        } catch {
            throw StoreError("forget the group \(group)", error)
        }
    }

    /// The station's own delivered photos whose 48 hours are over at `now` and which the server may still
    /// hold: the backend deletes them, then `markRemoteRemoved` records it.
    public func ownExpiredShares(now: Date) throws(StoreError) -> [UploadJob] {
        try jobs(
            where: "state = 'delivered' AND remote_removed = 0 AND taken_at <= ?",
            [now.timeIntervalSince1970 - 48 * 3600], limit: 100)
    }

    public func markRemoteRemoved(_ ids: [PhotoID]) throws(StoreError) {
        do {
            try database.write { db in
                for id in ids {
                    try db.execute(
                        sql: "UPDATE upload_jobs SET remote_removed = 1 WHERE photo_id = ?", arguments: [id.rawValue])
                }
            }
        } catch {
            throw StoreError("record removed shares", error)
        }
    }

    /// Deletes a received photo's file and its partial download, named again from its row; a row whose id
    /// is not a `PhotoID` (kept by a version before ids were parsed) names no file the station made.
    private func removeReceived(_ id: String, group: String) throws(FileError) {
        guard let id = PhotoID(parsing: id) else { return }
        for suffix in [".jpg", ".jpg.part"] {
            try inbox.remove(Self.inboxFile(for: id, suffix: suffix), in: Self.inboxFolder(of: group))
        }
    }

    private func removeStalePartials(olderThan cutoff: Date) {
        let root = directory + "/inbox"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        for case let relative as String in walker where relative.hasSuffix(".part") {
            let path = root + "/" + relative
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
            if let modified, modified < cutoff { unlink(path) }
        }
    }
}
