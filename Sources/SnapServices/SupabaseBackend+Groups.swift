import Foundation
import SnapCore

/// The four functions of docs/supabase/schema.sql (and `group_members`), called over PostgREST's RPC
/// (`POST /rest/v1/rpc/NAME` with the arguments as a JSON object: PostgREST `src/PostgREST/Plan.hs`
/// callReadPlan). Their refusals are PostgREST's error objects with the SQLSTATE the function raised
/// (`PT403` answers 403 and so on: PostgREST `src/PostgREST/Error.hs`); the station shows their `message`
/// and `hint`, which the functions write for a person.
extension SupabaseBackend: GroupDirectory {
    public func create(group: String, member: String) async throws(UploadFailure) -> String {
        try await call("create_group", ["group_name": group, "member_name": member], "make the group", as: String.self)
    }

    public func join(code: String, member: String) async throws(UploadFailure) -> String {
        try await call("join_group", ["invite_code": code, "member_name": member], "join the group", as: String.self)
    }

    public func invite(group: String) async throws(UploadFailure) -> String {
        try await call("group_invite", ["group_name": group], "make an invite code", as: String.self)
    }

    /// `leave_group` answers the object paths of the station's rows it deleted; the station deletes those
    /// objects and their stickers. What it shared without a row was deleted when the row was refused.
    /// Leaving a group the station is no longer in (left from another station of the same user, or the
    /// group gone with its last member) is done already: the function's PT404 (HTTP 404 through
    /// PostgREST's mapSQLtoHTTP) ends it as left, so the page does not keep a group it cannot leave.
    public func leave(group: String) async throws(UploadFailure) {
        let answer = try await call(
            "leave_group", ["group_name": group], "leave the group", as: [String].self, notAMember: [])
        folders.forget(group)
        // Only the station's own objects can be deleted (the policies), but the names still go into a
        // request: plain object paths only.
        let paths = answer.compactMap(Self.objectPath)
        let names = paths.flatMap { path in
            path.hasSuffix(".jpg") ? [path, String(path.dropLast(4)) + "-sticker.png"] : [path]
        }
        guard !names.isEmpty else { return }
        do {
            try await removeObjects(names)
            logger.info("supabase: left \(group) and deleted its \(paths.count) photo(s)")
        } catch {
            // The rows are gone, so nobody reads these through the app; the policies still let the
            // station delete them, which a later leave of the same paths would not find. Logged.
            logger.warning("supabase: left \(group), but could not delete \(names.joined(separator: ", ")): \(error)")
        }
    }

    public func members(of group: String) async throws(UploadFailure) -> [GroupMember] {
        let rows = try await call(
            "group_members", ["group_name": group], "list the members", as: [[String: Any]].self)
        return rows.compactMap { row in
            guard let name = row["member_name"] as? String,
                let joined = (row["joined_at"] as? String).flatMap(Self.date)
            else { return nil }
            return GroupMember(
                name: name, joinedAt: joined, lastShared: (row["last_shared_at"] as? String).flatMap(Self.date),
                isStation: row["is_caller"] as? Bool ?? false)
        }
    }

    /// Calls the function and reads its JSON answer as `Value`; `notAMember`, where given, is the answer
    /// when the function says the caller is not in the group (its PT404).
    private func call<Value>(
        _ name: String, _ arguments: [String: String], _ what: String, as: Value.Type, notAMember: Value? = nil
    ) async throws(UploadFailure) -> Value {
        let body = (try? JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys])).map { [UInt8]($0) }
        let response = try await send(
            HTTPRequest(
                method: "POST", url: "\(projectURL)/rest/v1/rpc/\(name)",
                headers: [("Content-Type", "application/json")], body: body, maxBodyBytes: 1 << 20))
        let json = try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
        if let notAMember, response.status == 404, (json as? [String: Any])?["code"] as? String == "PT404" {
            logger.info("supabase: \(name): not a member (\((json as? [String: Any])?["message"] ?? "")); done already")
            return notAMember
        }
        guard response.status == 200 else { throw Self.refusal(response, json: json as? [String: Any], what) }
        guard let value = json as? Value else {
            throw .rejected(
                "could not \(what): the answer was not what the group's server sends (is it a SnapStation project?)")
        }
        return value
    }

    /// The function's own words (`message` and `hint`) when it refused, as the person reads them; 5xx
    /// waits like a photo. 429 here is the limit on wrong invite codes, which waiting does not lift at once.
    static func refusal(_ response: HTTPResponse, json: [String: Any]?, _ what: String) -> UploadFailure {
        if response.status >= 500 { return .offline }
        guard let message = json?["message"] as? String else {
            return .rejected("could not \(what): the group's server answered HTTP \(response.status)")
        }
        if json?["code"] as? String == "PGRST202" {
            return .rejected(
                "could not \(what): the project lacks SnapStation's functions (run docs/supabase/schema.sql)")
        }
        let hint = (json?["hint"] as? String).map { " \($0)" } ?? ""
        let sentence = message.prefix(1).uppercased() + message.dropFirst()
        return .rejected("\(sentence).\(hint)")
    }
}
