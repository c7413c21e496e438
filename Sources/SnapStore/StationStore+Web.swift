import Foundation
internal import GRDB
import SnapCore

/// A browser paired with the owner's page. Only a hash of its token is stored: a copy of the database
/// gives no one a session.
public struct WebSession: Sendable, Hashable {
    public var tokenHash: String
    /// The token a form must carry back (CSRF).
    public var csrf: String
    /// What the browser called itself when it paired ("Firefox on Android").
    public var name: String
    public var created: Date
    public var lastSeen: Date
    /// The owner's browser, or a household member's.
    public var role: Role
    /// Whose meals a household member's browser logs (`setPerson`): nil for the owner's, who logs for
    /// anyone, and for a member's that has not said who it is yet.
    public var person: PersonID?

    /// Who a paired browser is. The owner's: every page, the keys, services, backups, restores, the reset,
    /// updates, people, pairing others and the settings. A household member's: their meals, the
    /// household's pages. The first browser paired is the owner's; the owner may make others owners.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        case owner, member
    }

    public init(
        tokenHash: String, csrf: String, name: String, created: Date, lastSeen: Date, role: Role = .owner,
        person: PersonID? = nil
    ) {
        self.tokenHash = tokenHash
        self.csrf = csrf
        self.name = name
        self.created = created
        self.lastSeen = lastSeen
        self.role = role
        self.person = person
    }
}

