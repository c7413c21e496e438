import Foundation
import Logging
import SnapCore
import SnapFiles
import Synchronization

/// The Supabase group backend: the photo goes to a Storage bucket, then a row into the `group_photos`
/// table through PostgREST; the other members' photos come back the same way. docs/supabase/schema.sql
/// sets the project up: groups of at most 12 members, the server's half of "one photo per member per
/// group per day" (a unique constraint), row-level security and the 48-hour cleanup of rows.
///
/// The station is a member, signed in as a Supabase Auth user (`SupabaseSession`: the policies see it as
/// `auth.uid()`), or, as set up before, holding a user's JWT as it is (`Authorization.token`, which a
/// real project expires within an hour). `anonKey` is the project's public key that Supabase's gateway
/// wants as `apikey`. An answer that the token expired (PostgREST's 401 `PGRST303`, Storage's 400 with
/// `statusCode` "403" and the `exp` message) renews the session and tries once more.
///
/// Retries are safe: the object is written with `x-upsert` at a path named by the photo id, and the row
/// is inserted with `on_conflict=member_id,photo_id` and `resolution=ignore-duplicates`, so a retried
/// photo is accepted and only a different photo on a day already used meets the constraint (409). An id
/// is unique per member, not per project: a clash with another station's id must not mark a photo
/// delivered that nobody sees. The server fills `member_id` in; PostgREST does not need the conflict's
/// columns in the body (PostgREST `Plan.hs`).
public struct SupabaseBackend: GroupBackend {
    /// How the station proves who it is.
    public enum Authorization: Sendable {
        /// A user's access token as it is.
        case token(String)
        /// Signed in, and kept signed in.
        case session(SupabaseSession)
    }

    public var projectURL: String
    public var bucket: String
    public var authorization: Authorization
    public var anonKey: String
    public var table = "group_photos"
    let client: HTTPClient
    let logger: Logger
    /// Each group's folder in the bucket, as the server named it (read once per group).
    let folders = GroupFolders()

    public init(
        projectURL: String, bucket: String, key: String, anonKey: String = "", client: HTTPClient, logger: Logger
    ) {
        self.init(
            projectURL: projectURL, bucket: bucket, authorization: .token(key), anonKey: anonKey, client: client,
            logger: logger)
    }

    public init(
        projectURL: String, bucket: String, authorization: Authorization, anonKey: String, client: HTTPClient,
        logger: Logger
    ) {
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.bucket = bucket
        self.authorization = authorization
        self.anonKey = anonKey
        self.client = client
        self.logger = logger
    }

    /// A photo's name in the bucket: FOLDER/DAY/ID.jpg (what the row's `object_path` holds), FOLDER the
    /// group's own id: a later group with the same name has another and reads nothing of this one's.
    public static func objectName(folder: String, day: LocalDay, photo: PhotoID, suffix: String = ".jpg") -> String {
        "\(folder)/\(day)/\(photo.rawValue)\(suffix)"
    }

