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
    func backupPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let restored = visitor.form["restored"].map { words("page.backup.restored", ["version": $0]) }
        return page(
            words("page.backup.title"),
            """
            \(notice(restored))
            <h2>\(words("page.backup.download_title"))</h2>
            <p>\(words("page.backup.download_text"))</p>
            <p><a class="button" href="/backup/download" download>\(words("page.backup.download"))</a></p>
            <h2>\(words("page.backup.restore_title"))</h2>
            <p>\(words("page.backup.restore_text"))</p>
            <form class="upload" data-upload="/backup/upload" data-done="/backup" data-csrf="\(visitor.session.csrf)" data-lost="\(words("page.backup.lost"))">
            <label>\(words("page.backup.choose")) <input type="file" id="backup-file" accept=".tar"></label>
            <button type="button" class="send">\(words("page.backup.send"))</button>
            <progress max="100" value="0" hidden></progress>
            <p class="problem" role="alert" hidden></p>
            <noscript><p class="empty">\(words("page.update.noscript"))</p></noscript>
            </form>
            """)
    }

    /// The backup as it is made, named after the station and the day.
    func downloadBackup(_ visitor: Visitor) throws -> WebReply {
        let (store, logger, name) = (store, logger, visitor.session.name)
        let day = try store.stationDay(in: frame.timeZone).today(at: frame.now())
        let file = "snapstation-\(FileName.folder(for: frame.stationName).rawValue)-\(day).tar"
        logger.notice("owner's page: \(name) downloads a backup")
        return WebReply(
            headers: [
                ("Content-Type", "application/x-tar"), ("Content-Disposition", "attachment; filename=\"\(file)\""),
                ("Cache-Control", "no-store"),
            ],
            stream: StreamedBody { sink in
                do {
                    try store.writeBackup(to: sink)
                } catch {
                    logger.error("owner's page: the backup for \(name) was cut short: \(error)")
                    throw error
                }
            })
    }

    /// Where a backup sent to restore is written (beside the store, on the data partition), and the
    /// most it may hold: the card's free space, less 64 MB for the station to go on.
    func restoreTarget(_ request: WebRequest, session: WebSession, _ words: Words) -> WebApp.UploadTarget {
        let folder = store.directory + "/backup"
        let free = (try? FreeSpace.available(at: store.directory)).map { Int(clamping: $0) } ?? 0
        let limit = max(0, free - (64 << 20))
        if let length = request.header("content-length").flatMap(Int.init), length > limit {
            return .refused(413, words("page.backup.problem.too_large"))
        }
        logger.notice("owner's page: \(session.name) sends a backup to restore")
        return .file(folder + "/restore-upload.tar", limit: limit)
    }

    /// A backup sent: checked whole and unpacked (`stageRestore`), the file sent deleted, and the station
    /// told (`Event.backupRestored`); or why not, with nothing changed.
    func restoreReceived(_ path: String, problem: WebApp.UploadProblem?) async -> WebReply {
        let words = self.words
        let (store, link) = (store, frame.link)
        let staged: Result<BackupHeader, BackupProblem>
        switch problem {
        case .tooLarge?: staged = .failure(.failed(words("page.backup.problem.too_large")))
        case .failed(let reason)?: staged = .failure(.failed(reason))
        case nil:
            let result = try? await restoring.run { () -> Result<BackupHeader, BackupProblem> in
                defer { unlink(path) }
                do throws(BackupProblem) {
                    return .success(try store.stageRestore(from: path))
                } catch {
                    return .failure(error)
                }
            }
            staged = result ?? .failure(.failed(words("page.problem.stopping")))
        }
        switch staged {
        case .success(let header):
            logger.notice(
                "owner's page: the backup made by SnapStation \(header.version) on \(header.created) is checked")
            link.send(.backupRestored(version: header.version))
            let query =
                header.version.addingPercentEncoding(
                    withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"])) ?? ""
            return .redirect("/backup?restored=" + query)
        case .failure(let problem):
            logger.warning("owner's page: a backup was not restored: \(problem)")
            return .text(words.backupProblem(problem), status: 400)
        }
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
        case .nameTooLong, .failed: self("page.backup.problem.failed", ["reason": problem.description])
        }
    }
}
