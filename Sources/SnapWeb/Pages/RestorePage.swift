import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapStore
import SnapText

/// A restore, as the owner follows it on the phone (`StationStore+Staging.swift` for its steps): the backup
/// sent is checked and rebuilt, the station asks for the long hold at its button (as the factory reset
/// does: a phone alone never replaces what the station holds), keeps a backup of what it replaces, and
/// starts again with it. The restore's page follows the station across that restart: its script asks
/// `/backup/restore/state` until the state is another, and a request that fails while the station starts
/// again is asked again (without the script, the owner reloads it). The outcome is written by the start
/// that put the backup in place, so the phone reads it whenever it comes back.
extension BackupRoom {
    /// Where the restore is, as `/backup/restore/state` says it: the page reloads when it changes.
    enum RestoreState: String {
        /// Nothing waits and nothing was restored since the owner last looked.
        case none
        /// Checked, waiting for the station's hold; the station is not asking (busy, or it timed out).
        case staged
        /// The station is asking for the hold now.
        case asking
        /// The hold confirmed it: the station keeps a backup and starts again with it.
        case restoring
        /// The last restore was put in place, or could not be (`RestoreOutcome.problem`).
        case restored, failed
    }

    func restoreState() -> RestoreState {
        if case .question(let screen)? = link.status().screen, case .restore = screen.question {
            return screen.secondsLeft == nil ? .restoring : .asking
        }
        let staged = store.stagedRestore()
        if staged?.keptBackup != nil { return .restoring }
        if staged != nil { return .staged }
        guard let outcome = store.restoreOutcome() else { return .none }
        return outcome.problem == nil ? .restored : .failed
    }

    /// `/backup/restore/state`: the state alone, for the page's script.
    func restoreStateText(_ visitor: Visitor) -> WebReply {
        WebReply(
            headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(restoreState().rawValue.utf8))
    }

    /// The restore's page: what waits and what the station does, or how the last restore ended.
    func restorePage(_ visitor: Visitor, busy: Bool = false) -> WebReply {
        let words = self.words
        let state = restoreState()
        var body: HTML = ""
        switch state {
        case .none:
            return .redirect("/backup")
        case .staged, .asking:
            let staged = store.stagedRestore()
            // The hold confirmed it once, and the backup of what it replaces could not be made: why, first.
            let failed = store.restoreOutcome()?.problem.map {
                notice(words("page.restore.failed", ["reason": frame.withoutPaths($0)]), problem: true)
            }
            body = """
                \(failed ?? "")<p>\(words("page.restore.staged", ["date": day(of: staged?.created), "version": staged?.version ?? "?"]))</p>
                \(refusedNote(staged?.report))
                \(state == .asking ? notice(words("page.restore.asking")) : busy ? notice(words("page.restore.busy"), problem: true) : "")
                <div class="buttons">\(state == .asking ? "" : """
                <form method="post" action="/backup/restore/ask" class="inline">\(csrfField(visitor))\
                <button type="submit">\(words("page.restore.ask"))</button></form>
                """ as HTML)\
                <form method="post" action="/backup/restore/forget" class="inline">\(csrfField(visitor))\
                <button type="submit" class="secondary">\(words("page.restore.forget"))</button></form></div>
                """
        case .restoring:
            body = notice(words("page.restore.restoring"))
        case .restored, .failed:
            body = outcomeNotice(visitor)
        }
        // The page's script follows the state (a meta refresh would end on the browser's error page while
        // the station restarts, and axe counts a timed refresh against the page); without it, a reload.
        return page(
            words("page.restore.title"), status: busy ? 409 : 200,
            """
            <div data-follow="/backup/restore/state" data-state="\(state.rawValue)">
            \(body)
            </div>
            <p><a href="/backup">\(words("page.restore.back"))</a></p>
            """)
    }

    /// How the last restore ended, with what it did not take and the settings waiting for the owner.
    func outcomeNotice(_ visitor: Visitor) -> HTML {
        guard let outcome = store.restoreOutcome() else { return "" }
        let words = self.words
        let restore = outcome.restore
        let said: HTML
        if let problem = outcome.problem {
            said = notice(words("page.restore.failed", ["reason": frame.withoutPaths(problem)]), problem: true)
        } else {
            let kept: HTML =
                restore.keptBackup.map { "<p>\(words("page.restore.kept", ["name": $0]))</p>" } ?? ""
            said = """
                \(notice(words("page.restore.done", ["date": day(of: restore.created), "version": restore.version])))
                \(kept)\(refusedNote(restore.report))\(waitingSettings(visitor))
                """
        }
        return """
            \(said)
            <form method="post" action="/backup/restore/done">\(csrfField(visitor))\
            <button type="submit" class="secondary">\(words("page.restore.ok"))</button></form>
            """
    }

    /// The settings the backup named that wait for the owner (`StationStore.restoredSettings`).
    private func waitingSettings(_ visitor: Visitor) -> HTML {
        guard let waiting = try? store.restoredSettings(), waiting != RuntimeSettings() else { return "" }
        let words = self.words
        var lines: [HTML] = []
        if let service = waiting.aiService {
            lines.append(
                "<li>\(words("page.restore.waiting.ai", ["address": service.baseURL, "model": service.model]))</li>")
        }
        if let broker = waiting.mqtt, !broker.address.isEmpty {
            lines.append("<li>\(words("page.restore.waiting.mqtt", ["address": broker.address]))</li>")
        }
        if let notices = waiting.notices, !notices.address.isEmpty {
            lines.append("<li>\(words("page.restore.waiting.notices", ["address": notices.address]))</li>")
        }
        guard !lines.isEmpty else { return "" }
        return """
            <h2>\(words("page.restore.waiting_title"))</h2>
            <p>\(words("page.restore.waiting_text"))</p>
            <ul class="waiting">\(lines)</ul>
            <form method="post" action="/backup/restore/settings" class="buttons">\(csrfField(visitor))\
            <button type="submit" name="use" value="1">\(words("page.restore.waiting.use"))</button>\
            <button type="submit" name="use" value="0" class="secondary">\(words("page.restore.waiting.off"))</button></form>
            """
    }

