import Foundation
import Glibc
import SnapFiles
import SnapTestSupport
import Testing

@Suite("ConfinedFolder and FileName: files the station names, kept inside their folder")
struct ConfinedFolderTests {
    let folder = TemporaryDirectory("confined")
    var inbox: ConfinedFolder { ConfinedFolder(folder.path + "/inbox") }

    private func name(_ text: String) throws -> FileName { try #require(FileName(text)) }

    @Test("should refuse every name that is not one plain component")
    func names() {
        for bad in [
            "", ".", "..", "../x", "a/b", "/etc", ".hidden", "a\u{0}b", "a b", "é", String(repeating: "a", count: 101),
        ] {
            #expect(FileName(bad) == nil, "\(bad.debugDescription) is no file name")
        }
        for good in ["a", "ID.jpg", "20260310-090000-1a2b.jpg.part", "Friends", "x-_.y"] {
            #expect(FileName(good)?.rawValue == good)
        }
    }

    @Test("should keep a plain group name as its folder and give any other a folder of its own")
    func groupFolders() {
        #expect(FileName.folder(for: "Friends").rawValue == "Friends")
        let spaced = FileName.folder(for: "Family Smith").rawValue
        let underscored = FileName.folder(for: "Family_Smith").rawValue
        #expect(spaced.hasPrefix("Family_Smith-") && spaced.count == "Family_Smith-".count + 8)
        #expect(underscored == "Family_Smith", "a safe name stays as it is")
        #expect(spaced != underscored, "two names, two folders")
        for hostile in [
            "..", ".", "../../etc", "/", "a/../../b", "", "\u{202E}gpj.exe", String(repeating: "é", count: 80),
        ] {
            let made = FileName.folder(for: hostile).rawValue
            #expect(
                FileName(made) != nil && !made.hasPrefix(".") && !made.contains("/"),
                "\(hostile.debugDescription) → \(made)")
        }
        #expect(FileName.folder(for: "..") != FileName.folder(for: "."), "even dots keep folders apart")
        #expect(FileName.folder(for: "Family Smith") == FileName.folder(for: "Family Smith"), "stable")
    }

    @Test("should give the groups \".\", \"..\" and \"...\" one plain folder name each, and keep their files in it")
    func dotGroupFolders() throws {
        var made: [String] = []
        for group in [".", "..", "..."] {
            let folderName = FileName.folder(for: group)
            #expect(
                ![".", ".."].contains(folderName.rawValue) && !folderName.rawValue.hasPrefix(".")
                    && !folderName.rawValue.contains("/"),
                "\(group) → \(folderName)")
            try inbox.write([1], to: try name("a.jpg"), in: [folderName])
            made.append(folderName.rawValue)
        }
        #expect(Set(made).count == 3, "three names, three folders: \(made)")
        let inboxFolders = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/inbox")
        #expect(inboxFolders.sorted() == made.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["inbox"], "nothing beside it")
        for made in made {
            #expect(FileManager.default.fileExists(atPath: "\(folder.path)/inbox/\(made)/a.jpg"))
        }
    }

    @Test("should write, append and remove inside its folder, making the folders on the way")
    func writesInside() throws {
        let group = [try name("Friends")]
        try inbox.write([1, 2, 3], to: try name("a.jpg"), in: group)
        #expect(FileManager.default.contents(atPath: folder.path + "/inbox/Friends/a.jpg") == Data([1, 2, 3]))
        #expect(try inbox.append([4], to: try name("b.part"), in: group, limit: 10) == [4])
        #expect(try inbox.append([5, 6], to: try name("b.part"), in: group, limit: 10) == [4, 5, 6])
        #expect(inbox.size(of: try name("b.part"), in: group) == 3)
        #expect(throws: FileError.self) {
            try inbox.append([7, 8, 9, 10, 11, 12, 13, 14], to: try name("b.part"), in: group, limit: 10)
        }
        try inbox.remove(try name("a.jpg"), in: group)
        try inbox.remove(try name("a.jpg"), in: group)  // gone already: done
        try inbox.remove(try name("x.jpg"), in: [try name("NoSuchGroup")])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/inbox/Friends/a.jpg"))
        #expect(inbox.size(of: try name("a.jpg"), in: group) == 0)
    }

    @Test("should follow no symlink put inside: a folder or a file that points out is not written through")
    func noSymlinks() throws {
        let outside = folder.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/victim"))
        try FileManager.default.createDirectory(atPath: folder.path + "/inbox", withIntermediateDirectories: true)
        #expect(symlink(outside, folder.path + "/inbox/Friends") == 0)
        let group = [try name("Friends")]
        #expect(throws: FileError.self) { try inbox.write([1], to: try name("victim"), in: group) }
        #expect(throws: FileError.self) { _ = try inbox.append([1], to: try name("victim"), in: group, limit: 10) }
        #expect(throws: FileError.self) { try inbox.remove(try name("victim"), in: group) }
        #expect(inbox.size(of: try name("victim"), in: group) == 0)
        try FileManager.default.createDirectory(atPath: folder.path + "/inbox/Real", withIntermediateDirectories: true)
        #expect(symlink(outside + "/victim", folder.path + "/inbox/Real/link.part") == 0)
        #expect(throws: FileError.self) {
            _ = try inbox.append([1], to: try name("link.part"), in: [try name("Real")], limit: 10)
        }
        // An atomic write replaces the link itself, not what it points to.
        try inbox.write([9], to: try name("link.part"), in: [try name("Real")])
        #expect(FileManager.default.contents(atPath: outside + "/victim") == Data("keep".utf8))
        try inbox.remove(try name("link.part"), in: [try name("Real")])
        #expect(FileManager.default.contents(atPath: outside + "/victim") == Data("keep".utf8))
    }
}
