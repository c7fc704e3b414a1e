/* parse.c - see parse.h. */
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool parse_integer(const char *s, long long lo, long long hi, long long *out) {
    if (!s || !(isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+') && isdigit((unsigned char)s[1]))))
        return false; /* strtoll would skip leading blanks */
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool parse_unsigned(const char *s, uint64_t *out) {
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

bool parse_int(const char *s, int lo, int hi, int *out) {
    long long v;
    if (!parse_integer(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool parse_double(const char *s, double lo, double hi, double *out) {
    if (!s)
        return false;
    const char *p = s + (s[0] == '-' || s[0] == '+');
    if (!(isdigit((unsigned char)p[0]) || (p[0] == '.' && isdigit((unsigned char)p[1]))))
        return false; /* blanks, "nan", "inf" */
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool parse_range(const char *s, long long lo, long long hi, long long *a, long long *b) {
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    const char *dash = strchr(s, '-');
    char first[32];
    size_t n = dash ? (size_t)(dash - s) : 0;
    if (!dash || n >= sizeof first || !isdigit((unsigned char)dash[1]))
        return false;
    memcpy(first, s, n);
    first[n] = '\0';
    long long x, y;
    if (!parse_integer(first, lo, hi, &x) || !parse_integer(dash + 1, lo, hi, &y) || x > y)
        return false;
    *a = x;
    *b = y;
    return true;
}

bool parse_size(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return false;
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    case 't':
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift)
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return false;
    uint64_t bytes = (uint64_t)v << shift;
    if (bytes < lo || bytes > hi)
        return false;
    *out = bytes;
    return true;
}
