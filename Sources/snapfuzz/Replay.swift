#if !SNAPFUZZ_LIBFUZZER
    import Foundation

    /// Without libFuzzer (the normal build), `snapfuzz TARGET FILE|FOLDER…` runs each file through the
    /// target once: the committed corpus, and every input a fuzzer ever found to crash, as a regression
    /// test in `Tests/run`. Exit 0 when all of them come back.
    @main
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
                FileHandle.standardError.write(Data("usage: snapfuzz {\(names)} FILE|FOLDER...\n".utf8))
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
                let files =
                    isFolder.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                        path + "/" + $0
                    }
                    : [path]
                for file in files {
                    guard let data = FileManager.default.contents(atPath: file) else { continue }
                    target.run([UInt8](data))
                    count += 1
                }
            }
            print("snapfuzz \(name): \(count) inputs replayed, none crashed")
        }
    }
#endif
