#include "FuzzDriver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

// SwiftPM links an executable with `--defsym main=<Target>_main` and compiles its module
// to emit that symbol; with -parse-as-library (which libFuzzer needs) Swift emits none,
// and the link fails (swiftlang/swift#75800). Each target defines `<Target>_main` with
// @_cdecl and calls this, so libFuzzer's driver runs as it would from its own main.
int fuzz_driver_run(int argc, char **argv, FuzzTestOneInput test) {
    return LLVMFuzzerRunDriver(&argc, &argv, test);
}
