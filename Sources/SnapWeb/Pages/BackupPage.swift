import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// The owner's backups (`StationStore.writeBackup`): "Download a backup" streams one file as it is made,
/// while the station goes on taking photos; "Restore a backup" sends one as the request's body (the
/// update's upload, `WebApp.Upload.backup`), which is checked whole and unpacked beside the store before
/// anything the station uses changes, and the station starts again into it at its next calm moment.
extension BackupRoom {
    /// Where a sealed backup sent to restore waits for its passphrase (`unlock`): encrypted, so it may.
    var lockedPath: String { store.directory + "/backup/restore-locked.sealed" }

    /// The fewest characters of a passphrase that seals a backup.
    static let passphraseLength = 10

    func backupPage(_ visitor: Visitor, message: String? = nil, status: Int = 200, sealing: FormProblem? = nil)
        throws -> WebReply
    {
        let words = self.words
        let kept = store.keptBackups().map { path -> HTML in
            let name = (path as NSString).lastPathComponent
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return """
                <li><a href="/backup/kept/\(name)" download>\(name)</a> <small>\(words("page.backup.size", ["mb": words.number(Double(size) / 1_000_000)]))</small>\
                <form method="post" action="/backup/restore-kept" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="name" value="\(name)"><button type="submit" class="secondary">\(words("page.backup.restore_kept"))</button></form></li>
                """
        }
        // The passphrases are marked as every form's fields are (`FormEcho`), never filled again.
        let echo = sealing.map { FormEcho(visitor.form, $0, prefix: "seal-") } ?? FormEcho(prefix: "seal-")
        let length = Self.passphraseLength
        let restore: HTML =
            FileManager.default.fileExists(atPath: lockedPath)
            ? """
            <form method="post" action="/backup/unlock" class="locked">\(csrfField(visitor))
            <p>\(words("page.backup.locked_text"))</p>
            <label for="unlock-passphrase">\(words("page.backup.passphrase"))</label>
            <input type="password" id="unlock-passphrase" name="passphrase" autocomplete="current-password" required autofocus>
            <div class="buttons"><button type="submit">\(words("page.backup.unlock"))</button>\
            <button type="submit" name="forget" value="1" class="secondary" formnovalidate>\(words("page.backup.forget_locked"))</button></div>
            </form>
            """
            : frame.uploadForm(.backup, visitor, words)
        return page(
            words("page.backup.title"), status: status,
            """
            \(notice(message, problem: true))\(restoreNotice(visitor))\(sealing.map { _ in echo.summary(words) } ?? "")
            <h2>\(words("page.backup.download_title"))</h2>
            <p>\(words("page.backup.download_text"))</p>
            <p><a class="button" href="/backup/download" download>\(words("page.backup.download"))</a></p>
            <h3>\(words("page.backup.sealed_title"))</h3>
            <p>\(words("page.backup.sealed_text"))</p>
            <form method="post" action="/backup/download-sealed">\(csrfField(visitor))
            <label for="seal-passphrase">\(words("page.backup.passphrase_new", ["count": words.integer(length)]))</label>
            <input type="password"\(echo.attributes("passphrase")) name="passphrase" autocomplete="new-password" minlength="\(length)" required>\
            \(echo.message("passphrase"))
            <label for="seal-again">\(words("page.backup.passphrase_again"))</label>
            <input type="password"\(echo.attributes("again")) name="again" autocomplete="new-password" minlength="\(length)" required>\
            \(echo.message("again"))
            <div class="buttons"><button type="submit">\(words("page.backup.download_sealed"))</button></div></form>
            <h2>\(words("page.backup.restore_title"))</h2>
            <p>\(words("page.backup.restore_text"))</p>
            \(restore)
            <h2>\(words("page.backup.kept_title"))</h2>
            <p>\(words("page.backup.kept_text"))</p>
            \(kept.isEmpty ? "<p class=\"empty\">\(words("page.backup.kept_none"))</p>" as HTML : "<ul class=\"kept\">\(kept)</ul>")
            <h2>\(words("page.reset.title"))</h2>
            <p>\(words("page.backup.reset_text"))</p>
            <p><a href="/reset">\(words("page.reset.link"))</a></p>
            """)
    }

