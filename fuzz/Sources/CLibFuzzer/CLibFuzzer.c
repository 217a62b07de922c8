#include <stddef.h>
#include <stdint.h>
#include "CLibFuzzer.h"

// libFuzzer's (compiler-rt's FuzzerInterface.h), and the one each fuzz target exports.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int micro_fuzzer_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
