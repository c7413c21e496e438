import Foundation
import SnapCore
import SnapServices
import SnapTestSupport
import Testing

/// The group's rows as the station parses them, before anything uses them: an older schema (or a server
/// that lies) may send ids and paths that the current one refuses.
@Suite("SupabaseBackend: a group's rows parsed at the edge")
struct SupabaseRowsTests {
    let folder = "6f1c2d3e-4a5b-4c6d-8e7f-001122334455"

    private func row(_ id: Any, path: Any? = nil, size: Any? = 1234, member: String = "Mallory") -> [String: Any] {
        var row: [String: Any] = [
            "photo_id": id, "group_name": "../../Elsewhere", "member_name": member,
            "object_path": path ?? "\(folder)/2026-03-10/ok.jpg", "taken_at": "2026-03-10T12:00:00+00:00",
            "expires_at": "2026-03-12T12:00:00+00:00",
        ]
        if let size { row["byte_size"] = size }
        return row
    }

    private func parse(_ rows: [[String: Any]], log: CapturedLog) throws -> [SharedItem] {
        let body = [UInt8](try JSONSerialization.data(withJSONObject: rows))
        return try SupabaseBackend.sharedItems(from: body, group: "Friends", logger: log.logger)
    }

    @Test("should skip a row whose id is a path, too long or not a name, and log it with the member's name")
    func hostileIDs() throws {
        let log = CapturedLog()
        let hostile = [
            "../../x", "/etc/passwd", "a/../../x", "x\u{0}y", String(repeating: "a", count: 300), "", "a.jpg",
        ]
        let items = try parse(hostile.map { row($0) } + [row(42), row("ok")], log: log)
        #expect(items.map(\.photoID) == [PhotoID("ok")], "only the ordinary row")
        #expect(items.first?.group == "Friends", "the group asked for, not the row's")
        #expect(log.all.filter { $0.contains("skipped a photo of Mallory in Friends") }.count == hostile.count + 1)
    }

    @Test("should skip a row whose object path leaves its folder, or whose size is not a count")
    func hostilePaths() throws {
        let log = CapturedLog()
        let paths = [
            "../../../rest/v1/rpc/leave_group", "\(folder)/../x.jpg", "/abs.jpg", "\(folder)//x.jpg",
            "\(folder)/.hidden.jpg", "x.jpg", "\(folder)/2026-03-10/a b.jpg",
        ]
        let sizes: [Any] = [-1, 0, 1.5, "12"]
        let rows = paths.map { row("ok", path: $0) } + sizes.map { row("ok", size: $0) } + [row("fine", size: nil)]
        let items = try parse(rows, log: log)
        #expect(items.map(\.photoID) == [PhotoID("fine")])
        #expect(items.first?.byteSize == nil, "a size left out is no size")
        #expect(log.all.filter { $0.contains("skipped") }.count == paths.count + sizes.count)
    }

    @Test("should clean a member's name of line breaks and direction marks before it is shown or logged")
    func memberName() throws {
        let log = CapturedLog()
        let items = try parse([row("ok", member: "Mal\nlory\u{202E}")], log: log)
        #expect(items.first?.member == "Mallory")
    }
}
