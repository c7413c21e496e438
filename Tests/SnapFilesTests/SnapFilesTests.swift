import Foundation
import SnapFiles
import SnapTestSupport
import Testing

@Suite("AtomicFile and FileBytes")
struct SnapFilesTests {
    let folder = TemporaryDirectory("files")

    @Test("should write a file whole, creating its folders, and leave no temporary file")
    func write() throws {
        let path = folder.path + "/a/b/photo.jpg"
        try AtomicFile.write([UInt8](repeating: 7, count: 100_000), to: path)
        #expect(try FileBytes.read(path) == [UInt8](repeating: 7, count: 100_000))
        #expect(folder.files() == ["a/b/photo.jpg"])
    }

    @Test("should replace an existing file in one step")
    func replace() throws {
        let path = folder.path + "/x.json"
        try AtomicFile.write(Array("old".utf8), to: path)
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(try FileBytes.read(path) == Array("new".utf8))
    }

    @Test("should name the failing call and path when a file cannot be written")
    func writeError() {
        #expect {
            try AtomicFile.write([UInt8](repeating: 1, count: 4), to: "/proc/snapstation-test/x.jpg")
        } throws: { error in
            guard let error = error as? FileError else { return false }
            return error.call == "mkdir" && error.path == "/proc/snapstation-test"
        }
    }

    @Test("should read empty and missing files as they are")
    func read() throws {
        try AtomicFile.write([UInt8](), to: folder.path + "/empty")
        #expect(try FileBytes.read(folder.path + "/empty") == [])
        #expect(FileBytes.readIfPresent(folder.path + "/missing") == nil)
        #expect(throws: FileError(call: "open", path: folder.path + "/missing", errno: ENOENT)) {
            try FileBytes.read(folder.path + "/missing")
        }
        #expect(FileError(call: "open", path: "/x", errno: ENOENT).description == "open(/x): No such file or directory")
    }

    @Test("should report the free space of the disk holding a folder")
    func freeSpace() throws {
        #expect(try FreeSpace.available(at: folder.path) > 0)
        #expect(throws: FileError.self) { try FreeSpace.available(at: folder.path + "/missing") }
    }
}
