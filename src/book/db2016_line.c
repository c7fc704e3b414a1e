/* db2016_line.c - one DB2016 move line: tokens, numbers, the move line parser and a
 * trailing comment; see db2016_internal.h. */
#include "book/db2016_internal.h"

#include <string.h>

#include "shogi/notation.h"
#include "util/error.h"

/* ---- move lines ---- */

typedef struct {
    const char *p;
    size_t len;
} Token;

/* Splits at runs of blanks, like YaneuraOu's LineScanner. Returns the token count (at
 * most max); *rest is where the text after the max-th token starts. */
static int split_tokens(const char *s, size_t len, Token *t, int max, size_t *rest) {
    size_t i = 0;
    int n = 0;
    while (n < max) {
        while (i < len && db2016i_is_blank(s[i]))
            i++;
        if (i >= len)
            break;
        size_t start = i;
        while (i < len && !db2016i_is_blank(s[i]))
            i++;
        t[n].p = s + start;
        t[n].len = i - start;
        n++;
    }
    while (i < len && db2016i_is_blank(s[i]))
        i++;
    *rest = i;
    return n;
}

/* Splits at single spaces, as ShogiHome does (String.split(" ", 5)). */
static int split_columns(const char *s, size_t len, Token *t, int max, size_t *rest) {
    size_t i = 0;
    int n = 0;
    while (n < max && i <= len) {
        size_t start = i;
        while (i < len && s[i] != ' ')
            i++;
        t[n].p = s + start;
        t[n].len = i - start;
        n++;
        if (i >= len) {
            i = len;
            break;
        }
        i++; /* the separator */
    }
    *rest = i;
    return n;
}

static bool token_is(const Token *t, const char *word) {
    size_t n = strlen(word);
    return t->len == n && memcmp(t->p, word, n) == 0;
}

/* Parses a decimal integer with an optional sign into [lo, hi]; false if malformed.
 * Out-of-range values saturate and set *clamped. */
static bool parse_int(const Token *t, int64_t lo, int64_t hi, int64_t *out, bool *clamped) {
    size_t i = 0;
    bool neg = false;
    if (t->len && (t->p[0] == '-' || t->p[0] == '+')) {
        neg = t->p[0] == '-';
        i = 1;
    }
    if (i >= t->len)
        return false;
    int64_t v = 0;
    for (; i < t->len; i++) {
        char c = t->p[i];
        if (c < '0' || c > '9')
            return false;
        if (v < INT64_MAX / 10 - 10)
            v = v * 10 + (c - '0');
        else
            *clamped = true;
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        *clamped = true;
    *out = v < lo ? lo : v > hi ? hi : v;
    return true;
}

bool db2016i_parse_move_line(const char *line, size_t len, bool shogihome_columns, BookMove *m, bool *ambiguous,
                             bool *clamped, char *err, size_t err_len) {
    *clamped = false;
    Token t[5];
    size_t rest;
    memset(m, 0, sizeof *m);
    m->count = 1;
    /* Empty columns (a run of spaces after the move) read differently in YaneuraOu and
     * ShogiHome; note them. */
    bool amb = false;
    {
        Token c[5];
        size_t r;
        int nc = split_columns(line, len, c, 5, &r);
        for (int i = 1; i < nc && i < 4; i++)
            if (c[i].len == 0 && i + 1 < nc)
                amb = true;
    }
    if (ambiguous)
        *ambiguous = amb;
    int n = amb && shogihome_columns ? split_columns(line, len, t, 5, &rest) : split_tokens(line, len, t, 5, &rest);
    if (n == 0 || t[0].len == 0)
        return error_set(err, err_len, "empty move line");
    if (!move16_from_usi(t[0].p, t[0].len, &m->move))
        return error_set(err, err_len, "malformed move '%.*s'", (int)(t[0].len > 16 ? 16 : t[0].len), t[0].p);
    if (n > 1 && t[1].len && !token_is(&t[1], "none") && !token_is(&t[1], "resign") &&
        !move16_from_usi(t[1].p, t[1].len, &m->ponder))
        return error_set(err, err_len, "malformed ponder move '%.*s'", (int)(t[1].len > 16 ? 16 : t[1].len), t[1].p);
    int64_t v;
    if (n > 2 && t[2].len && !token_is(&t[2], "none")) {
        if (!parse_int(&t[2], -2147483647, 2147483647, &v, clamped))
            return error_set(err, err_len, "malformed value '%.*s'", (int)(t[2].len > 16 ? 16 : t[2].len), t[2].p);
        m->score = (int32_t)v;
        m->has_score = true;
    }
    if (n > 3 && t[3].len && !token_is(&t[3], "none")) {
        if (!parse_int(&t[3], -BOOK_DEPTH_MAX, BOOK_DEPTH_MAX, &v, clamped))
            return error_set(err, err_len, "malformed depth '%.*s'", (int)(t[3].len > 16 ? 16 : t[3].len), t[3].p);
        m->depth = (int32_t)v;
        m->has_depth = true;
    }
    if (n > 4 && t[4].len && !token_is(&t[4], "none")) {
        if (!parse_int(&t[4], INT64_MIN, INT64_MAX, &v, clamped) || v < 0)
            return error_set(err, err_len, "malformed count '%.*s'", (int)(t[4].len > 16 ? 16 : t[4].len), t[4].p);
        if ((uint64_t)v > BOOK_COUNT_MAX)
            *clamped = true;
        m->count = (uint64_t)v > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : (uint64_t)v;
    }
    return true;
}

bool db2016_parse_move_line(const char *line, size_t len, bool shogihome_columns, BookMove *m, bool *ambiguous,
                            char *err, size_t err_len) {
    bool clamped;
    return db2016i_parse_move_line(line, len, shogihome_columns, m, ambiguous, &clamped, err, err_len);
}

bool db2016i_trailing_comment(const char *line, size_t len, const char **c, size_t *clen) {
    Token t[5];
    size_t rest;
    if (split_tokens(line, len, t, 5, &rest) < 5 || rest >= len)
        return false;
    const char *p = line + rest;
    size_t n = len - rest;
    if (p[0] == '#') {
        p++;
        n--;
    } else if (n >= 2 && p[0] == '/' && p[1] == '/') {
        p += 2;
        n -= 2;
    } else {
        return false;
    }
    *c = p;
    *clen = n;
    return true;
}

/* ---- the line source ---- */
