import Foundation
import SnapCore
import SnapStore
import SnapText

extension MealsRoom {
    /// `/photo/ID.jpg`, `/photo/ID.thumb.jpg`, `/photo/ID.sticker.png`: the station's own photos, by the
    /// paths the store recorded (the id from the URL is only looked up, never made into a path).
    func photoFile(_ name: String, _ visitor: Visitor) throws -> WebReply {
        let kinds = [(".thumb.jpg", "thumb"), (".sticker.png", "sticker"), (".jpg", "photo")]
        guard let (suffix, kind) = kinds.first(where: { name.hasSuffix($0.0) }) else {
            let words = self.words
            throw WebProblem.notFound(words("page.problem.no_photo"), words)
        }
        let id = try photoID(String(name.dropLast(suffix.count)))
        guard let files = try store.photoFiles(id) else {
            let words = self.words
            throw WebProblem.notFound(
                words(
                    "page.problem.photo_not_kept",
                    ["id": id.rawValue, "hours": words.integer(retentionHours)]),
                words)
        }
        let path = kind == "thumb" ? files.thumbnail : kind == "sticker" ? files.sticker : files.photo
        return try file(path, type: kind == "sticker" ? "image/png" : "image/jpeg", name: name, visitor)
    }

    /// `/received/ID.jpg`: a photo another member shared.
    func receivedFile(_ name: String, _ visitor: Visitor) throws -> WebReply {
        guard name.hasSuffix(".jpg"), let id = PhotoID(parsing: String(name.dropLast(4))),
            let photo = try store.receivedPhoto(id)
        else {
            let words = self.words
            throw WebProblem.notFound(words("page.problem.no_photo"), words)
        }
        return try file(photo.path, type: "image/jpeg", name: "\(photo.member)-\(name)", visitor)
    }

    /// A photo id from a URL or a form; anything else is a photo the station does not have.
    private func file(_ path: String?, type: String, name: String, _ visitor: Visitor) throws -> WebReply {
        guard let path, let bytes = FileManager.default.contents(atPath: path) else {
            let words = self.words
            throw WebProblem.notFound(words("page.problem.file_gone"), words)
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", type), ("Cache-Control", "private, max-age=3600"),
        ]
        if visitor.form["download"] != nil {
            let safe = name.filter { $0.isLetter || $0.isNumber || "-._".contains($0) }
            headers.append(("Content-Disposition", "attachment; filename=\"\(safe)\""))
        }
        return WebReply(headers: headers, body: Array(bytes))
    }
}

extension PageRoom {
    /// The photo a path names, or the page that says there is none.
    func photoID(_ text: String?) throws -> PhotoID {
        guard let id = text.flatMap(PhotoID.init(parsing:)) else {
            let words = self.words
            throw WebProblem.notFound(words("page.problem.no_photo"), words)
        }
        return id
    }
}
