import Foundation
import SnapStore
import SnapTestSupport
import Testing

/// Kills a writer at many random moments and checks what survives, as a power cut would leave it.
///
/// SIGKILL stops the process between any two instructions; the page cache survives it, so this proves the
/// ordering (files complete before their rename, rows after their files, transactions atomic), while the
/// fsyncs cover the cache itself on a real power cut.
@Suite("Power cut", .startsProcesses)
struct PowerCutTests {
    let folder = TemporaryDirectory("powercut")

    @Test("should leave a sound database and only whole photos after being killed mid-write 25 times")
    func killMidWrite() async throws {
        let state = folder.path + "/state"
        var generator = SystemRandomNumberGenerator()
        for round in 0..<25 {
            let writer = try StationProcess(
                ["store-soak", "--state", state], logPath: folder.path + "/soak-\(round).log")
            try? await Task.sleep(for: .microseconds(Int.random(in: 30_000...400_000, using: &generator)))
            await writer.stop(SIGKILL)
        }
        let check = try await StationProcess.run(
            ["store-check", "--state", state], logPath: folder.path + "/check.log")
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("integrity: ok"))
        let photos = check.output.split(separator: "\n").first { $0.hasPrefix("photos:") } ?? ""
        #expect(photos.contains("incomplete: 0"))
        #expect(!photos.hasPrefix("photos: 0,"), "the writer got far enough to write photos")
        #expect(try StationStore(directory: state).integrityCheck() == "ok")
    }
}
