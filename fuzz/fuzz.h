/* Shared by the fuzz targets: libFuzzer's entry points and a check that
 * aborts with what failed (libFuzzer records the input as a crash). */
#ifndef ORBBENCH_FUZZ_H
#define ORBBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,           \
                    __LINE__, #cond);                                        \
            abort();                                                         \
        }                                                                    \
    } while (0)

/* Called by libFuzzer once per input; returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Called once before the first input (optional). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
