import Foundation
import SnapCore
import SnapFiles
import SnapStore
import SnapText

extension StatusRoom {
    /// The devices as the station sees them, the queues and their last errors, disk space, AI uses left
    /// today, the version and uptime, and the paired browsers (each can be forgotten).
    func statusPage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        let status = link.status()
        let devices = status.devices.map { device -> HTML in
            """
            <tr><td>\(words.device(device.kind))</td><td>\(device.backend)</td>\
            <td class="\(device.problem == nil ? "ok" : "bad")">\(device.problem ?? words("page.status.working"))</td></tr>
            """
        }
        let queues = try store.queueStatus()
        // "analysis ID: the reason": the reason in the page's words where it is one of the station's own.
        let errors = queues.lastErrors.map { error -> HTML in
            guard let colon = error.range(of: ": "),
                let failure = AIFailure(message: String(error[colon.upperBound...]))
            else { return "<li>\(error)</li>" }
            return "<li>\(String(error[..<colon.upperBound]))\(words.aiFailure(failure))</li>"
        }
        let failed = try store.failedAnalyses(since: now().addingTimeInterval(-7 * 86_400)).map { job, reason -> HTML in
            """
            <li><img src="/photo/\(job.photo.id.rawValue).thumb.jpg" alt="" width="48"> \
            \(words("page.status.failed_line", ["time": dateAndTime(job.photo.takenAt, words), "reason": AIFailure(message: reason).map(words.aiFailure) ?? reason]))\
            <form method="post" action="/status/analyse" class="inline">\(csrfField(visitor))\
            <input type="hidden" name="meal" value="\(job.photo.id.rawValue)"><button type="submit">\(words("page.status.ask_again"))</button></form></li>
            """
        }
        let asked = visitor.form["asked"].map { _ in words("page.status.asked") }
        let free =
            (try? FreeSpace.available(at: storageDir)).map {
                words("page.status.free", ["mb": words.integer(Int($0 / 1_000_000))])
            } ?? words("page.status.free_unknown")
        let budget = try budget(on: try today())
        let uptime = Int(now().timeIntervalSince(status.startedAt))
        let mode = words.mode(status.mode) + (status.group.map { " → \($0)" } ?? "")
        let upFor = words(
            "page.status.uptime",
            [
                "days": words.integer(uptime / 86_400), "hours": words.integer(uptime / 3600 % 24),
                "minutes": words.integer(uptime / 60 % 60),
            ])
        let uses = words(
            "page.status.ai_uses",
            [
                "used": words.integer(budget.used), "limit": words.integer(budget.limit),
                "left": words.integer(budget.left),
            ])
        let waiting = words(
            "page.status.queue_line",
            [
                "uploads": words("page.status.uploads", count: queues.uploads),
                "analyses": words("page.status.analyses", count: queues.analyses),
            ])
        return page(
            words("page.status.title"),
            """
            \(tableBox(words("page.status.title"), """
            <table class="status"><tbody>
            <tr><th>\(words("page.status.screen"))</th><td colspan="2">\(status.screen.map { words.screen($0) } ?? words("page.status.starting"))</td></tr>
            <tr><th>\(words("page.status.mode"))</th><td colspan="2">\(mode)</td></tr>
            <tr><th>\(words("page.status.version"))</th><td colspan="2">\(updater?.systemVersion ?? StationVersion.current) · <a href="/update">\(words("page.update.title"))</a></td></tr>
            <tr><th>\(words("page.status.up_for"))</th><td colspan="2">\(upFor)</td></tr>
            <tr><th>\(words("page.status.storage"))</th><td colspan="2">\(words("page.status.storage_line", ["free": free, "dir": storageDir]))</td></tr>
            <tr><th>\(words("page.status.ai_today"))</th><td colspan="2">\(uses)</td></tr>
            <tr><th>\(words("page.status.queues"))</th><td colspan="2">\(waiting)</td></tr>
            </tbody></table>
            """))
            <h2>\(words("page.status.devices"))</h2>
            \(tableBox(words("page.status.devices"), """
            <table class="status"><thead><tr><th>\(words("page.status.device"))</th><th>\(words("page.status.backend"))</th>\
            <th>\(words("page.status.state"))</th></tr></thead><tbody>\(devices)</tbody></table>
            """))
            \(notice(asked))
            <h2>\(words("page.status.failed"))</h2>
            \(failed.isEmpty ? "<p class=\"empty\">\(words("page.status.failed_none"))</p>" as HTML : "<ul class=\"failed\">\(failed)</ul>")
            <h2>\(words("page.status.errors"))</h2>
            \(errors.isEmpty ? "<p class=\"empty\">\(words("page.status.errors_none"))</p>" as HTML : "<ul class=\"errors\">\(errors)</ul>")
            \(try browsers(visitor, words))
            <form method="post" action="/signout">\(csrfField(visitor))<button type="submit" class="secondary">\(words("page.status.sign_out"))</button></form>
            """)
    }

    /// Puts a meal whose analysis failed for good back in the delayed queue, and tells the station to look
    /// at the queue: the answer comes up for review on the station, as a queued meal's does.
    func analyseAgain(_ visitor: Visitor) throws -> WebReply {
        let id = try photoID(visitor.form["meal"] ?? "")
        let moment = now()
        let found = try store.writingAndWaiting { store throws(StoreError) in try store.retryAnalysis(id, now: moment) }
        guard found else {
            let words = self.words
            throw WebProblem.notFound(words("page.status.no_failed_analysis"), words)
        }
        link.send(.analysisRetryAsked(id))
        logger.info("owner's page: the AI is asked again about \(id)")
        return .redirect("/status?asked=1")
    }
}
