import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapText
import Synchronization

/// What the owner does in the Group section: make a group (and show its invite code, as text and as a QR
/// code), join one with a code, renew a code, leave a group. Each asks the group's server in the page's
/// jobs (`calling`) and makes its page from the answer.
extension GroupRoom {
    func createGroup(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let directory = try managingDirectory()
        if let full = try roomForAnotherGroup(visitor) { return full }
        let form = visitor.form
        var reading = FormReading()
        let group = reading.read("") { () throws(FormProblem) in
            let group = try form.text("group", label: words("page.group.field.name"), maxLength: 100)
            guard StationConfig.isGroupName(group) else {
                throw FormProblem(
                    words("page.group.problem.name", ["name": group, "allowed": words("page.group.allowed")]),
                    field: "group")
            }
            return group
        }
        let member = reading.read("") { () throws(FormProblem) in
            try form.text("member", label: words("page.group.field.member"), maxLength: 60)
        }
        do throws(FormProblem) {
            try reading.check()
        } catch {
            return try groupPage(visitor, status: 400, forms: GroupForms(make: FormEcho(form, error, prefix: "make-")))
        }
        let kept = GroupForms(make: FormEcho(keeping: form, prefix: "make-"))
        return calling("making the group \(group)") { () async throws(UploadFailure) in
            try await directory.create(group: group, member: member)
        } then: { outcome in
            let code: String
            switch outcome {
            case .success(let made): code = made
            case .failure(let error):
                return try self.refused(visitor, error, forms: kept) { words("page.group.not_made", ["reason": $0]) }
            }
            return self.changing(.joined(group)) { _ in
                self.logger.info("owner's page: made group \(group)")
                return .reply(self.invitePage(group: group, code: code, made: true))
            }
        }
    }

    func joinGroup(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let directory = try managingDirectory()
        if let full = try roomForAnotherGroup(visitor) { return full }
        let form = visitor.form
        var reading = FormReading()
        let code = reading.read("") { () throws(FormProblem) in
            try form.text("code", label: words("page.group.field.code"), maxLength: 40)
        }
        let member = reading.read("") { () throws(FormProblem) in
            try form.text("member", label: words("page.group.field.member"), maxLength: 60)
        }
        do throws(FormProblem) {
            try reading.check()
        } catch {
            return try groupPage(visitor, status: 400, forms: GroupForms(join: FormEcho(form, error, prefix: "join-")))
        }
        let kept = GroupForms(join: FormEcho(keeping: form, prefix: "join-"))
        return calling("joining a group") { () async throws(UploadFailure) in
            try await directory.join(code: code, member: member)
        } then: { outcome in
            let group: String
            switch outcome {
            case .success(let joined): group = joined
            case .failure(let error):
                return try self.refused(visitor, error, forms: kept) {
                    words("page.group.not_joined", ["reason": $0])
                }
            }
            guard StationConfig.isGroupName(group) else {
                throw WebProblem(502, words("page.group.not_joined.title"), words("page.group.problem.bad_name"))
            }
            return self.changing(.joined(group)) { _ in
                self.logger.info("owner's page: joined group \(group)")
                return .reply(.redirect("/group?joined=1"))
            }
        }
    }

    func inviteToGroup(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let directory = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        return calling("a new invite code for \(group)") { () async throws(UploadFailure) in
            try await directory.invite(group: group)
        } then: { outcome in
            switch outcome {
            case .success(let code): return .reply(self.invitePage(group: group, code: code, made: false))
            case .failure(let error):
                return try self.refused(visitor, error) { words("page.group.no_invite", ["reason": $0]) }
            }
        }
    }

    func leavePage(_ visitor: Visitor) throws -> WebReply {
        let words = self.words
        _ = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        let named = ["group": group]
        return page(
            words("page.group.leave.title", named),
            """
            <p>\(words("page.group.leave.text", named))</p>
            <p>\(words("page.group.leave.back", named))</p>
            <form method="post" action="/group/leave">\(csrfField(visitor))<input type="hidden" name="group" value="\(group)">
            <button type="submit" class="danger">\(words("page.group.leave", named))</button> \
            <a href="/group">\(words("page.group.stay"))</a></form>
            """)
    }