extension StationStore {
    public func createSession(_ session: WebSession) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO web_sessions (token_hash, csrf, name, created, last_seen, role, person)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        session.tokenHash, session.csrf, session.name, session.created.timeIntervalSince1970,
                        session.lastSeen.timeIntervalSince1970, session.role.rawValue, session.person?.rawValue,
                    ])
            }
        } catch {
            throw StoreError("keep a paired browser", error)
        }
    }

    /// The session with this token hash, or nil.
    public func session(hash: String) throws(StoreError) -> WebSession? {
        do {
            return try readOne { db in
                // Every request of the page asks this: a statement kept prepared.
                let statement = try db.cachedStatement(
                    sql: "SELECT \(Self.sessionColumns) FROM web_sessions WHERE token_hash = ?")
                return try Row.fetchOne(statement, arguments: [hash]).map(Self.session)
            }
        } catch {
            throw StoreError("read a paired browser", error)
        }
    }

    /// Every paired browser, the most recently seen first.
    public func sessions() throws(StoreError) -> [WebSession] {
        do {
            return try database.read { db in
                let sql = "SELECT \(Self.sessionColumns) FROM web_sessions ORDER BY last_seen DESC"
                return try Row.fetchAll(db, sql: sql).map(Self.session)
            }
        } catch {
            throw StoreError("read the paired browsers", error)
        }
    }

    /// Notes that a session was used, at most once a minute per session (a write per page would wear the card).
    public func touchSession(hash: String, now: Date) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: "UPDATE web_sessions SET last_seen = ? WHERE token_hash = ? AND last_seen < ?",
                    arguments: [now.timeIntervalSince1970, hash, now.timeIntervalSince1970 - 60])
            }
        } catch {
            throw StoreError("note a paired browser's visit", error)
        }
    }

    /// Makes the browser of `hash` the owner's or a member's; false when there is no such browser.
    @discardableResult
    public func setRole(_ role: WebSession.Role, hash: String) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(
                    sql: "UPDATE web_sessions SET role = ? WHERE token_hash = ?", arguments: [role.rawValue, hash])
                return db.changesCount == 1
            }
        } catch {
            throw StoreError("change a paired browser's role", error)
        }
    }

    /// Says whose meals the browser of `hash` logs (nil: anyone's, as the owner's does); `onlyIfUnsaid`
    /// changes it only where none is said yet (a member saying who they are, once). False when no browser
    /// changed.
    @discardableResult
    public func setPerson(_ person: PersonID?, hash: String, onlyIfUnsaid: Bool = false) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(
                    sql:
                        "UPDATE web_sessions SET person = ? WHERE token_hash = ?\(onlyIfUnsaid ? " AND person IS NULL" : "")",
                    arguments: [person?.rawValue, hash])
                return db.changesCount == 1
            }
        } catch {
            throw StoreError("say whose meals a paired browser logs", error)
        }
    }

    /// Forgets one session, or every one when `hash` is nil; returns how many.
    @discardableResult
    public func forgetSessions(hash: String? = nil) throws(StoreError) -> Int {
        do {
            return try database.write { db in
                if let hash {
                    try db.execute(sql: "DELETE FROM web_sessions WHERE token_hash = ?", arguments: [hash])
                } else {
                    try db.execute(sql: "DELETE FROM web_sessions")
                }
                return db.changesCount
            }
        } catch {
            throw StoreError("forget paired browsers", error)
        }
    }

    private static let sessionColumns = "token_hash, csrf, name, created, last_seen, role, person"

    /// A row of `sessionColumns`, read by position; a role this binary does not know is a member's.
    private static func session(_ row: Row) -> WebSession {
        WebSession(
            tokenHash: row[0], csrf: row[1], name: row[2], created: Date(timeIntervalSince1970: row[3]),
            lastSeen: Date(timeIntervalSince1970: row[4]), role: WebSession.Role(rawValue: row[5]) ?? .member,
            person: (row[6] as Int?).map(PersonID.init(rawValue:)))
    }

    /// Whether `mark` was set (`setMark`).
    public func isMarked(_ mark: StationMark) throws(StoreError) -> Bool {
        do {
            return try database.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM station_marks WHERE name = ?)", arguments: [mark.rawValue])
                    ?? false
            }
        } catch {
            throw StoreError("read whether \(mark.rawValue)", error)
        }
    }

    /// Notes that `mark` happened, at `date` (the first time: a mark is set once).
    public func setMark(_ mark: StationMark, at date: Date) throws(StoreError) {
        do {
            try database.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO station_marks (name, at) VALUES (?, ?)",
                    arguments: [mark.rawValue, date.timeIntervalSince1970])
            }
        } catch {
            throw StoreError("note that \(mark.rawValue)", error)
        }
    }

    /// What the owner changed over the config's defaults.
    public func runtimeSettings() throws(StoreError) -> RuntimeSettings {
        try settings(in: "runtime_settings", "read the owner's settings")
    }

    /// The settings a restored backup named that wait for the owner to confirm them (the addresses a key or
    /// a password goes to: `StationConfig.restorable`); none when nothing waits.
    public func restoredSettings() throws(StoreError) -> RuntimeSettings {
        try settings(in: "restored_settings", "read the restored settings")
    }

    /// The restored settings are confirmed or left off: none wait any more.
    public func forgetRestoredSettings() throws(StoreError) {
        do {
            try database.write { db in try db.execute(sql: "DELETE FROM restored_settings") }
        } catch {
            throw StoreError("forget the restored settings", error)
        }
    }

    private func settings(in table: String, _ what: String) throws(StoreError) -> RuntimeSettings {
        do {
            return try database.read { db in
                guard let json = try String.fetchOne(db, sql: "SELECT json FROM \(table) WHERE id = 1") else {
                    return RuntimeSettings()
                }
                return (try? JSONDecoder().decode(RuntimeSettings.self, from: Data(json.utf8))) ?? RuntimeSettings()
            }
        } catch {
            throw StoreError(what, error)
        }
    }

    public func saveRuntimeSettings(_ settings: RuntimeSettings) throws(StoreError) {
        do {
            let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
            try database.write { db in
                try db.execute(
                    sql: "INSERT INTO runtime_settings (id, json) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET json = ?",
                    arguments: [json, json])
            }
        } catch {
            throw StoreError("keep the owner's settings", error)
        }
    }

    /// Counts for the status page: pending uploads and analyses, and their last errors.
    public func queueStatus() throws(StoreError) -> (uploads: Int, analyses: Int, lastErrors: [String]) {
        do {
            return try database.read { db in
                let uploads = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM upload_jobs WHERE state = 'pending'") ?? 0
                let analyses =
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM analysis_jobs WHERE state IN ('pending', 'active')")
                    ?? 0
                let errors =
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT 'upload ' || photo_id || ': ' || last_error FROM upload_jobs
                            WHERE last_error IS NOT NULL ORDER BY next_attempt DESC LIMIT 3
                            """)
                    + String.fetchAll(
                        db,
                        sql: """
                            SELECT 'analysis ' || photo_id || ': ' || last_error FROM analysis_jobs
                            WHERE last_error IS NOT NULL ORDER BY next_attempt DESC LIMIT 3
                            """)
                return (uploads, analyses, errors)
            }
        } catch {
            throw StoreError("read the queues", error)
        }
    }
}

/// The files of one photo the station keeps.
public struct PhotoFiles: Sendable, Hashable {
    public var photo: String
    public var thumbnail: String
    public var sticker: String?
    public var takenAt: Date
}

extension StationStore {
    /// The files of the station's own photo `id`, or nil (never taken, or deleted by retention).
    public func photoFiles(_ id: PhotoID) throws(StoreError) -> PhotoFiles? {
        do {
            return try database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE id = ?", arguments: [id.rawValue]).map {
                    photoFiles(id, $0)
                }
            }
        } catch {
            throw StoreError("read the photo \(id)", error)
        }
    }

    /// The newest photo the station keeps, or nil.
    public func latestPhoto() throws(StoreError) -> (id: PhotoID, files: PhotoFiles)? {
        do {
            return try database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM photos ORDER BY taken_at DESC LIMIT 1").map {
                    let id = PhotoID($0["id"] as String)
                    return (id, photoFiles(id, $0))
                }
            }
        } catch {
            throw StoreError("read the newest photo", error)
        }
    }

    private func photoFiles(_ id: PhotoID, _ row: Row) -> PhotoFiles {
        let files = files(of: id, row)
        return PhotoFiles(
            photo: files.photo, thumbnail: files.thumbnail, sticker: files.sticker,
            takenAt: Date(timeIntervalSince1970: row["taken_at"]))
    }

    /// The station's own group photos, newest first, at most `limit`, whatever their state.
    public func sharedPhotos(limit: Int = 50) throws(StoreError) -> [UploadJob] {
        try jobs(where: "1 = 1", [], limit: 1000).sorted { $0.takenAt > $1.takenAt }.prefix(limit).map { $0 }
    }

    /// One received photo by id, whether or not it expired.
    public func receivedPhoto(_ id: PhotoID) throws(StoreError) -> SharedPhoto? {
        do {
            return try database.read { db in
                try received(db, now: .distantPast).first { $0.id == id }
            }
        } catch {
            throw StoreError("read the received photo \(id)", error)
        }
    }
}

/// What happened once on a station, kept in its store (and so in its backups): `StationStore.setMark`.
public enum StationMark: String, Sendable, CaseIterable {
    /// The first visit's walk-through ended, finished or skipped: a phone paired later goes to Today.
    case welcomed
}
