import Foundation
import Logging
import SnapCore

/// The Supabase group backend: the photo goes to a Storage bucket, then a row into the `group_photos`
/// table through PostgREST. The table's unique (group_name, day) constraint is the server's half of "one
/// photo per group per day"; docs/supabase/schema.sql creates it, with row-level security and the 48-hour
/// cleanup.
///
/// Retries are safe: the object is written with `x-upsert` at a path named by the photo id, and a 409 on
/// the row is read back — our own photo id means an earlier attempt got through (success), another means
/// the day is taken (`alreadySentToday`).
public struct SupabaseBackend: GroupBackend {
    public var projectURL: String
    public var bucket: String
    public var key: String
    public var table = "group_photos"
    let client: HTTPClient
    let logger: Logger

    public init(projectURL: String, bucket: String, key: String, client: HTTPClient, logger: Logger) {
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.bucket = bucket
        self.key = key
        self.client = client
        self.logger = logger
    }

    /// Where a photo lives in the bucket: GROUP/DAY/ID.jpg.
    public static func objectPath(group: String, day: LocalDay, photo: PhotoID, suffix: String = ".jpg") -> String {
        "\(group.percentEncoded)/\(day)/\(photo.rawValue.percentEncoded)\(suffix)"
    }

    public func upload(_ upload: GroupUpload, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        let path = Self.objectPath(group: upload.group, day: upload.day, photo: upload.photoID)
        try await put(upload.jpeg, at: path, type: "image/jpeg") { fraction in progress(fraction * 0.9) }
        if let sticker = upload.sticker {
            let stickerPath = Self.objectPath(
                group: upload.group, day: upload.day, photo: upload.photoID, suffix: "-sticker.png")
            try await put(sticker, at: stickerPath, type: "image/png") { _ in }
        }
        let row: [String: Any] = [
            "group_name": upload.group, "day": upload.day.description, "photo_id": upload.photoID.rawValue,
            "object_path": path, "station": upload.station,
            "taken_at": ISO8601DateFormatter().string(from: upload.takenAt),
            "expires_at": ISO8601DateFormatter().string(from: upload.expiresAt),
        ]
        let body = (try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])).map { [UInt8]($0) }
        let response = try await send(
            HTTPRequest(
                method: "POST", url: "\(projectURL)/rest/v1/\(table)",
                headers: headers + [("Content-Type", "application/json"), ("Prefer", "return=minimal")], body: body))
        switch response.status {
        case 200, 201, 204:
            progress(1)
        case 409:
            guard try await dayBelongs(to: upload) else {
                logger.notice("the server already has today's photo for \(upload.group)")
                throw .alreadySentToday
            }
            progress(1)
        default:
            throw Self.failure(response, "insert the row")
        }
    }

    /// Expired rows and objects are deleted on the server by the scheduled cleanup in schema.sql.
    public func removeExpired(now: Date) async -> Int { 0 }

    private var headers: [(name: String, value: String)] {
        [("apikey", key), ("Authorization", "Bearer \(key)")]
    }

    private func put(_ bytes: [UInt8], at path: String, type: String, progress: @escaping @Sendable (Double) -> Void)
        async throws(UploadFailure)
    {
        let response = try await send(
            HTTPRequest(
                method: "POST", url: "\(projectURL)/storage/v1/object/\(bucket)/\(path)",
                headers: headers + [("Content-Type", type), ("x-upsert", "true")], body: bytes),
            progress: progress)
        guard response.status == 200 else { throw Self.failure(response, "upload \(path)") }
    }

    /// Whether the day's row for this group is ours, from an earlier attempt.
    private func dayBelongs(to upload: GroupUpload) async throws(UploadFailure) -> Bool {
        let query = "group_name=eq.\(upload.group.percentEncoded)&day=eq.\(upload.day)&select=photo_id"
        let response = try await send(HTTPRequest(url: "\(projectURL)/rest/v1/\(table)?\(query)", headers: headers))
        guard response.status == 200,
            let rows = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
        else { throw Self.failure(response, "read the day's row") }
        return rows.contains { $0["photo_id"] as? String == upload.photoID.rawValue }
    }

    private func send(_ request: HTTPRequest, progress: (@Sendable (Double) -> Void)? = nil) async throws(UploadFailure)
        -> HTTPResponse
    {
        do {
            return try await client.send(request, progress: progress)
        } catch {
            // Every transport failure may heal: the job stays queued and is retried with backoff.
            logger.warning("supabase: \(error)")
            throw .offline
        }
    }

    /// 5xx and 429 heal by themselves (the job waits); anything else the server refuses is for good.
    static func failure(_ response: HTTPResponse, _ what: String) -> UploadFailure {
        if response.status >= 500 || response.status == 429 { return .offline }
        let message =
            (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            .flatMap { $0["message"] as? String } ?? "HTTP \(response.status)"
        return .rejected("the server refused to \(what): \(message) (HTTP \(response.status))")
    }
}

extension String {
    /// Safe as one URL path segment or query value: letters, digits, '-', '_' and '.' stay, anything else
    /// is percent-encoded.
    var percentEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? self
    }
}
