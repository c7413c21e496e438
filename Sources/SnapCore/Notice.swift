import Foundation
import SnapText

/// Something the station tells the household's phones when it happens (`[notify]`: an ntfy topic or a
/// webhook; SPEC.md, "At home"). The machine says it (`Action.notify`) where it learns of it, once a
/// station day for the same notice, and only for the kinds the owner left on; the shell sends it.
public enum Notice: Sendable, Hashable {
    /// A member of a group shared the day's photo (the station now shows it).
    case shared(member: String, group: String)
    /// The reminder's hour came and the station's photo of the day for `group` is still to take.
    case photoDue(group: String)
    /// The AI service refused the station for a reason waiting does not mend (the key, the credit, the
    /// model, the country).
    case aiRefused(AIFailure)
    /// An update is installed and waits for the station's next idle moment to start.
    case updateInstalled(version: String)
    /// The update's slot did not start: the old version runs again.
    case updateRolledBack(tried: String, running: String)
    /// The station's storage is full: captures are refused until space is made.
    case storageFull
    /// The storage is nearly full: soon captures will be refused.
    case storageLow

    public var kind: NoticeKind {
        switch self {
        case .shared: .shared
        case .photoDue: .photoDue
        case .aiRefused: .ai
        case .updateInstalled, .updateRolledBack: .update
        case .storageFull, .storageLow: .storage
        }
    }

    /// Whether an AI failure is told: the ones the owner has to act on. A timeout, a network down or a
    /// rate limit mend by themselves (the analysis queue tries again), and an unreadable photo is one
    /// photo's.
    public static func tells(_ failure: AIFailure) -> Bool {
        switch failure {
        case .unauthorized, .noCredit, .modelUnavailable, .regionNotSupported, .cannotSeeImages, .notConfigured:
            true
        case .rateLimited, .photoUnreadable, .requestRefused, .serverError, .timedOut, .offline, .connectionLost,
            .untrusted, .refused, .malformedAnswer, .badPhoto:
            false
        }
    }
}

/// The kinds of notice the owner turns on or off, as the config (`notify.off`) and the page name them.
public enum NoticeKind: String, Sendable, Hashable, Codable, CaseIterable {
    case shared
    case photoDue = "photo_due"
    case ai
    case update
    case storage
}

/// How a notice goes out.
public enum NoticeFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// ntfy's JSON publish (docs.ntfy.sh/publish, "Publish as JSON"): the address is the topic's URL,
    /// `https://ntfy.sh/<topic>` or a self-hosted server's.
    case ntfy
    /// A POST of one JSON object (kind, title, message, station, page, time, language) to the address.
    case webhook
}

/// Where the station's notices go and which it sends: off by default (no address).
public struct NoticeSettings: Sendable, Hashable, Codable {
    /// The topic's or the webhook's URL, http or https; "" sends nothing.
    public var address: String
    public var format: NoticeFormat
    /// The kinds the owner turned off.
    public var off: Set<NoticeKind>
    /// The local time (minutes after midnight) the station reminds of a group photo still to take; nil
    /// for no reminder.
    public var reminder: Int?

    public init(address: String = "", format: NoticeFormat = .ntfy, off: Set<NoticeKind> = [], reminder: Int? = nil) {
        self.address = address
        self.format = format
        self.off = off
        self.reminder = reminder
    }

    /// No notices.
    public static let none = NoticeSettings()

    /// Whether a notice of `kind` goes out.
    public func sends(_ kind: NoticeKind) -> Bool { !address.isEmpty && !off.contains(kind) }

    /// "HH:MM" of a minute after midnight, as the config and the page write the reminder.
    public static func clock(_ minute: Int) -> String {
        let hours = minute / 60
        let minutes = minute % 60
        return (hours < 10 ? "0\(hours)" : "\(hours)") + ":" + (minutes < 10 ? "0\(minutes)" : "\(minutes)")
    }

    /// The minute after midnight of "HH:MM", or nil when it is not one.
    public static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]),
            let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }
}

extension Words {
    /// A notice's title and message in the station's language.
    public func notice(_ notice: Notice) -> (title: String, message: String) {
        switch notice {
        case .shared(let member, let group):
            (self("notice.shared.title", ["member": member]), self("notice.shared.message", ["group": group]))
        case .photoDue(let group):
            (self("notice.photo_due.title", ["group": group]), self("notice.photo_due.message", ["group": group]))
        case .aiRefused(let failure):
            (self("notice.ai.title"), aiFailure(failure))
        case .updateInstalled(let version):
            (self("notice.update.title", ["version": version]), self("notice.update.message"))
        case .updateRolledBack(let tried, let running):
            (
                self("notice.rolled_back.title", ["version": tried]),
                self("notice.rolled_back.message", ["running": running])
            )
        case .storageFull:
            (self("notice.storage.title"), self("notice.storage.message"))
        case .storageLow:
            (self("notice.storage_low.title"), self("notice.storage_low.message"))
        }
    }
}

/// How sending a notice ended.
public enum NoticeOutcome: Sendable, Hashable {
    case sent
    /// The server refused it for good (a wrong topic, a refused token), in its words: not tried again.
    case refused(String)
    /// Not delivered this time (the network, the server's load, its rate limit): worth another try.
    case failed(String)
}

/// Sends a test notice to where the owner's page says, at once (the settings page's "Save and send a
/// test").
public protocol NoticeTrier: Sendable {
    func tryNotices(_ settings: NoticeSettings, language: Language) async -> NoticeOutcome
}

/// Why a notice address cannot be used, as the config reader and the page say it.
public enum NoticeAddressProblem: Sendable, Hashable {
    /// Not an http:// or https:// URL with a host.
    case notHTTP
    /// An ntfy address names no topic (ntfy's rule: 1 to 64 letters, digits, `-` and `_`).
    case noTopic
}

extension NoticeSettings {
    /// What is wrong with `address` for `format`, or nil when it serves ("" is no address, and serves).
    public static func problem(address: String, format: NoticeFormat) -> NoticeAddressProblem? {
        guard !address.isEmpty else { return nil }
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return .notHTTP }
        switch format {
        case .ntfy: return topic(of: address) == nil ? .noTopic : nil
        case .webhook: return nil
        }
    }

    /// The ntfy server's root and the topic of a topic's address (`https://ntfy.sh/kitchen` →
    /// `https://ntfy.sh/`, `kitchen`): ntfy publishes JSON at its root (binwiederhier/ntfy server/server.go,
    /// `transformBodyJSON`), with the topic in the body, as `topicRegex` allows it.
    public static func topic(of address: String) -> (root: String, topic: String)? {
        var trimmed = Substring(address)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/"), trimmed[..<slash].hasSuffix("/") == false else { return nil }
        let topic = trimmed[trimmed.index(after: slash)...]
        let allowed = topic.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        guard (1...64).contains(topic.count), allowed else { return nil }
        return (String(trimmed[...slash]), String(topic))
    }
}
