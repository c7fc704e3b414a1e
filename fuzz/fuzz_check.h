/* fuzz_check.h - the property check shared by the fuzz targets: a failed check names
 * its file, line and condition and aborts, which libFuzzer reports as a crash with the
 * input that caused it. Header-only, fuzz use only. */
#ifndef HAYANAGI_FUZZ_FUZZ_CHECK_H
#define HAYANAGI_FUZZ_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
