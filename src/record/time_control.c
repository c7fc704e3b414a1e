/* time_control.c - a side's time control in a record (time_control.h). */
#include "record/time_control.h"

#include <stdio.h>

bool record_time_control_equal(const RecordTimeControl *a, const RecordTimeControl *b) {
    if (a->set != b->set)
        return false;
    return !a->set ||
           (a->total_ms == b->total_ms && a->byoyomi_ms == b->byoyomi_ms && a->increment_ms == b->increment_ms);
}

/* Seconds with the fraction's significant decimals: 100 -> "0.1", 1500 -> "1.5", 60000 -> "60". */
static int put_seconds(char *buf, size_t len, int64_t ms) {
    if (ms < 0)
        ms = 0;
    long long whole = (long long)(ms / 1000);
    int frac = (int)(ms % 1000);
    if (frac == 0)
        return snprintf(buf, len, "%lld", whole);
    int digits = 3;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return snprintf(buf, len, "%lld.%0*d", whole, digits, frac);
}

char *record_time_control_format(const RecordTimeControl *tc, char *buf, size_t len) {
    const int64_t parts[3] = {tc->total_ms, tc->byoyomi_ms, tc->increment_ms};
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < 3 && used < len; i++) {
        if (i > 0) {
            buf[used++] = '+';
            if (used >= len)
                break;
        }
        int n = put_seconds(buf + used, len - used, parts[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (len)
        buf[used < len ? used : len - 1] = '\0';
    return buf;
}

/* The digits at s[*i..n) into *value: how many (0..max), or -1 when there are more. */
static int take_digits(const char *s, size_t n, size_t *i, int max, int64_t *value) {
    int digits = 0;
    *value = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
        if (++digits > max)
            return -1;
        *value = *value * 10 + (s[(*i)++] - '0');
    }
    return digits;
}

/* One number at s[*i..n): digits (1..9) and an optional fraction of 1..3 digits; *ms. */
static bool take_seconds(const char *s, size_t n, size_t *i, int64_t *ms) {
    int64_t whole, frac = 0;
    if (take_digits(s, n, i, 9, &whole) <= 0)
        return false;
    if (*i < n && s[*i] == '.') {
        (*i)++;
        int fd = take_digits(s, n, i, 3, &frac);
        if (fd <= 0)
            return false;
        while (fd++ < 3)
            frac *= 10;
    }
    *ms = whole * 1000 + frac;
    return true;
}

bool record_time_control_parse(const char *s, size_t n, RecordTimeControl *out) {
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    int64_t v[3];
    for (int k = 0; k < 3; k++) {
        if (k > 0 && (i >= n || s[i++] != '+'))
            return false;
        if (!take_seconds(s, n, &i, &v[k]))
            return false;
    }
    if (i != n)
        return false;
    *out = (RecordTimeControl){.set = true, .total_ms = v[0], .byoyomi_ms = v[1], .increment_ms = v[2]};
    return true;
}
