import Foundation
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapText

/// A photo from the phone: its head checked before a byte of it is read, its body streamed to the data
/// partition (`PageResponder.receive`), then the capture's pipeline and the AI.
extension LogRoom {
    /// Where the photo goes, or the answer that refuses it first: larger than a phone's photo
    /// (`maxPhotoMB`, by its Content-Length; a body that grows past it is cut off as it arrives), a person
    /// who is not there, a meal already waiting, today's analyses used up.
    func photoTarget(_ request: WebRequest, session: WebSession, _ words: Words) -> WebApp.UploadTarget {
        let limit = Self.maxPhotoMB << 20
        if let length = request.header("content-length").flatMap(Int.init), length > limit {
            return .refused(
                413,
                words(
                    "page.log.photo.too_large",
                    ["mb": words.integer(Self.maxPhotoMB), "size": words.integer((length + (1 << 19)) >> 20)]))
        }
        do {
            let person = try loggingPerson(session, asked: asked(request), in: try store.household())
            if let refused = try refusal(for: person, words) { return .refused(409, refused) }
            try AtomicFile.createFolder(incoming)
        } catch let refusal as WebProblem {
            return .refused(refusal.status, refusal.message)
        } catch {
            logger.error("owner's page: a phone's photo cannot be taken: \(error)")
            return .refused(500, words("page.log.photo.not_received", ["reason": frame.withoutPaths("\(error)")]))
        }
        return .file(incoming + "/phone-\(UUID().uuidString).jpg", limit: limit)
    }

    /// The photo as it arrived: read, removed, run through the capture's pipeline and kept, then the AI
    /// asked in the page's jobs; the answer leads to the review. A file that is not a whole JPEG the
    /// station can decode is refused with the reason, nothing kept.
    func photoReceived(
        _ request: WebRequest, session: WebSession?, _ path: String, problem: WebApp.UploadProblem?
    ) async -> WebReply {
        let words = self.words
        let bytes = FileBytes.readIfPresent(path)
        try? FileManager.default.removeItem(atPath: path)
        guard let session, let household = try? store.household(),
            let person = session.loggingPerson(household, asked: asked(request))
        else { return refused(401, words("page.pair.first")) }
        switch problem {
        case .tooLarge?:
            return refused(413, words("page.log.photo.too_large_sent", ["mb": words.integer(Self.maxPhotoMB)]))
        case .failed(let reason)?:
            return refused(400, words("page.log.photo.not_received", ["reason": reason]))
        case nil: break
        }
        guard let bytes, let kitchen else {
            return refused(500, words("page.log.photo.not_received", ["reason": words("page.log.photo.no_file")]))
        }
        let moment = now()
        let photo: ProcessedPhoto
        let day: LocalDay
        do {
            day = try today()
            photo = try await kitchen.keep(
                photo: bytes, as: PhotoID.new(at: moment, in: timeZone), day: day, at: moment)
        } catch let refusal as UploadedPhoto.Problem {
            logger.notice("owner's page: a phone's photo (\(bytes.count) bytes) was refused: \(refusal)")
            return refused(415, words.uploadProblem(refusal))
        } catch PageMealsProblem.diskFull {
            return refused(507, words("page.log.photo.disk_full"))
        } catch {
            logger.error("owner's page: a phone's photo was not kept: \(error)")
            return refused(500, words("page.log.photo.not_received", ["reason": "\(error)"]))
        }
        logger.info("owner's page: a phone's photo kept as \(photo.id)", metadata: ["bytes": "\(bytes.count)"])
        let asked = LogDraft(person: person.id, photo: photo, day: day, stage: .asking)
        // Another meal asked about while this one arrived: this photo goes, as a refused upload leaves none.
        guard ask(asked, { (kitchen: any PageMeals) async throws(AIFailure) in try await kitchen.analyse(photo) })
        else {
            _ = try? await store.writing { store throws(StoreError) in try store.discardPhoto(photo.id) }
            return refused(409, words("page.log.busy"))
        }
        return .redirect("/log/review")
    }

    private func refused(_ status: Int, _ message: String) -> WebReply { WebApp.uploadRefusal(status, message) }

    /// The person a photo is sent for (`?person=`), as `WebSession.loggingPerson` reads it.
    private func asked(_ request: WebRequest) -> String? { request.query.last { $0.name == "person" }?.value }
}

extension Words {
    /// Why a phone's photo was not kept, for the person who sent it.
    func uploadProblem(_ problem: UploadedPhoto.Problem) -> String {
        switch problem {
        case .notJPEG(.heic): self("page.log.photo.heic")
        case .notJPEG(.png), .notJPEG(.gif), .notJPEG(.webp):
            self("page.log.photo.not_a_photo", ["kind": problem.kindName])
        case .notJPEG(.jpeg), .notJPEG(.other): self("page.log.photo.not_a_picture")
        case .tooLarge(let width, let height):
            self(
                "page.log.photo.too_many_pixels",
                ["megapixels": integer(width * height / 1_000_000), "most": integer(JPEG.maxPixels / 1_000_000)])
        case .unreadable: self("page.log.photo.unreadable")
        case .incomplete: self("page.log.photo.incomplete")
        }
    }
}

extension UploadedPhoto.Problem {
    /// The picture's kind as people name it (PNG, GIF, WebP).
    var kindName: String {
        guard case .notJPEG(let kind) = self else { return "" }
        return kind == .webp ? "WebP" : kind.rawValue.uppercased()
    }
}
