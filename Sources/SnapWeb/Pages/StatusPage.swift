import Foundation
import SnapCore
import SnapFiles
import SnapStore

extension WebApp {
    /// The devices as the station sees them, the queues and their last errors, disk space, AI uses left
    /// today, the version and uptime, and the paired browsers (each can be forgotten).
    func statusPage(_ visitor: Visitor) throws -> WebReply {
        let status = link.status()
        let devices = status.devices.map { device -> HTML in
            """
            <tr><td>\(device.kind.rawValue)</td><td>\(device.backend)</td>\
            <td class="\(device.problem == nil ? "ok" : "bad")">\(device.problem ?? "working")</td></tr>
            """
        }
        let queues = try store.queueStatus()
        let errors = queues.lastErrors.map { error -> HTML in "<li>\(error)</li>" }
        let failed = try store.failedAnalyses(since: now().addingTimeInterval(-7 * 86_400)).map { job, reason -> HTML in
            """
            <li><img src="/photo/\(job.photo.id.rawValue).thumb.jpg" alt="" width="48"> \(dateAndTime(job.photo.takenAt)): \(reason)\
            <form method="post" action="/status/analyse" class="inline">\(csrfField(visitor))\
            <input type="hidden" name="meal" value="\(job.photo.id.rawValue)"><button type="submit">Ask the AI again</button></form></li>
            """
        }
        let asked = visitor.form["asked"].map { _ in "Asked again: the result comes up for review on the station." }
        let free = (try? FreeSpace.available(at: config.storage.dir)).map { "\($0 / 1_000_000) MB free" } ?? "unknown"
        let used = try store.aiUses(on: today())
        let uptime = Int(now().timeIntervalSince(status.startedAt))
        let sessions = try store.sessions().map { session -> HTML in
            let own = session.tokenHash == visitor.session.tokenHash
            return """
                <li>\(session.name)\(own ? " (this browser)" as HTML : "") <small>paired \(dateAndTime(session.created)), \
                last seen \(dateAndTime(session.lastSeen))</small>\
                <form method="post" action="/status/forget" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="session" value="\(session.tokenHash)"><button type="submit">Forget</button></form></li>
                """
        }
        return page(
            "Status",
            """
            <table class="status"><tbody>
            <tr><th>Screen</th><td colspan="2">\(status.screen?.name ?? "starting")</td></tr>
            <tr><th>Mode</th><td colspan="2">\(status.mode.rawValue)\(status.group.map { " → \($0)" } ?? "")</td></tr>
            <tr><th>Version</th><td colspan="2">\(StationVersion.current)</td></tr>
            <tr><th>Up for</th><td colspan="2">\(uptime / 86_400) d \(uptime / 3600 % 24) h \(uptime / 60 % 60) min</td></tr>
            <tr><th>Storage</th><td colspan="2">\(free) in \(config.storage.dir)</td></tr>
            <tr><th>AI today</th><td colspan="2">\(used) of \(config.ai.dailyLimit) used, \(max(0, config.ai.dailyLimit - used)) left</td></tr>
            <tr><th>Queues</th><td colspan="2">\(queues.uploads) photo(s) to send, \(queues.analyses) meal(s) to analyse</td></tr>
            </tbody></table>
            <h2>Devices</h2>
            <table class="status"><thead><tr><th>Device</th><th>Backend</th><th>State</th></tr></thead><tbody>\(devices)</tbody></table>
            \(notice(asked))
            <h2>Meals the AI could not analyse</h2>
            \(failed.isEmpty ? "<p class=\"empty\">None this week.</p>" as HTML : "<ul class=\"failed\">\(failed)</ul>")
            <h2>Last errors</h2>
            \(errors.isEmpty ? "<p class=\"empty\">None.</p>" as HTML : "<ul class=\"errors\">\(errors)</ul>")
            <h2>Paired browsers</h2>
            <ul class="sessions">\(sessions)</ul>
            <form method="post" action="/status/forget">\(csrfField(visitor))<input type="hidden" name="session" value="others">\
            <button type="submit">Forget every other browser</button></form>
            <form method="post" action="/signout">\(csrfField(visitor))<button type="submit" class="secondary">Sign this browser out</button></form>
            """)
    }

    /// Puts a meal whose analysis failed for good back in the delayed queue, and tells the station to look
    /// at the queue: the answer comes up for review on the station, as a queued meal's does.
    func analyseAgain(_ visitor: Visitor) throws -> WebReply {
        let id = PhotoID(visitor.form["meal"] ?? "")
        let moment = now()
        let found = try store.writingAndWaiting { store throws(StoreError) in try store.retryAnalysis(id, now: moment) }
        guard found else { throw WebProblem.notFound("There is no failed analysis of that meal.") }
        link.send(.analysisRetryAsked(id))
        logger.info("owner's page: the AI is asked again about \(id)")
        return .redirect("/status?asked=1")
    }
}