    private func refusedNote(_ report: RestoreReport?) -> HTML {
        guard let report, report.refusedRows > 0 else { return "" }
        return "<p>\(words("page.restore.refused", count: report.refusedRows))</p>"
    }

    /// The day a backup's header says it was made, as the page writes days.
    private func day(of created: String?) -> String {
        Self.createdDay(created, in: frame.timeZone).map(words.day) ?? created ?? "?"
    }

    static func createdDay(_ created: String?, in timeZone: TimeZone) -> LocalDay? {
        created.flatMap { ISO8601DateFormatter().date(from: $0) }.map { LocalDay(containing: $0, in: timeZone) }
    }

    /// Asks the station to confirm the restore waiting; the restore's page then says to hold its button,
    /// or that it is busy.
    func askRestore(_ visitor: Visitor) throws -> PageStep {
        guard let staged = store.stagedRestore() else { return .reply(.redirect("/backup")) }
        // Asked again: why the last try failed is read.
        if store.restoreOutcome()?.problem != nil { store.dismissRestoreOutcome() }
        return .after {
            let asking = await self.askStation(staged)
            return { .reply(self.restorePage(visitor, busy: !asking)) }
        }
    }

    /// Tells the station that `staged` waits, and says whether it asks for the hold now.
    func askStation(_ staged: StagedRestore) async -> Bool {
        let created = Self.createdDay(staged.created, in: frame.timeZone)
        let status = await link.deliver(.restoreAsked(version: staged.version, created: created))
        let asking =
            if case .question(let screen)? = status?.screen, case .restore = screen.question {
                screen.secondsLeft != nil
            } else { false }
        if asking { logger.notice("owner's page: a restore asked; the station asks for the long hold") }
        return asking
    }

    func forgetRestore(_ visitor: Visitor) throws -> WebReply {
        store.forgetStagedRestore()
        logger.notice("owner's page: the restore waiting is forgotten")
        return .redirect("/backup")
    }

    func dismissOutcome(_ visitor: Visitor) throws -> WebReply {
        store.dismissRestoreOutcome()
        return .redirect("/backup")
    }

    /// The settings the backup named, used (through the machine, their one writer: taken as the station
    /// starts again) or left off.
    func confirmRestoredSettings(_ visitor: Visitor) throws -> PageStep {
        let waiting = try store.restoredSettings()
        let use = visitor.form["use"] == "1"
        let (store, logger) = (store, logger)
        return .after {
            if use {
                let keys = Set(RuntimeSettings.Key.allCases.filter { $0.isSet(in: waiting) })
                _ = await self.link.deliver(.settingsChanged(.part(waiting, keys: keys)))
                _ = await self.link.deliver(.startChanged)
            }
            try? store.forgetRestoredSettings()
            logger.notice("owner's page: the restored backup's addresses \(use ? "used" : "left off")")
            return { .reply(.redirect("/backup/restore")) }
        }
    }

    /// Checks, unpacks and rebuilds the backup at `path` (`stage`), then asks the station, or the page
    /// again with why not (`what` names it in the log).
    func staging(
        _ path: String, deleting: Bool, passphrase: String? = nil, _ visitor: Visitor, what: String
    ) -> PageStep {
        let (store, restoring, link) = (store, restoring, frame.link)
        return .after {
            let staged = await Self.stage(
                path, of: store, on: restoring, deleting: deleting, passphrase: passphrase, telling: link)
            if case .success(let restore) = staged { _ = await self.askStation(restore) }
            return {
                switch staged {
                case .success: return .reply(.redirect("/backup/restore"))
                case .failure(let problem):
                    self.logger.warning("owner's page: \(what) was not restored: \(problem)")
                    return .reply(
                        try self.backupPage(visitor, message: self.words.backupProblem(problem), status: 400))
                }
            }
        }
    }

    /// Checks, unpacks and rebuilds the backup at `path` on `thread` (`stageRestore`, a sealed one opened
    /// with `passphrase`, the owner's settings in it through `StationConfig.restorable`), deleting the file
    /// after when it was sent; a sealed one the passphrase did not open stays, for the owner to try again.
    /// Its progress goes to the station's screen (`BackupProgress`).
    static func stage(
        _ path: String, of store: StationStore, on thread: SerialThread, deleting: Bool, passphrase: String? = nil,
        telling link: any StationLink
    ) async -> Result<StagedRestore, BackupProblem> {
        let progress = BackupProgress(link) { .checking(percent: $0) }
        defer { progress.end() }
        let result = try? await thread.run { () -> Result<StagedRestore, BackupProblem> in
            do throws(BackupProblem) {
                let staged = try store.stageRestore(
                    from: path, passphrase: passphrase, settings: StationConfig.restorable, progress: progress.report)
                if deleting { unlink(path) }
                return .success(staged)
            } catch {
                if deleting && error != .wrongPassphrase { unlink(path) }
                return .failure(error)
            }
        }
        return result ?? .failure(.failed("the station is stopping"))
    }
}
