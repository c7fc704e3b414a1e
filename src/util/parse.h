/* parse.h - strict parsing of command-line numbers. */
#ifndef HAYANAGI_UTIL_PARSE_H
#define HAYANAGI_UTIL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Parses s as a whole decimal integer (an optional sign, then digits) within [lo, hi]
 * into *out. Refuses NULL, empty text, blanks, trailing characters ("4x") and values out
 * of range, including those beyond long long (*out is then unchanged). */
bool parse_integer(const char *s, long long lo, long long hi, long long *out);

/* Parses s as a whole unsigned decimal integer (digits only: no sign, blanks or base
 * prefix) up to UINT64_MAX into *out, e.g. a random seed. Refuses what parse_integer()
 * refuses, and "-1" and "+1" (strtoull would wrap or skip them); *out is then unchanged. */
bool parse_unsigned(const char *s, uint64_t *out);

#endif
