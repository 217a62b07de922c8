#ifndef MICRO_CLIBFUZZER_H
#define MICRO_CLIBFUZZER_H

/// Hands the process to libFuzzer's driver with the target's `LLVMFuzzerTestOneInput`, as
/// libFuzzer's own `main` does; what a fuzz target's entry point calls (see FuzzSupport's `fuzzerMain`).
int micro_fuzzer_main(int argc, char **argv);

#endif
