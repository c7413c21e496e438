import Foundation
import SnapCore
import SnapStore
import SnapText

/// What the page's script sends as a request's whole body (an update bundle, a backup to restore): the
/// server streams it to the data partition (`PageResponder.receive`), checked first as any request of the
/// page is, and its room says where it goes and what its end means.
extension WebApp {
    /// What the page's script may send as a request's whole body, streamed to the data partition.
    enum Upload: Sendable {
        /// An update bundle, to the update's bundles (`POST /update/upload`).
        case bundle
        /// A backup to restore (`POST /backup/upload`).
        case backup
        /// A meal's photo from the phone (`POST /log/photo?person=N`).
        case photo

        init?(path: String) {
            switch path {
            case "/update/upload": self = .bundle
            case "/backup/upload": self = .backup
            case "/log/photo": self = .photo
            default: return nil
            }
        }

        /// Where it is sent, the page the answer leads to, the file field's id and the files it offers,
        /// and its words' keys: the field's label, the button, what a lost connection says, and what is
        /// said while the station works on the file sent (nil: it answers at once).
        var form: (path: String, done: String, id: String, accept: String, words: (String, String, String, String?)) {
            switch self {
            case .bundle:
                (
                    "/update/upload", "/update", "bundle", ".raucb",
                    ("page.update.choose", "page.update.send", "page.update.lost", nil)
                )
            case .backup:
                (
                    "/backup/upload", "/backup", "backup-file", ".tar,.sealed",
                    ("page.backup.choose", "page.backup.send", "page.backup.lost", "page.backup.checking")
                )
            // No `capture` attribute: with it a phone opens its camera only; without it, its picker offers
            // the camera and the photo library both, and a meal eaten away is usually in the library.
            case .photo:
                (
                    "/log/photo", "/log/review", "phone-photo", "image/*",
                    ("page.log.photo.choose", "page.log.photo.send", "page.log.photo.lost", "page.log.photo.working")
                )
            }
        }
    }

    /// Whether the head of an upload may send its file, checked as any request of the page is: one of the
    /// station's own names, a live session, the page's own origin, and the session's CSRF token (in
    /// `X-CSRF-Token`: the page's script sends the file as the body, with no form around it). The file
    /// it goes to (its room says), or the answer that refuses it before a byte of the body is read.
    func upload(_ kind: Upload, _ request: WebRequest) -> UploadTarget {
        let words = Words(frame.link.status().inForce.language)
        guard gate.names.allows(host: request.header("host")) else {
            return .refused(421, words("page.problem.host.message"))
        }
        guard let session = (try? gate.liveSession(of: request)) ?? nil else {
            return .refused(401, words("page.pair.first"))
        }
        if let origin = request.header("origin"), !PageGate.sameOrigin(origin, request) {
            return .refused(403, words("page.problem.other_site", ["origin": origin]))
        }
        guard let token = request.header("x-csrf-token"), Secrets.equal(token, session.csrf) else {
            return .refused(403, words("page.problem.out_of_date.message"))
        }
        // An update and a restore are the owner's; a meal's photo anyone's of the household.
        guard kind == .photo || session.role == .owner else {
            return .refused(403, words("page.problem.owners.message"))
        }
        switch kind {
        case .bundle: return update.bundleTarget(request, session: session, words)
        case .backup: return backup.restoreTarget(request, session: session, words)
        case .photo: return log.photoTarget(request, session: session, words)
        }
    }

    /// Where a file sent goes and the most it may hold, or the answer that refuses it.
    enum UploadTarget: Sendable {
        case file(String, limit: Int)
        case refused(WebReply)

        static func refused(_ status: Int, _ message: String) -> UploadTarget {
            .refused(WebApp.uploadRefusal(status, message))
        }
    }

    /// Why an upload was refused or not kept, as the page's script shows it: the sentence alone. An upload's
    /// answer does not pass through `respond`, so it carries the security headers itself.
    static func uploadRefusal(_ status: Int, _ message: String) -> WebReply {
        WebReply(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + securityHeaders,
            body: Array((message + "\n").utf8))
    }

    /// Why a bundle sent was not kept.
    enum UploadProblem: Error {
        case tooLarge
        case failed(String)
    }

    /// The answer to an upload that ended: a bundle's name on the update page, a backup checked and
    /// waiting for the restart, a photo on its way to the AI; or why it was not kept.
    func received(_ kind: Upload, _ request: WebRequest, _ path: String, problem: UploadProblem?) async -> WebReply {
        var reply: WebReply
        switch kind {
        case .bundle: reply = update.bundleReceived(path, problem: problem)
        case .backup: reply = await backup.restoreReceived(path, problem: problem)
        case .photo:
            // The session again: whose photo it is (a member's phone logs for its own person), and one
            // forgotten while the photo arrived takes nothing.
            let session = (try? gate.liveSession(of: request)) ?? nil
            reply = await log.photoReceived(request, session: session, path, problem: problem)
        }
        // An upload's answer does not pass through `respond`: no absolute path in its words either.
        if reply.status >= 400 {
            reply.body = Array(frame.withoutPaths(String(decoding: reply.body, as: UTF8.self)).utf8)
        }
        return reply
    }
}
