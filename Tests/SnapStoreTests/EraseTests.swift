import Foundation
import SnapFiles
import SnapStore
import SnapTestSupport
import Testing

@Suite("StationStore: the factory reset's erasing of the state folder")
struct EraseTests {
    let folder = TemporaryDirectory("erase")

    private func names(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    @Test("should erase everything but the update records, the mark last, and nothing without a mark")
    func erasesButUpdates() throws {
        let state = folder.path + "/state"
        let store = try StationStore(directory: state)
        try store.createSession(
            WebSession(
                tokenHash: String(repeating: "a", count: 64), csrf: "c", name: "phone", created: Date(),
                lastSeen: Date()))
        for (path, text) in [
            ("keys/ai.key", "sk-secret"), ("tls/key.pem", "PRIVATE"), ("photos/2026/p1.jpg", "jpeg"),
            ("updates/confirmed.json", "{}"), ("supabase-session", "{\"refresh_token\":\"r\"}"),
        ] {
            try AtomicFile.createFolder(URL(fileURLWithPath: state + "/" + path).deletingLastPathComponent().path)
            try AtomicFile.write(Array(text.utf8), to: state + "/" + path)
        }
        #expect(try StationStore.applyErase(in: state) == nil, "no mark, nothing erased")
        #expect(names(state).contains("keys"))

        try StationStore.markForErasing(state)
        let erased = try #require(try StationStore.applyErase(in: state))
        #expect(erased.contains("snapstation.sqlite") && erased.contains("keys") && erased.contains("photos"))
        #expect(names(state) == ["updates"], "only the update records stay: \(names(state))")
        #expect(FileBytes.readIfPresent(state + "/updates/confirmed.json") == Array("{}".utf8))
        #expect(try StationStore.applyErase(in: state) == nil, "done once")
        #expect(try StationStore(directory: state).sessions().isEmpty, "a new store, no paired browser")
    }

    @Test("should go on after a start cut short, and refuse a mark written for another folder")
    func resumesAndRefusesForeignMark() throws {
        let state = folder.path + "/cut"
        try AtomicFile.createFolder(state + "/inbox")
        try StationStore.markForErasing(state)
        // A start cut short left part of the folder and the mark: the next start erases the rest.
        #expect(try StationStore.applyErase(in: state) == ["inbox"])
        #expect(names(state).isEmpty)

        let other = folder.path + "/other"
        try AtomicFile.createFolder(other + "/keep")
        try StationStore.markForErasing(state)
        try FileManager.default.copyItem(
            atPath: state + "/" + StationStore.eraseMark, toPath: other + "/" + StationStore.eraseMark)
        #expect(throws: FileError.self) { try StationStore.applyErase(in: other) }
        #expect(names(other).contains("keep"), "a mark copied from another folder erases nothing")
    }
}
