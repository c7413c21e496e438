import Foundation

/// Reads what the station wrote the way another program does: a Python script (Debian's /usr/bin/python3,
/// its standard library only) given the file, printing JSON for the test to compare.
public enum PythonReader {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// `script` run with `bytes` written to a file (`sys.argv[1]`) in `folder`; its standard output as JSON.
    public static func json(_ script: String, reading bytes: [UInt8], in folder: String) throws -> Any {
        let input = folder + "/python-input-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        defer { try? FileManager.default.removeItem(atPath: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, input]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "python3 exited with \(process.terminationStatus) reading \(input)")
        }
        return try JSONSerialization.jsonObject(with: data)
    }
}
