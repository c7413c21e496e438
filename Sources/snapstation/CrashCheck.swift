import ArgumentParser
import Foundation
import SnapApp

extension SnapStation {
    /// Dies the way the station might, with the crash report installed: the test of `CrashReport` runs
    /// the real binary (an exit test in the test process would start a second copy of every suite).
    struct CrashCheck: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "crash-check",
            abstract: "Install the crash report and die of a fault or an abort (for its test).",
            shouldDisplay: false)

        @Argument(help: "\"fault\" (a write to an address no page holds) or \"abort\".") var how: String

        func run() throws {
            guard how == "fault" || how == "abort" else { throw ValidationError("\"fault\" or \"abort\"") }
            CrashReport.install()
            if how == "abort" { Foundation.abort() }
            UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
        }
    }
}
