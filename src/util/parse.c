/* parse.c - see parse.h. */
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

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
