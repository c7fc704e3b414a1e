/* parse.h - strict parsing of numbers from command lines and option values: the one set
 * of number parsers (no atoi, atof or bare strtol elsewhere for these). Each refuses NULL,
 * empty text, blanks, trailing characters and values out of range, leaving *out as it
 * was; none allocates. */
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

/* parse_integer() into an int within [lo, hi]. */
bool parse_int(const char *s, int lo, int hi, int *out);

/* Parses s as a whole finite decimal number ("0.5", "-3", "1e-7") within [lo, hi]. Refuses
 * what parse_integer() refuses, and "nan", "inf" and hexadecimal floats. */
bool parse_double(const char *s, double lo, double hi, double *out);

/* Parses "A-B" (two whole non-negative decimal integers joined by one '-') with
 * lo <= A <= B <= hi into *a and *b, e.g. a range of plies "2-4". */
bool parse_range(const char *s, long long lo, long long hi, long long *a, long long *b);

/* Parses a size in bytes: whole decimal digits and an optional binary unit K, M, G or T
 * (either case: 2^10, 2^20, 2^30, 2^40), e.g. "4G", "512M", "1048576", within [lo, hi]
 * into *out. Refuses what parse_unsigned() refuses, other suffixes ("4GB", "1.5G") and
 * sizes beyond 64 bits; *out is then unchanged. */
bool parse_size(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
