import Foundation
import SnapCore
import SnapStore
import SnapText

extension GroupRoom {
    /// Today's photo for each group and whether it arrived, the station's own photos with their expiry,
    /// and what the others shared that the station keeps; each can be downloaded.
    func groupPage(
        _ visitor: Visitor, message: String? = nil, status: Int = 200, forms: GroupForms = GroupForms()
    ) throws -> PageStep {
        let groups = groupsInForce()
        let said = Said(message: message, status: status, forms: forms)
        guard let directory else {
            return .reply(try groupPage(visitor, groups: groups, members: [:], said))
        }
        return .after { [jobs] in
            let members =
                await jobs.call("asking who is in each group", within: Self.directoryWait) {
                    await Self.members(of: groups, in: directory)
                } ?? [:]
            return {
                .reply(try self.groupPage(visitor, groups: groups, members: members, said))
            }
        }
    }

    /// What the page says after an action: why it failed, its status, and its forms as they were sent.
    private struct Said {
        var message: String?
        var status: Int
        var forms: GroupForms
    }

    /// The page, once the group's server said who is in each group (or did not: `members` has no list).
    private func groupPage(_ visitor: Visitor, groups: [String], members: Members, _ said: Said) throws -> WebReply {
        let (words, message, status) = (self.words, said.message, said.status)
        let section = try groupsSection(groups, members, visitor, words, forms: said.forms)
        let done =
            visitor.form["joined"] != nil
            ? words("page.group.joined")
            : visitor.form["left"] != nil ? words("page.group.left") : nil
        guard !groups.isEmpty else {
            return page(
                words("page.group.title"), status: status, "\(notice(message, problem: true))\(notice(done))\(section)")
        }
        let time = now()
        let shares = try store.sharedPhotos(limit: 50)
        let day = try today()
        let retention = TimeInterval(retentionHours * 3600)
        let todays = groups.map { group -> HTML in
            guard let job = shares.first(where: { $0.group == group && $0.day == day }) else {
                return "<li>\(HTML(filling: words("page.group.no_photo_today"), ["group": "<b>\(group)</b>"]))</li>"
            }
            let state: HTML = "<span class=\"state \(job.state.rawValue)\">\(Self.delivery(job, words))</span>"
            let line = HTML(
                filling: words("page.group.today_line"),
                ["group": "<b>\(group)</b>", "time": "\(clock(job.takenAt))", "state": state])
            return "<li>\(line)</li>"
        }
        let download = words("page.group.download")
        let nothingSent = words("page.group.sent_none", count: retentionHours)
        let own = shares.filter { time.timeIntervalSince($0.takenAt) < retention }.map { job -> HTML in
            let id = job.photoID.rawValue
            let kept = FileManager.default.fileExists(atPath: job.photoPath)
            let deleted = words(
                "page.group.deleted_when", ["when": remaining(until: job.takenAt.addingTimeInterval(retention), words)])
            return """
                <li class="photo-row">\(kept ? HTML("<img src=\"/photo/\(id).thumb.jpg\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">") : "")\
                <span><b>\(job.group)</b> · \(dateAndTime(job.takenAt, words)) · \(Self.delivery(job, words))<br>\
                <small>\(deleted)</small></span>\
                \(kept ? HTML("<a href=\"/photo/\(id).jpg?download=1\">\(download)</a>") : "")</li>
                """
        }
        let received = try store.receivedPhotos(now: time).reversed().map { photo -> HTML in
            let id = photo.id.rawValue
            let from = HTML(
                filling: words("page.group.received_from"),
                ["member": "<b>\(photo.member)</b>", "group": "\(photo.group)"])
            let gone = words("page.group.gone_when", ["when": remaining(until: photo.expiresAt, words)])
            return """
                <li class="photo-row"><img src="/received/\(id).jpg" alt="" width="72" height="72" loading="lazy">\
                <span>\(from) · \(dateAndTime(photo.takenAt, words))<br>\
                <small>\(gone)</small></span>\
                <a href="/received/\(id).jpg?download=1">\(download)</a></li>
                """
        }
        return page(
            words("page.group.title"), status: status,
            """
            \(notice(message, problem: true))\(notice(done))\(section)
            <h2>\(words("page.group.today"))</h2><ul class="todays">\(todays)</ul>
            <h2>\(words("page.group.sent"))</h2>
            \(own.isEmpty ? "<p class=\"empty\">\(nothingSent)</p>" as HTML : "")
            <ul class="photos">\(own)</ul>
            <h2>\(words("page.group.others"))</h2>
            \(received.isEmpty ? "<p class=\"empty\">\(words("page.group.others_none"))</p>" as HTML : "")
            <ul class="photos">\(received)</ul>
            """)
    }

    static func delivery(_ job: UploadJob, _ words: Words) -> String {
        switch job.state {
        case .delivered: words("page.group.delivery.delivered")
        case .pending:
            job.lastError.map { words("page.group.delivery.waiting_since", ["error": $0]) }
                ?? words("page.group.delivery.waiting")
        case .failed:
            words("page.group.delivery.failed", ["error": job.lastError ?? words("page.group.delivery.refused")])
        case .expired: words("page.group.delivery.expired")
        }
    }
}
