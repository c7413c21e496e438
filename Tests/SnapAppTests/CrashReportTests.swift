import Foundation
import SnapApp
import Testing

@Suite("The crash report")
struct CrashReportTests {
    @Test("should write the signal, the address and the stack to standard error, and still die of the signal")
    func segfault() async throws {
        let result = try #require(
            await #expect(processExitsWith: .signal(SIGSEGV), observing: [\.standardErrorContent]) {
                CrashReport.install()
                // A real fault: a write to an address no page holds.
                UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
            })
        let words = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(words.contains("snapstation: crashed: SIGSEGV"), "\(words)")
        #expect(words.contains("at address 0x10"), "\(words)")
        let stack = try #require(words.split(separator: "\n").first { $0.contains("stack (return addresses") })
        #expect(stack.split(separator: ":").last?.split(separator: " ").count ?? 0 >= 3, "\(stack)")
    }

    @Test("should report an abort too, and die of it")
    func abort() async throws {
        let result = try #require(
            await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardErrorContent]) {
                CrashReport.install()
                Glibc.abort()
            })
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("crashed: SIGABRT"))
    }
}