    /// A restore waiting or under way (a link to its page), or how the last one ended.
    private func restoreNotice(_ visitor: Visitor) -> HTML {
        switch restoreState() {
        case .none: return ""
        case .staged, .asking, .restoring:
            return "<p class=\"notice\"><a href=\"/backup/restore\">\(words("page.restore.waits"))</a></p>"
        case .restored, .failed: return outcomeNotice(visitor)
        }
    }

    /// The kept backup `name` (one of `keptBackups`, nothing else), read as it goes out.
    func downloadKept(_ name: String, _ visitor: Visitor) throws -> WebReply {
        guard let path = store.keptBackups().first(where: { ($0 as NSString).lastPathComponent == name }) else {
            throw WebProblem.notFound(words("page.backup.kept_gone"), words)
        }
        return WebReply(
            headers: [
                ("Content-Type", "application/x-tar"), ("Content-Disposition", "attachment; filename=\"\(name)\""),
                ("Cache-Control", "no-store"),
            ],
            stream: StreamedBody { try FilePieces(path) })
    }

    /// Restores the kept backup the form names, as a backup sent is.
    func restoreKept(_ visitor: Visitor) throws -> PageStep {
        let name = visitor.form["name"] ?? ""
        guard let path = store.keptBackups().first(where: { ($0 as NSString).lastPathComponent == name }) else {
            throw WebProblem.notFound(words("page.backup.kept_gone"), words)
        }
        return staging(path, deleting: false, visitor, what: "the kept backup \(name)")
    }

    /// The backup as it is made, named after the station and the day.
    func downloadBackup(_ visitor: Visitor) throws -> WebReply { try download(visitor, sealedWith: nil) }

    /// The backup as it is made, its progress told to the station: a tar, or with a passphrase the same
    /// sealed with it (the keys in it).
    private func download(_ visitor: Visitor, sealedWith passphrase: String?) throws -> WebReply {
        let (store, name) = (store, visitor.session.name)
        let day = try store.stationDay(in: frame.timeZone).today(at: frame.now())
        let file = "snapstation-\(FileName.folder(for: frame.stationName).rawValue)-\(day)"
        let sealed = passphrase == nil ? "" : " sealed with a passphrase, with the keys"
        logger.notice("owner's page: \(name) downloads a backup\(sealed)")
        return WebReply(
            headers: [
                ("Content-Type", passphrase == nil ? "application/x-tar" : "application/octet-stream"),
                ("Content-Disposition", "attachment; filename=\"\(file)\(passphrase == nil ? ".tar" : ".sealed")\""),
                ("Cache-Control", "no-store"),
            ],
            stream: StreamedBody { [link = frame.link] in
                ReportedPieces(
                    try store.backupPieces(passphrase: passphrase), BackupProgress(link) { .making(percent: $0) })
            })
    }

    /// Where a backup sent to restore is written (beside the store, on the data partition, a file of its
    /// own: two sent at once do not write into one), and the most it may hold: the card's free space, less
    /// 64 MB for the station to go on.
    func restoreTarget(_ request: WebRequest, session: WebSession, _ words: Words) -> WebApp.UploadTarget {
        let folder = store.directory + "/backup"
        let free = (try? FreeSpace.available(at: store.directory)).map { Int(clamping: $0) } ?? 0
        let limit = max(0, free - (64 << 20))
        if let length = request.header("content-length").flatMap(Int.init), length > limit {
            return .refused(413, words("page.backup.problem.too_large"))
        }
        logger.notice("owner's page: \(session.name) sends a backup to restore")
        return .file(folder + "/restore-upload-\(UInt32.random(in: 0...UInt32.max)).tar", limit: limit)
    }

