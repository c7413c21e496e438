import Foundation

/// Another program run to its end, as a test asks it (a Python script of Tests/Support, `tar`,
/// `sha256sum`): its exit status and everything it printed, both outputs together.
public enum ChildOutput {
    public static func run(_ tool: String, _ arguments: [String], in folder: String? = nil) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
