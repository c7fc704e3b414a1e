/* fuzz_parse_integer.c - libFuzzer target for util/parse.h's strict integer parsers.
 * parse_size() too: what it accepts is digits and at most one unit letter, and equals
 * the digits' value shifted by the unit.
 *
 * The bytes, NUL-terminated, are parsed within two ranges and as an unsigned number.
 * Anything accepted must be a sign (signed parser only) or digit followed by digits only,
 * lie in the range, and print back as the same number; anything refused must leave the
 * output untouched. The two parsers agree on unsigned text within both ranges. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "util/parse.h"

static void check_range(const char *text, long long lo, long long hi) {
    long long v = 0x5a5a5a5a;
    if (!parse_integer(text, lo, hi, &v)) {
        FUZZ_CHECK(v == 0x5a5a5a5a);
        return;
    }
    FUZZ_CHECK(v >= lo && v <= hi);
    size_t i = text[0] == '-' || text[0] == '+';
    FUZZ_CHECK(text[i] != '\0');
    for (; text[i]; i++)
        FUZZ_CHECK(isdigit((unsigned char)text[i]));
    FUZZ_CHECK(strtoll(text, NULL, 10) == v);
}

static void check_unsigned(const char *text) {
    uint64_t u = 0x5a5a5a5a;
    if (!parse_unsigned(text, &u)) {
        FUZZ_CHECK(u == 0x5a5a5a5a);
        long long v;
        FUZZ_CHECK(!isdigit((unsigned char)text[0]) || !parse_integer(text, 0, LLONG_MAX, &v));
        return;
    }
    FUZZ_CHECK(text[0] != '\0');
    for (size_t i = 0; text[i]; i++)
        FUZZ_CHECK(isdigit((unsigned char)text[i]));
    FUZZ_CHECK(strtoull(text, NULL, 10) == u);
    long long v;
    FUZZ_CHECK(parse_integer(text, 0, LLONG_MAX, &v) == (u <= LLONG_MAX));
    FUZZ_CHECK(u > LLONG_MAX || (uint64_t)v == u);
}

static void check_size(const char *text) {
    uint64_t v = 0x5a5a5a5a;
    if (!parse_size(text, 0, UINT64_MAX, &v)) {
        FUZZ_CHECK(v == 0x5a5a5a5a);
        return;
    }
    size_t n = 0;
    while (isdigit((unsigned char)text[n]))
        n++;
    FUZZ_CHECK(n > 0);
    const char *units = "KkMmGgTt";
    const char *u = text[n] ? strchr(units, text[n]) : NULL;
    FUZZ_CHECK(text[n] == '\0' || (u && text[n + 1] == '\0'));
    int shift = u ? 10 * (1 + (int)(u - units) / 2) : 0;
    FUZZ_CHECK(v >> shift == strtoull(text, NULL, 10));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 64)
        return 0;
    char text[65];
    memcpy(text, data, size);
    text[size] = '\0';
    check_range(text, 0, 100);
    check_range(text, -1000000000000LL, 1000000000000LL);
    check_unsigned(text);
    check_size(text);
    return 0;
}
