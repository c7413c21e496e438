// ss_fuzz: libFuzzer's driver entry, for Swift.
//
// Why this exists: SwiftPM gives an executable its own `main`, so the fuzz build cannot take libFuzzer's.
// Instead the fuzz build's `main` calls libFuzzer's documented driver with its callback. The symbol comes
// from the compiler's libFuzzer runtime, linked only by the fuzz build (`-sanitize=fuzzer`, Tests/Fuzz/run);
// the normal build declares it and never calls it.
#ifndef SS_FUZZ_H
#define SS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*ss_fuzz_callback)(const uint8_t *data, size_t size);

/// libFuzzer's driver (https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library).
int LLVMFuzzerRunDriver(int *argc, char ***argv, ss_fuzz_callback callback);

#ifdef __cplusplus
}
#endif

#endif