    /// The group's folder in the bucket (`groups.folder`, a UUID the server made), which a member reads
    /// under the "members see their groups" policy; nil when the station is not a member (any more).
    func folder(of group: String) async throws(UploadFailure) -> String? {
        if let known = folders.known(group) { return known }
        let response = try await send(
            HTTPRequest(
                url: "\(projectURL)/rest/v1/groups?select=folder&name=eq.\(group.percentEncoded)", headers: [],
                maxBodyBytes: 1 << 16))
        guard response.status == 200 else { throw Self.failure(response, "find the folder of \(group)") }
        guard let rows = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] else {
            throw .rejected("the group's server answered the folder of \(group) with something else than rows")
        }
        guard let row = rows.first else { return nil }
        guard let folder = (row["folder"] as? String).flatMap(Self.folderName) else {
            throw .rejected("the group's server named no folder for \(group) (is docs/supabase/schema.sql up to date?)")
        }
        folders.note(folder, of: group)
        return folder
    }

    /// A folder as the server names one: a UUID, lower case.
    static func folderName(_ text: String) -> String? {
        let ok =
            text.utf8.count == 36
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || byte == UInt8(ascii: "-")
            }
        return ok ? text : nil
    }

    /// The name as it goes into a URL: each segment percent-encoded.
    static func urlPath(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).map { String($0).percentEncoded }
            .joined(separator: "/")
    }

    public func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        guard let folder = try await folder(of: upload.group) else {
            throw .rejected("the station is not a member of \(upload.group)")
        }
        let name = Self.objectName(folder: folder, day: upload.day, photo: upload.photoID)
        var uploaded: [String] = []
        try await put(upload.jpeg, at: name, type: "image/jpeg") { fraction in progress(fraction * 0.9) }
        uploaded.append(name)
        if let sticker = upload.sticker {
            let stickerName = Self.objectName(
                folder: folder, day: upload.day, photo: upload.photoID, suffix: "-sticker.png")
            try await put(sticker, at: stickerName, type: "image/png") { _ in }
            uploaded.append(stickerName)
        }
        let row: [String: Any] = [
            "group_name": upload.group, "day": upload.day.description, "photo_id": upload.photoID.rawValue,
            "object_path": name, "taken_at": Self.timestamp(upload.takenAt),
            "expires_at": Self.timestamp(upload.expiresAt), "byte_size": upload.jpeg.count,
        ]
        let body = (try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])).map { [UInt8]($0) }
        let response = try await send(
            HTTPRequest(
                method: "POST", url: "\(projectURL)/rest/v1/\(table)?on_conflict=member_id,photo_id",
                headers: [
                    ("Content-Type", "application/json"), ("Prefer", "return=minimal,resolution=ignore-duplicates"),
                ], body: body))
        switch response.status {
        case 200, 201, 204:
            progress(1)
        case 409:
            logger.notice("the server already has today's photo from this station for \(upload.group)")
            await removeOrphans(uploaded)
            throw .alreadySentToday
        default:
            let failure = Self.failure(response, "insert the row")
            // Refused for good: no row will ever name these objects. (A failure that may heal keeps them:
            // the retry writes them again over themselves and inserts the row.)
            if !failure.mayHeal { await removeOrphans(uploaded) }
            throw failure
        }
    }

    /// Deletes objects whose row never came: the other members could still read them after their 48
    /// hours (Storage does not expire objects, and refuses SQL deletes of them), and they are billed.
    /// A failure is logged; the photo's fate does not wait on it.
    private func removeOrphans(_ names: [String]) async {
        guard !names.isEmpty else { return }
        do {
            try await removeObjects(names)
            logger.info("supabase: deleted \(names.count) object(s) no row names")
        } catch {
            logger.warning("supabase: could not delete \(names.joined(separator: ", ")), which no row names: \(error)")
        }
    }

    public func shared(in group: String, now: Date) async throws(UploadFailure) -> [SharedItem] {
        let query = [
            "group_name=eq.\(group.percentEncoded)", "expires_at=gt.\(Self.timestamp(now).percentEncoded)",
            "select=photo_id,group_name,member_name,object_path,taken_at,expires_at,byte_size",
            "order=taken_at.asc",
        ].joined(separator: "&")
        let response = try await send(
            HTTPRequest(url: "\(projectURL)/rest/v1/\(table)?\(query)", headers: [], maxBodyBytes: 1 << 20))
        guard response.status == 200 else { throw Self.failure(response, "list the photos of \(group)") }
        return try Self.sharedItems(from: response.body, group: group, logger: logger)
    }

    /// The photos in a PostgREST answer to the listing, parsed at the edge: the id a `PhotoID`, the object's
    /// path plain names (`ObjectPath`), the member's name fit to show (`MemberName`), the size a count, the
    /// times times; the group the one asked for, whatever the row says. A row that does not parse is
    /// skipped whole with a log line naming the member, never half-used. (Also what the fuzzer feeds.)
    public static func sharedItems(from body: [UInt8], group: String, logger: Logger) throws(UploadFailure)
        -> [SharedItem]
    {
        guard let rows = try? JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]] else {
            throw .rejected("the list of \(group)'s photos is not the JSON array PostgREST sends")
        }
        return rows.compactMap { row in
            let member = MemberName(row["member_name"] as? String ?? "")
            // Optional, but a count when given (JSON's 1.5 or "12" is no size).
            let size = row["byte_size"] as? Int
            let sizeIsACount = row["byte_size"] == nil || row["byte_size"] is NSNull || (size ?? 0) > 0
            guard let id = (row["photo_id"] as? String).flatMap(PhotoID.init(parsing:)),
                let path = (row["object_path"] as? String).flatMap(Self.objectPath),
                let taken = (row["taken_at"] as? String).flatMap(Self.date),
                let expires = (row["expires_at"] as? String).flatMap(Self.date), sizeIsACount
            else {
                let said = String(describing: row["photo_id"] ?? "none").printable(limit: 80)
                logger.warning(
                    "supabase: skipped a photo of \(member) in \(group): its id, path, size or times are not a photo's",
                    metadata: ["photo_id": "\(said)"])
                return nil
            }
            return SharedItem(
                photoID: id, group: group, member: member.text, takenAt: taken, expiresAt: expires, location: path,
                byteSize: size)
        }
    }

    /// An object's path in the bucket as a member may name one: plain names (`FileName`: no `..`, no
    /// empty or hidden part, nothing a URL would read as a path of its own) joined by `/`.
    static func objectPath(_ text: String) -> String? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (2...8).contains(parts.count), parts.allSatisfy({ FileName(String($0)) != nil }) else { return nil }
        return text
    }

    public func download(_ item: SharedItem, from offset: Int, limit: Int) async throws(UploadFailure) -> [UInt8] {
        var request = HTTPRequest(
            url: "\(projectURL)/storage/v1/object/authenticated/\(bucket)/\(Self.urlPath(item.location))",
            headers: [], maxBodyBytes: limit)
        if offset > 0 { request.headers.append(("Range", "bytes=\(offset)-")) }
        let response = try await send(request)
        switch response.status {
        case 206: return response.body
        // The whole object: a server that ignores Range sends it all again.
        case 200: return offset > 0 ? Array(response.body.dropFirst(offset)) : response.body
        default: throw Self.failure(response, "download \(item.location)")
        }
    }

    public func removeOwn(_ photos: [OwnShare]) async throws(UploadFailure) -> [PhotoID] {
        guard !photos.isEmpty else { return [] }
        var names: [String] = []
        for photo in photos {
            // A group the station left: leave_group named its photos, which the station deleted then.
            guard let folder = try await folder(of: photo.group) else { continue }
            names += [".jpg", "-sticker.png"].map {
                Self.objectName(folder: folder, day: photo.day, photo: photo.photoID, suffix: $0)
            }
        }
        if !names.isEmpty { try await removeObjects(names) }
        return photos.map(\.photoID)
    }

    /// `DELETE /storage/v1/object/BUCKET` with the names as `prefixes`: Storage answers with what it
    /// deleted; names already gone are left out, and count as done.
    func removeObjects(_ names: [String]) async throws(UploadFailure) {
        let body = (try? JSONSerialization.data(withJSONObject: ["prefixes": names])).map { [UInt8]($0) }
        let response = try await send(
            HTTPRequest(
                method: "DELETE", url: "\(projectURL)/storage/v1/object/\(bucket)",
                headers: [("Content-Type", "application/json")], body: body, maxBodyBytes: 1 << 20))
        guard response.status == 200 else { throw Self.failure(response, "delete photos") }
    }

    /// The gateway's `apikey` and the station's bearer token.
    private func headers() async throws(UploadFailure) -> [(name: String, value: String)] {
        let token: String
        switch authorization {
        case .token(let key): token = key
        case .session(let session): token = try await session.accessToken()
        }
        return [("apikey", anonKey.isEmpty ? token : anonKey), ("Authorization", "Bearer \(token)")]
    }

    private func put(_ bytes: [UInt8], at name: String, type: String, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        let response = try await send(
            HTTPRequest(
                method: "POST", url: "\(projectURL)/storage/v1/object/\(bucket)/\(Self.urlPath(name))",
                headers: [("Content-Type", type), ("x-upsert", "true")], body: bytes),
            progress: progress)
        guard response.status == 200 else { throw Self.failure(response, "upload \(name)") }
    }

    /// Sends `request` with the station's credentials; an answer that the token expired renews the
    /// session and sends it once more.
    func send(_ request: HTTPRequest, progress: (@Sendable (Double) -> Void)? = nil) async throws(UploadFailure)
        -> HTTPResponse
    {
        var signed = request
        signed.headers = try await headers() + request.headers
        let response = try await transfer(signed, progress: progress)
        guard case .session(let session) = authorization, Self.tokenExpired(response) else { return response }
        logger.notice("supabase: the access token expired; renewing it")
        session.expired()
        signed.headers = try await headers() + request.headers
        return try await transfer(signed, progress: progress)
    }

    /// Whether the answer says the access token expired: PostgREST's 401 `PGRST303` "JWT expired"
    /// (PostgREST `src/PostgREST/Error.hs`), Storage's 400 with `statusCode` "403" and jose's `exp`
    /// message (supabase/storage `src/http/plugins/jwt.ts`).
    static func tokenExpired(_ response: HTTPResponse) -> Bool {
        guard response.status == 401 || response.status == 400 || response.status == 403,
            let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else { return false }
        if json["code"] as? String == "PGRST303" { return true }
        let message = ((json["message"] as? String) ?? "").lowercased()
        return (json["statusCode"] as? String == "403" || response.status == 401)
            && (message.contains("exp") && (message.contains("claim") || message.contains("expired")))
    }

    private func transfer(_ request: HTTPRequest, progress: (@Sendable (Double) -> Void)?) async throws(UploadFailure)
        -> HTTPResponse
    {
        do {
            return try await client.send(request, progress: progress)
        } catch {
            // Transport failures may heal: the job stays queued and is retried with backoff. A certificate
            // that does not verify is named as such (often the clock of a Pi without a real-time clock).
            logger.warning("supabase: \(error)")
            throw error.kind == .tls ? .untrusted(error.message) : .offline
        }
    }

    /// 5xx and 429 heal by themselves (the job waits); anything else the server refuses is for good.
    /// Storage puts its real status in the body of an HTTP 400 (`statusCode`).
    static func failure(_ response: HTTPResponse, _ what: String) -> UploadFailure {
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let status = (json?["statusCode"] as? String).flatMap(Int.init) ?? response.status
        if status >= 500 || status == 429 { return .offline }
        let message = json.flatMap { $0["message"] as? String } ?? "HTTP \(response.status)"
        return .rejected("the server refused to \(what): \(message) (HTTP \(status))")
    }

    /// ISO 8601 in UTC with seconds, as PostgREST reads a timestamptz.
    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// A timestamptz as PostgREST writes it: "2026-03-10T12:00:00+00:00", with or without fractions.
    static func date(_ text: String) -> Date? {
        InternetDate.rfc3339(text)
    }
}

extension String {
    /// Safe as one URL path segment or query value: letters, digits, '-', '_' and '.' stay, anything else
    /// is percent-encoded.
    var percentEncoded: String {
        addingPercentEncoding(withAllowedCharacters: unreservedASCII) ?? self
    }
}

/// ASCII letters and digits, '-', '_' and '.': `CharacterSet.alphanumerics` would let other scripts'
/// letters through unencoded.
private let unreservedASCII = CharacterSet(
    charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

/// The folder of each group the station looked up; a group it leaves is forgotten (a new group of the
/// same name has a folder of its own).
final class GroupFolders: Sendable {
    private let folders = Lock<[String: String]>([:])

    func known(_ group: String) -> String? { folders.withLock { $0[group] } }
    func note(_ folder: String, of group: String) { folders.withLock { $0[group] = folder } }
    func forget(_ group: String) { _ = folders.withLock { $0.removeValue(forKey: group) } }
}
