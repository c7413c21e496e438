import Foundation
import SnapConfig
import SnapCore
import SnapImaging
import SnapStore
import Synchronization

/// The Group page's own section: the groups the station is in with their members, and where the owner
/// makes a group, shows its invite code (text and QR code), joins one with a code, or leaves one.
///
/// The groups are an owner's setting (`RuntimeSettings.groups`, over the config's `group.name` unless
/// `web.locked` names it): making or joining a group here adds it to the station's groups, leaving takes
/// it out, and the station follows at once (`.settingsChanged`). The calls go to the group's server
/// (`GroupDirectory`, the Supabase backend) and the page waits for the answer on its own thread; with the
/// folder backend the config's names are the groups, and the section says so.
extension WebApp {
    /// The groups the station shares with now.
    func groupsInForce() throws(StoreError) -> [String] {
        rule.inForce(try store.runtimeSettings()).groups
    }

    /// Whether the owner may make, join and leave groups here.
    private var managesGroups: Bool { directory != nil && rule.offers(.groups) }

    func groupsSection(_ groups: [String], _ visitor: Visitor) throws -> HTML {
        guard let directory else {
            return groups.isEmpty
                ? "<p class=\"empty\">No group: this station shares through a folder (group.backend = \"folder\"); name its groups in the config file (group.name).</p>"
                : "<p>This station shares through a folder (group.backend = \"folder\"): its groups are the config file's group.name, \(groups.joined(separator: ", ")).</p>"
        }
        // Every group's members at once, so a slow server costs the page one wait, not one per group.
        let lists = waiting { () async -> [String: Result<[GroupMember], UploadFailure>] in
            await withTaskGroup(of: (String, Result<[GroupMember], UploadFailure>).self) { tasks in
                for group in groups {
                    tasks.addTask {
                        do throws(UploadFailure) {
                            return (group, .success(try await directory.members(of: group)))
                        } catch {
                            return (group, .failure(error))
                        }
                    }
                }
                var lists: [String: Result<[GroupMember], UploadFailure>] = [:]
                for await (group, list) in tasks { lists[group] = list }
                return lists
            }
        }
        let cards = groups.map { group -> HTML in
            let members: HTML
            do throws(UploadFailure) {
                let list = try (lists?[group] ?? .failure(.offline)).get()
                members = HTML.joined(
                    list.map { member in
                        let shared = member.lastShared.map { "last shared \(dateAndTime($0))" } ?? "has not shared yet"
                        return "<li><b>\(member.name)</b>\(member.isStation ? " (this station)" : "") · \(shared)</li>"
                    })
            } catch {
                members = "<li class=\"problem\">The members could not be listed: \(Self.words(error))</li>"
            }
            let actions: HTML =
                managesGroups
                ? """
                <div class="actions"><form method="post" action="/group/invite" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="group" value="\(group)"><button type="submit" class="secondary">Invite a station</button></form>\
                <a href="/group/leave?group=\(group.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")">Leave \(group)</a></div>
                """ : ""
            return """
                <section class="group-card"><h3>\(group)</h3><ul class="members">\(members)</ul>\(actions)</section>
                """
        }
        let locked: HTML =
            rule.locked.contains(.groups)
            ? "<p><small class=\"locked\">The groups are locked by the config file (group.name).</small></p>" : ""
        let member = config.station.name
        let full = groups.count >= StationConfig.maxGroups
        let forms: HTML =
            managesGroups && !full
            ? """
            <form method="post" action="/group/create">\(csrfField(visitor))<fieldset><legend>Make a group</legend>
            <label class="wide">Its name <input name="group" maxlength="100" required placeholder="e.g. Climbing club"></label>
            <small class="hint">Letters, digits and spaces, no accents: the other stations see it.</small>
            <label class="wide">This station in it <input name="member" maxlength="60" required value="\(member)"></label>
            <button type="submit">Make the group</button></fieldset></form>
            <form method="post" action="/group/join">\(csrfField(visitor))<fieldset><legend>Join a group</legend>
            <label class="wide">Invite code <input name="code" maxlength="40" required autocomplete="off" placeholder="K7QM-3HXA-9TPZ"></label>
            <small class="hint">A member of the group makes one on their station's page, under Group.</small>
            <label class="wide">This station in it <input name="member" maxlength="60" required value="\(member)"></label>
            <button type="submit">Join</button></fieldset></form>
            """
            : managesGroups
                ? "<p><small>The station is in \(StationConfig.maxGroups) groups, the most it can be in: leave one to make or join another.</small></p>"
                : ""
        return """
            <h2>Your groups</h2>\(locked)
            \(groups.isEmpty ? "<p class=\"empty\">The station is in no group yet.</p>" as HTML : "")\(cards)\(forms)
            """
    }

