#if SNAPFUZZ_LIBFUZZER
    import CSnapFuzz
    import Foundation

    /// The fuzz build's `main` (Tests/Fuzz/run builds with `-sanitize=fuzzer,address -D SNAPFUZZ_LIBFUZZER`):
    /// libFuzzer's driver, feeding the target `SNAPFUZZ_TARGET` names.
    @main
    struct FuzzDriver {
        static func main() {
            let name = ProcessInfo.processInfo.environment["SNAPFUZZ_TARGET"] ?? ""
            guard let target = FuzzTarget(rawValue: name) else {
                FileHandle.standardError.write(Data("SNAPFUZZ_TARGET must be one of the targets\n".utf8))
                exit(2)
            }
            chosen = target
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    chosen?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                })
        }
    }

    // Set once before the driver starts; the C callback cannot capture.
    nonisolated(unsafe) private var chosen: FuzzTarget?
#endif

#if SNAPFUZZ_LIBFUZZER
    /// libFuzzer's runtime refers to this name even when driven through `LLVMFuzzerRunDriver`.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        chosen?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
#endif
