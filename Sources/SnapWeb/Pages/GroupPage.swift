import Foundation
import SnapCore
import SnapStore

extension WebApp {
    /// Today's photo for each group and whether it arrived, the station's own photos with their expiry,
    /// and what the others shared that the station keeps; each can be downloaded.
    func groupPage(_ visitor: Visitor, message: String? = nil, status: Int = 200) throws -> WebReply {
        let groups = try groupsInForce()
        let section = try groupsSection(groups, visitor)
        let done =
            visitor.form["joined"] != nil
            ? "Joined. The group's photos come to the station within a few minutes."
            : visitor.form["left"] != nil ? "Left. The photos this station shared there are deleted." : nil
        guard !groups.isEmpty else {
            return page("Group", status: status, "\(notice(message, problem: true))\(notice(done))\(section)")
        }
        let time = now()
        let shares = try store.sharedPhotos(limit: 50)
        let day = today()
        let retention = TimeInterval(config.storage.retentionHours * 3600)
        let todays = groups.map { group -> HTML in
            guard let job = shares.first(where: { $0.group == group && $0.day == day }) else {
                return "<li><b>\(group)</b>: no photo yet today.</li>"
            }
            return """
                <li><b>\(group)</b>: \(clock(job.takenAt)), <span class="state \(job.state.rawValue)">\(Self.delivery(job))</span></li>
                """
        }
        let own = shares.filter { time.timeIntervalSince($0.takenAt) < retention }.map { job -> HTML in
            let id = job.photoID.rawValue
            let kept = FileManager.default.fileExists(atPath: job.photoPath)
            return """
                <li class="photo-row">\(kept ? HTML("<img src=\"/photo/\(id).thumb.jpg\" alt=\"\" width=\"72\" height=\"72\" loading=\"lazy\">") : "")\
                <span><b>\(job.group)</b> · \(dateAndTime(job.takenAt)) · \(Self.delivery(job))<br>\
                <small>deleted from the station \(remaining(until: job.takenAt.addingTimeInterval(retention)))</small></span>\
                \(kept ? HTML("<a href=\"/photo/\(id).jpg?download=1\">Download</a>") : "")</li>
                """
        }
        let received = try store.receivedPhotos(now: time).reversed().map { photo -> HTML in
            let id = photo.id.rawValue
            return """
                <li class="photo-row"><img src="/received/\(id).jpg" alt="" width="72" height="72" loading="lazy">\
                <span><b>\(photo.member)</b> in \(photo.group) · \(dateAndTime(photo.takenAt))<br>\
                <small>gone \(remaining(until: photo.expiresAt))</small></span>\
                <a href="/received/\(id).jpg?download=1">Download</a></li>
                """
        }
        return page(
            "Group", status: status,
            """
            \(notice(message, problem: true))\(notice(done))\(section)
            <h2>Today</h2><ul class="todays">\(todays)</ul>
            <h2>Sent from this station</h2>
            \(own.isEmpty ? "<p class=\"empty\">Nothing in the last \(config.storage.retentionHours) hours.</p>" as HTML : "")
            <ul class="photos">\(own)</ul>
            <h2>From the others</h2>
            \(received.isEmpty ? "<p class=\"empty\">Nothing the others shared is kept now.</p>" as HTML : "")
            <ul class="photos">\(received)</ul>
            """)
    }

    static func delivery(_ job: UploadJob) -> String {
        switch job.state {
        case .delivered: "delivered"
        case .pending: job.lastError.map { "waiting to send (last try: \($0))" } ?? "waiting to send"
        case .failed: "not sent: \(job.lastError ?? "refused")"
        case .expired: "expired before it could be sent"
        }
    }
}