    func createGroup(_ visitor: Visitor) throws -> WebReply {
        let directory = try managingDirectory()
        if let full = try roomForAnotherGroup(visitor) { return full }
        let group: String
        let member: String
        do throws(FormProblem) {
            group = try visitor.form.text("group", label: "The group's name", maxLength: 100)
            member = try visitor.form.text("member", label: "This station's name", maxLength: 60)
            guard StationConfig.isGroupName(group) else {
                throw FormProblem("\"\(group)\" cannot be a group's name: \(StationConfig.groupNameCharacters)")
            }
        } catch {
            return try groupPage(visitor, message: "Not made: \(error.message).", status: 400)
        }
        let code: String
        do throws(UploadFailure) {
            code = try waiting { () async throws(UploadFailure) in
                try await directory.create(group: group, member: member)
            }
        } catch {
            return try groupPage(visitor, message: "Not made: \(Self.words(error))", status: status(of: error))
        }
        try keepGroups { $0 + [group] }
        logger.info("owner's page: made group \(group)")
        return invitePage(group: group, code: code, made: true)
    }

    func joinGroup(_ visitor: Visitor) throws -> WebReply {
        let directory = try managingDirectory()
        if let full = try roomForAnotherGroup(visitor) { return full }
        let code: String
        let member: String
        do throws(FormProblem) {
            code = try visitor.form.text("code", label: "The invite code", maxLength: 40)
            member = try visitor.form.text("member", label: "This station's name", maxLength: 60)
        } catch {
            return try groupPage(visitor, message: "Not joined: \(error.message).", status: 400)
        }
        let group: String
        do throws(UploadFailure) {
            group = try waiting { () async throws(UploadFailure) in try await directory.join(code: code, member: member)
            }
        } catch {
            return try groupPage(visitor, message: "Not joined: \(Self.words(error))", status: status(of: error))
        }
        guard StationConfig.isGroupName(group) else {
            throw WebProblem(502, "Not joined", "The group's server answered a name no group can have.")
        }
        try keepGroups { $0.contains(group) ? $0 : $0 + [group] }
        logger.info("owner's page: joined group \(group)")
        return .redirect("/group?joined=1")
    }

    func inviteToGroup(_ visitor: Visitor) throws -> WebReply {
        let directory = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        do throws(UploadFailure) {
            let code = try waiting { () async throws(UploadFailure) in try await directory.invite(group: group) }
            return invitePage(group: group, code: code, made: false)
        } catch {
            return try groupPage(visitor, message: "No invite code: \(Self.words(error))", status: status(of: error))
        }
    }

    func leavePage(_ visitor: Visitor) throws -> WebReply {
        _ = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        return page(
            "Leave \(group)?",
            """
            <p>The station stops sharing with \(group) and no longer sees its photos. The photos it shared there \
            are deleted from the group's server.</p>
            <p>To come back, a member of \(group) makes a new invite code.</p>
            <form method="post" action="/group/leave">\(csrfField(visitor))<input type="hidden" name="group" value="\(group)">
            <button type="submit" class="danger">Leave \(group)</button> <a href="/group">Stay</a></form>
            """)
    }

    func leaveGroup(_ visitor: Visitor) throws -> WebReply {
        let directory = try managingDirectory()
        let group = try memberGroup(visitor.form["group"])
        do throws(UploadFailure) {
            try waiting { () async throws(UploadFailure) in try await directory.leave(group: group) }
        } catch {
            return try groupPage(visitor, message: "Not left: \(Self.words(error))", status: status(of: error))
        }
        try keepGroups { $0.filter { $0 != group } }
        let forgotten = try store.writingAndWaiting { store throws(StoreError) in try store.forgetGroup(group) }
        link.send(.inboxChanged(try store.receivedPhotos(now: now())))
        logger.info(
            "owner's page: left group \(group); \(forgotten.received) of its photos forgotten, \(forgotten.unsent) not sent"
        )
        return .redirect("/group?left=1")
    }