    /// A backup sent: checked whole, unpacked and rebuilt (`stageRestore`), the file sent deleted, and the
    /// station asked to confirm it (`Event.restoreAsked`); or why not, with nothing changed. A sealed one
    /// waits for its passphrase (`unlock`): the page asks for it.
    func restoreReceived(_ path: String, problem: WebApp.UploadProblem?) async -> WebReply {
        let words = self.words
        let staged: Result<StagedRestore, BackupProblem>
        switch problem {
        case .tooLarge?:
            unlink(path)
            staged = .failure(.failed(words("page.backup.problem.too_large")))
        case .failed(let reason)?:
            unlink(path)
            staged = .failure(.failed(reason))
        case nil where StationStore.isSealedBackup(at: path):
            guard rename(path, lockedPath) == 0 else {
                unlink(path)
                staged = .failure(.failed("keep the sealed backup: \(String(cString: strerror(errno)))"))
                break
            }
            logger.notice("owner's page: a sealed backup waits for its passphrase")
            return .redirect("/backup")
        case nil: staged = await Self.stage(path, of: store, on: restoring, deleting: true, telling: frame.link)
        }
        switch staged {
        case .success(let restore):
            _ = await askStation(restore)
            return .redirect("/backup/restore")
        case .failure(let problem):
            logger.warning("owner's page: a backup was not restored: \(problem)")
            return .text(words.backupProblem(problem), status: 400)
        }
    }

    /// The sealed backup waiting (`lockedPath`) opened with the passphrase the form sends, checked and
    /// unpacked as any backup sent; a wrong passphrase says so and it waits on. The form's other button
    /// sets it aside.
    func unlock(_ visitor: Visitor) throws -> PageStep {
        let path = lockedPath
        guard visitor.form["forget"] == nil else {
            unlink(path)
            return .reply(.redirect("/backup"))
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw WebProblem.notFound(words("page.backup.kept_gone"), words)
        }
        return staging(
            path, deleting: true, passphrase: visitor.form["passphrase"] ?? "", visitor, what: "a sealed backup")
    }

    /// The backup with the keys, sealed with the passphrase the form sends twice (`BackupSeal`), as it is
    /// made; or the page again saying what is wrong with them.
    func downloadSealed(_ visitor: Visitor) throws -> WebReply {
        let passphrase = visitor.form["passphrase"] ?? ""
        guard passphrase.count >= Self.passphraseLength else {
            let problem = words("page.backup.problem.passphrase_short", ["count": words.integer(Self.passphraseLength)])
            return try backupPage(visitor, status: 400, sealing: FormProblem(problem, field: "passphrase"))
        }
        guard passphrase == visitor.form["again"] else {
            return try backupPage(
                visitor, status: 400,
                sealing: FormProblem(words("page.backup.problem.passphrase_differs"), field: "again"))
        }
        return try download(visitor, sealedWith: passphrase)
    }
}

extension BackupPieces: BodyPieces {}

/// A file sent as it is, 64 KiB at a time.
final class FilePieces: BodyPieces {
    private let file: FileHandle

    init(_ path: String) throws { file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) }

    deinit { try? file.close() }

    func next() throws -> [UInt8]? {
        guard let piece = try file.read(upToCount: 64 * 1024), !piece.isEmpty else { return nil }
        return Array(piece)
    }
}

extension Words {
    /// Why a backup was not restored, for the owner.
    func backupProblem(_ problem: BackupProblem) -> String {
        switch problem {
        case .notABackup: self("page.backup.problem.not_a_backup")
        case .truncated: self("page.backup.problem.truncated")
        case .damaged(let part): self("page.backup.problem.damaged", ["part": part])
        case .newer(let version, _, let ours): self("page.backup.problem.newer", ["version": version, "ours": ours])
        case .noRoom(let needed, let free):
            self("page.backup.problem.no_room", ["needed": integer(needed), "free": integer(free)])
        case .locked: self("page.backup.problem.locked")
        case .wrongPassphrase: self("page.backup.problem.wrong_passphrase")
        case .tooMuchWork: self("page.backup.problem.too_much_work")
        case .nameTooLong, .failed: self("page.backup.problem.failed", ["reason": problem.description])
        }
    }
}