    func leaveGroup(_ visitor: Visitor) throws -> PageStep {
        let words = self.words
        let directory = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        return calling("leaving \(group)") { () async throws(UploadFailure) in
            try await directory.leave(group: group)
        } then: { outcome in
            if case .failure(let error) = outcome {
                return try self.refused(visitor, error) { words("page.group.not_left", ["reason": $0]) }
            }
            return self.changing(.left(group)) { _ in
                let store = self.store
                let forgotten = try store.writingAndWaiting { store throws(StoreError) in try store.forgetGroup(group) }
                self.link.send(.inboxChanged(try store.receivedPhotos(now: self.now())))
                self.logger.info(
                    "owner's page: left group \(group); \(forgotten.received) of its photos forgotten, \(forgotten.unsent) not sent"
                )
                return .reply(.redirect("/group?left=1"))
            }
        }
    }

    /// The code as text and as a QR code (the other owner's phone reads it and copies the text).
    private func invitePage(group: String, code: String, made: Bool) -> WebReply {
        let words = self.words
        let named = ["group": group]
        return page(
            made ? words("page.group.made.title", named) : words("page.group.invite.title", named),
            """
            <p>\(made ? words("page.group.invite.text") : words("page.group.invite.text_renewed"))</p>
            <p class="invite-code">\(code)</p>
            \(HTML.qrCode(code, label: words("page.group.invite.qr")))
            <p><a href="/group">\(words("page.group.back"))</a></p>
            """)
    }

    /// The directory, when this station makes and joins groups here.
    private func managingDirectory() throws -> any GroupDirectory {
        guard let directory, rule.offers(.groups) else {
            let words = self.words
            throw WebProblem(
                403, words("page.problem.not_found.title"),
                directory == nil ? words("page.group.problem.config_names") : words("page.group.locked"))
        }
        return directory
    }

    /// The page saying so when the station is in as many groups as it can be (a form from an old tab),
    /// before anything is asked of the server; nil when there is room.
    private func roomForAnotherGroup(_ visitor: Visitor) throws -> PageStep? {
        guard groupsInForce().count >= StationConfig.maxGroups else { return nil }
        let words = self.words
        return try groupPage(
            visitor, message: words("page.group.problem.full", count: StationConfig.maxGroups), status: 400)
    }

    /// `name` when it is one of the station's groups.
    private func memberGroup(_ name: String?) throws -> String {
        guard let name, groupsInForce().contains(name) else {
            let words = self.words
            throw WebProblem.notFound(words("page.group.problem.not_member"), words)
        }
        return name
    }

    /// The Group page again, saying in `said`'s words why the server refused (or did not answer), with the
    /// status that failure has.
    /// The page after the group's server refused or failed: why, with `forms` as they were sent.
    private func refused(
        _ visitor: Visitor, _ failure: UploadFailure, forms: GroupForms = GroupForms(), said: (String) -> String
    ) throws -> PageStep {
        try groupPage(visitor, message: said(words.groupFailure(failure)), status: status(of: failure), forms: forms)
    }

    /// The answer's status for a failure: the server's refusal is the person's to mend (400); the rest
    /// is the server's or the network's (502, 503).
    private func status(of failure: UploadFailure) -> Int {
        switch failure {
        case .rejected, .alreadySentToday: 400
        case .offline, .destinationFull: 503
        case .untrusted, .signInFailed: 502
        }
    }

    /// How long the page waits for the group's server: a server that accepts and then stalls must not
    /// keep the owner waiting; past it the call is cancelled and the page says the server is offline.
    static let directoryWait: Duration = .seconds(15)

    /// Asks the group's server in the page's jobs, then `finish`es with its answer on the page's thread:
    /// `.offline` when it took longer than `directoryWait` or the station is stopping.
    private func calling<Value: Sendable>(
        _ name: String, _ work: @escaping @Sendable () async throws(UploadFailure) -> Value,
        then finish: @escaping @Sendable (Result<Value, UploadFailure>) throws -> PageStep
    ) -> PageStep {
        .after { [jobs] in
            let outcome =
                await jobs.call(name, within: Self.directoryWait) { () async -> Result<Value, UploadFailure> in
                    do throws(UploadFailure) { return .success(try await work()) } catch { return .failure(error) }
                } ?? .failure(.offline)
            return { try finish(outcome) }
        }
    }
}