    /// The code as text and as a QR code (the other owner's phone reads it and copies the text).
    private func invitePage(group: String, code: String, made: Bool) -> WebReply {
        page(
            made ? "\(group) is made" : "Invite a station to \(group)",
            """
            <p>Give this code to the owner of the other station. On their station's page, under Group, they type it \
            in “Join a group”. It works for 7 days\(made ? "" : ", and the code before it no longer works").</p>
            <p class="invite-code">\(code)</p>
            \(Self.qrSVG(code))
            <p><a href="/group">Back to the group</a></p>
            """)
    }

    /// An invite code as an SVG QR code: one path of dark modules, four modules of quiet zone.
    static func qrSVG(_ text: String) -> HTML {
        guard let code = QRCode(text: text) else { return "" }
        var path = ""
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        let side = code.size + 8
        return HTML(
            trusted: """
                <svg class="qr" role="img" aria-label="QR code of the invite code" viewBox="0 0 \(side) \(side)" width="200" height="200">\
                <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
                """)
    }

    /// The directory, when this station makes and joins groups here.
    private func managingDirectory() throws -> any GroupDirectory {
        guard let directory, rule.offers(.groups) else {
            throw WebProblem(
                403, "Not here",
                directory == nil
                    ? "This station's groups are the names in its config file (group.name)."
                    : "The groups are locked by the config file (group.name).")
        }
        return directory
    }

    /// The page saying so when the station is in as many groups as it can be (a form from an old tab),
    /// before anything is asked of the server; nil when there is room.
    private func roomForAnotherGroup(_ visitor: Visitor) throws -> WebReply? {
        guard try groupsInForce().count >= StationConfig.maxGroups else { return nil }
        return try groupPage(
            visitor,
            message: "The station is in \(StationConfig.maxGroups) groups, the most it can be in: leave one first.",
            status: 400)
    }

    /// `name` when it is one of the station's groups.
    private func memberGroup(_ name: String?) throws -> String {
        guard let name, try groupsInForce().contains(name) else {
            throw WebProblem.notFound("The station is not in a group of that name.")
        }
        return name
    }

    /// Stores the groups `change` makes of those in force, and tells the station (without its mode: the
    /// mode button's choice stands).
    private func keepGroups(_ change: ([String]) -> [String]) throws {
        var owner = try store.runtimeSettings()
        owner.groups = Array(change(rule.inForce(owner).groups).prefix(StationConfig.maxGroups))
        let settings = rule.kept(owner)
        try store.writingAndWaiting { store throws(StoreError) in try store.saveRuntimeSettings(settings) }
        var told = settings
        told.mode = nil
        link.send(.settingsChanged(told))
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

    /// A failure in the person's words.
    static func words(_ failure: UploadFailure) -> String {
        switch failure {
        case .rejected(let reason): reason
        case .offline: "the group's server cannot be reached. Check the station's network and try again."
        case .signInFailed(let reason): "the station could not sign in to the group's server (\(reason))."
        case .untrusted(let reason):
            "the group's server could not be verified (\(reason)). Is the station's clock right?"
        case .alreadySentToday, .destinationFull: "the group's server refused."
        }
    }

    /// How long the page waits for the group's server: the page's thread serves one request at a time,
    /// and a server that accepts and then stalls must not hold every other page.
    static let directoryWait: TimeInterval = 15

    /// Runs the directory's call and waits for it on the page's thread (which is its own, not one of the
    /// station's; never call this from a task). Past `directoryWait` it answers `.offline`, and the call's
    /// late answer is dropped.
    private func waiting<Value: Sendable>(_ work: @escaping @Sendable () async throws(UploadFailure) -> Value)
        throws(UploadFailure) -> Value
    {
        let outcome = waiting { () async -> Result<Value, UploadFailure> in
            do throws(UploadFailure) { return .success(try await work()) } catch { return .failure(error) }
        }
        return try (outcome ?? .failure(.offline)).get()
    }

    /// `work`'s value, or nil when it took longer than `directoryWait`.
    private func waiting<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Value?>(nil)
        let task = Task {
            let value = await work()
            outcome.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.directoryWait) == .success else {
            task.cancel()
            return nil
        }
        return outcome.withLock { $0 }
    }
}
