/* fuzz_parse_integer.c - libFuzzer target for util/parse.h's strict integer parser.
 *
 * The bytes, NUL-terminated, are parsed within two ranges. Anything accepted must be a
 * sign or digit followed by digits only, lie in the range, and print back as the same
 * number; anything refused must leave the output untouched. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_parse_integer: check failed: %s (line %d)\n", #cond, __LINE__);                      \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static void check_range(const char *text, long long lo, long long hi) {
    long long v = 0x5a5a5a5a;
    if (!parse_integer(text, lo, hi, &v)) {
        CHECK(v == 0x5a5a5a5a);
        return;
    }
    CHECK(v >= lo && v <= hi);
    size_t i = text[0] == '-' || text[0] == '+';
    CHECK(text[i] != '\0');
    for (; text[i]; i++)
        CHECK(isdigit((unsigned char)text[i]));
    CHECK(strtoll(text, NULL, 10) == v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 64)
        return 0;
    char text[65];
    memcpy(text, data, size);
    text[size] = '\0';
    check_range(text, 0, 100);
    check_range(text, -1000000000000LL, 1000000000000LL);
    return 0;
}
