#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// A target's LLVMFuzzerTestOneInput.
typedef int (*FuzzTestOneInput)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver (LLVMFuzzerRunDriver, from the runtime -sanitize=fuzzer links)
/// with the command line and the target's entry point.
int fuzz_driver_run(int argc, char **argv, FuzzTestOneInput test);
#endif
