/* parse.h - strict parsing of command-line numbers. */
#ifndef HAYANAGI_UTIL_PARSE_H
#define HAYANAGI_UTIL_PARSE_H

#include <stdbool.h>

/* Parses s as a whole decimal integer (an optional sign, then digits) within [lo, hi]
 * into *out. Refuses NULL, empty text, blanks, trailing characters ("4x") and values out
 * of range, including those beyond long long (*out is then unchanged). */
bool parse_integer(const char *s, long long lo, long long hi, long long *out);

#endif
