import Foundation
import SnapConfig
import SnapCore
import SnapFiles
import SnapImaging
import SnapStore
import SnapText
import Synchronization

/// The Group page's own section: the groups the station is in with their members, and where the owner
/// makes a group, shows its invite code (text and QR code), joins one with a code, or leaves one.
///
/// The groups are an owner's setting (`RuntimeSettings.groups`, over the config's `group.name` unless
/// `web.locked` names it): making or joining a group here adds it to the station's groups, leaving takes
/// it out, and the station follows at once (`.settingsChanged`). The calls go to the group's server
/// (`GroupDirectory`, the Supabase backend) in the page's jobs (`PageJobs.call`), awaited by the request's
/// task, and the page is made from the answer on the page's thread (`PageStep.after`); with the folder
/// backend the config's names are the groups, and the section says so.
extension GroupRoom {
    /// The groups the station shares with now.
    func groupsInForce() -> [String] { inForce.groups }

    /// Whether `visitor` may make, join and leave groups here: the owner's, where the settings offer it.
    private func managesGroups(_ visitor: Visitor) -> Bool {
        directory != nil && rule.offers(.groups) && visitor.isOwner
    }

    /// Every group's members, asked of the server at once, so a slow server costs the page one wait, not
    /// one per group.
    static func members(of groups: [String], in directory: any GroupDirectory) async -> Members {
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
            var lists: Members = [:]
            for await (group, list) in tasks { lists[group] = list }
            return lists
        }
    }

    typealias Members = [String: Result<[GroupMember], UploadFailure>]

    /// The section's two forms, each drawn again as it was sent when it failed (its ids after "make-" and
    /// "join-", as both have a member's name).
    struct GroupForms {
        var make = FormEcho(prefix: "make-")
        var join = FormEcho(prefix: "join-")
    }

    func groupsSection(
        _ groups: [String], _ lists: Members, _ visitor: Visitor, _ words: Words, forms: GroupForms
    ) throws -> HTML {
        guard directory != nil else {
            return groups.isEmpty
                ? "<p class=\"empty\">\(words("page.group.folder_none"))</p>"
                : "<p>\(words("page.group.folder", ["groups": groups.joined(separator: ", ")]))</p>"
        }
        let manages = managesGroups(visitor)
        let cards = groups.map { group -> HTML in
            let members: HTML
            do throws(UploadFailure) {
                let list = try (lists[group] ?? .failure(.offline)).get()
                members = HTML.joined(
                    list.map { member in
                        let shared =
                            member.lastShared.map { words("page.group.last_shared", ["time": dateAndTime($0, words)]) }
                            ?? words("page.group.not_shared")
                        let line =
                            member.isStation ? words("page.group.member_station") : words("page.group.member")
                        let filled = HTML(filling: line, ["member": "<b>\(member.name)</b>", "shared": "\(shared)"])
                        return "<li>\(filled)</li>"
                    })
            } catch {
                let problem = words("page.group.members_failed", ["reason": words.groupFailure(error)])
                members = "<li class=\"problem\">\(problem)</li>"
            }
            let actions: HTML =
                manages
                ? """
                <div class="actions"><form method="post" action="/group/invite" class="inline">\(csrfField(visitor))\
                <input type="hidden" name="group" value="\(group)"><button type="submit" class="secondary">\(words("page.group.invite"))</button></form>\
                <a href="/group/leave?group=\(group.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")">\(words("page.group.leave", ["group": group]))</a></div>
                """ : ""
            return """
                <section class="group-card"><h3>\(group)</h3><ul class="members">\(members)</ul>\(actions)</section>
                """
        }
        let locked: HTML =
            rule.locked.contains(.groups)
            ? "<p><small class=\"locked\">\(words("page.group.locked"))</small></p>" : ""
        let member = frame.stationName
        let full = groups.count >= StationConfig.maxGroups
        let (make, join) = (forms.make, forms.join)
        let drawn: HTML =
            manages && !full
            ? """
            <form method="post" action="/group/create">\(csrfField(visitor))\(make.summary(words, title: words("page.group.not_made.title")))\
            <fieldset><legend>\(words("page.group.make"))</legend>
            <label class="wide">\(words("page.group.its_name")) <input name="group"\(make.attributes("group")) maxlength="100" required placeholder="\(words("page.group.name_example"))" value="\(make.value("group", ""))"></label>\(make.message("group"))
            <small class="hint">\(words("page.group.name_hint"))</small>
            <label class="wide">\(words("page.group.member_name")) <input name="member"\(make.attributes("member")) maxlength="60" required value="\(make.value("member", member))"></label>\(make.message("member"))
            <button type="submit">\(words("page.group.make_button"))</button></fieldset></form>
            <form method="post" action="/group/join">\(csrfField(visitor))\(join.summary(words, title: words("page.group.not_joined.title")))\
            <fieldset><legend>\(words("page.group.join"))</legend>
            <label class="wide">\(words("page.group.invite_code")) <input name="code"\(join.attributes("code")) maxlength="40" required autocomplete="off" placeholder="K7QM-3HXA-9TPZ" value="\(join.value("code", ""))"></label>\(join.message("code"))
            <small class="hint">\(words("page.group.code_hint"))</small>
            <label class="wide">\(words("page.group.member_name")) <input name="member"\(join.attributes("member")) maxlength="60" required value="\(join.value("member", member))"></label>\(join.message("member"))
            <button type="submit">\(words("page.group.join_button"))</button></fieldset></form>
            """
            : manages
                ? "<p><small>\(words("page.group.full", count: StationConfig.maxGroups))</small></p>"
                : ""
        return """
            <h2>\(words("page.group.yours"))</h2>\(locked)
            \(groups.isEmpty ? "<p class=\"empty\">\(words("page.group.none"))</p>" as HTML : "")\(cards)\(drawn)
            """
    }
}
