import Foundation
import SnapCore

/// Sends one notice to the owner's ntfy topic or webhook (`NoticeSettings`), in the words given.
public struct NoticeSender: Sendable {
    /// What is sent, whatever the format.
    public struct Message: Sendable, Hashable {
        /// Nil for the owner's test.
        public var kind: NoticeKind?
        public var title: String
        public var message: String
        /// The station's name, and its page where it has one (a tap on the notification opens it).
        public var station: String
        public var page: String?
        public var language: String
        public var at: Date

        public init(
            kind: NoticeKind?, title: String, message: String, station: String, page: String?, language: String,
            at: Date
        ) {
            self.kind = kind
            self.title = title
            self.message = message
            self.station = station
            self.page = page
            self.language = language
            self.at = at
        }
    }

    private let client: HTTPClient

    public init(client: HTTPClient = HTTPClient(connectTimeout: .seconds(10), totalTimeout: .seconds(20))) {
        self.client = client
    }

    /// ntfy's JSON publish (docs.ntfy.sh/publish, "Publish as JSON"; server/server.go `transformBodyJSON`
    /// reads `topic`, `message`, `title`, `tags`, `priority`, `click`). JSON rather than headers, because
    /// ntfy's `X-Title` header must be ASCII or RFC 2047-encoded, and the station speaks five languages.
    struct NtfyBody: Encodable {
        var topic: String
        var title: String
        var message: String
        var tags: [String]
        var priority: Int
        var click: String?
    }

    /// The webhook's body: one JSON object.
    struct WebhookBody: Encodable {
        var kind: String
        var title: String
        var message: String
        var station: String
        var page: String?
        var language: String
        var at: String
    }

    /// The request for `message` to `settings`' address; nil when the address cannot take it.
    public static func request(_ message: Message, to settings: NoticeSettings) -> HTTPRequest? {
        guard NoticeSettings.problem(address: settings.address, format: settings.format) == nil,
            !settings.address.isEmpty
        else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let url: String
        let body: Data?
        switch settings.format {
        case .ntfy:
            guard let (root, topic) = NoticeSettings.topic(of: settings.address) else { return nil }
            url = root
            body = try? encoder.encode(
                NtfyBody(
                    topic: topic, title: message.title, message: message.message,
                    tags: message.kind.map(tags) ?? ["white_check_mark"], priority: message.kind.map(priority) ?? 3,
                    click: message.page))
        case .webhook:
            url = settings.address
            body = try? encoder.encode(
                WebhookBody(
                    kind: message.kind?.rawValue ?? "test", title: message.title, message: message.message,
                    station: message.station, page: message.page, language: message.language,
                    at: message.at.formatted(.iso8601)))
        }
        guard let body else { return nil }
        return HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/json")], body: [UInt8](body),
            maxBodyBytes: 64 << 10)
    }

    /// ntfy's tags (its emoji short codes) for each kind.
    static func tags(_ kind: NoticeKind) -> [String] {
        switch kind {
        case .shared: ["camera"]
        case .photoDue: ["alarm_clock"]
        case .ai: ["warning"]
        case .update: ["package"]
        case .storage: ["floppy_disk", "warning"]
        }
    }

    /// ntfy's priority (3 its default): what needs the owner is 4.
    static func priority(_ kind: NoticeKind) -> Int {
        switch kind {
        case .shared, .photoDue, .update: 3
        case .ai, .storage: 4
        }
    }

    /// Sends `message` once.
    public func send(_ message: Message, to settings: NoticeSettings) async -> NoticeOutcome {
        guard let request = Self.request(message, to: settings) else { return .refused("not an address it can use") }
        do {
            let response = try await client.send(request)
            switch response.status {
            case 200..<300: return .sent
            case 429, 500...: return .failed("HTTP \(response.status)")
            default: return .refused("HTTP \(response.status)\(Self.reason(response.body))")
            }
        } catch {
            return .failed("\(error)")
        }
    }

    /// ntfy's error's own words (`{"code":40301,"http":403,"error":"forbidden"}`, server/errors.go), or
    /// the first of a webhook's answer.
    static func reason(_ body: [UInt8]) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let error = object["error"] as? String
        {
            return ": \(error)"
        }
        let text = String(decoding: body.prefix(120), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": \(text)"
    }
}
