import Foundation
import SnapTestSupport
import Testing

@Suite("The crash report", .startsProcesses)
struct CrashReportTests {
    let folder = TemporaryDirectory("crash")

    /// The real binary, dying as asked: its standard error and the signal that ended it.
    func die(_ how: String) async throws -> (words: String, signal: Int32?) {
        let child = try StationProcess(["crash-check", how], logPath: folder.path + "/\(how).log")
        await child.process.exited()
        let signal = child.process.terminationReason == .uncaughtSignal ? child.process.terminationStatus : nil
        return (child.output, signal)
    }

    @Test("should write the signal, the address and the stack to standard error, and still die of the signal")
    func fault() async throws {
        let (words, signal) = try await die("fault")
        #expect(signal == SIGSEGV, "\(words)")
        #expect(words.contains("snapstation: crashed: SIGSEGV"), "\(words)")
        #expect(words.contains("at address 0x10"), "\(words)")
        let stack = try #require(words.split(separator: "\n").first { $0.contains("stack (return addresses") })
        #expect(stack.split(separator: ":").last?.split(separator: " ").count ?? 0 >= 3, "\(stack)")
    }

    @Test("should report an abort too, and die of it")
    func abort() async throws {
        let (words, signal) = try await die("abort")
        #expect(signal == SIGABRT, "\(words)")
        #expect(words.contains("crashed: SIGABRT"), "\(words)")
    }
}
