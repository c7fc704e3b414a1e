/* usi_info.c - USI `info` and `bestmove` lines (usi_info.h). */
#include "match/usi_info.h"

#include <stdio.h>
#include <string.h>

#include "shogi/notation.h"

/* The next blank-separated word of *p: start in *w, length returned (0 at the end). */
static size_t next_word(const char **p, const char **w) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t')
        e++;
    *w = s;
    *p = e;
    return (size_t)(e - s);
}

static bool word_is(const char *w, size_t n, const char *lit) { return strlen(lit) == n && !memcmp(w, lit, n); }

/* A decimal number of exactly n bytes with an optional sign, within [lo, hi]. */
static bool word_int(const char *w, size_t n, int64_t lo, int64_t hi, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (n && (w[0] == '-' || w[0] == '+')) {
        neg = w[0] == '-';
        i = 1;
    }
    if (i == n || n - i > 19)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (w[i] < '0' || w[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(w[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return false;
    int64_t s = neg ? -(int64_t)v : (int64_t)v;
    if (s < lo || s > hi)
        return false;
    *out = s;
    return true;
}

static bool fail(char *why, size_t len, const char *msg, const char *w, size_t n) {
    if (why && len)
        snprintf(why, len, "%s%s%.*s%s", msg, w ? " '" : "", (int)(n > 40 ? 40 : n), w ? w : "", w ? "'" : "");
    return false;
}

/* Reads the PV words into out->pv, validating on pos when given. */
static void read_pv(const char *p, Position *pos, UsiInfo *out) {
    StateInfo st[USI_INFO_PV_MAX];
    const char *w;
    size_t n;
    out->has_pv = true;
    while ((n = next_word(&p, &w)) > 0) {
        if (out->pv_len == USI_INFO_PV_MAX) {
            out->pv_truncated = true;
            break;
        }
        Move16 m16;
        if (!move16_from_usi(w, n, &m16)) {
            out->pv_illegal = true;
            break;
        }
        if (pos) {
            Move m = position_legal_move_from16(pos, m16);
            if (m == MOVE_NONE) {
                out->pv_illegal = true;
                break;
            }
            position_do_move(pos, m, &st[out->pv_len]);
            out->pv[out->pv_len++] = m;
        } else
            out->pv[out->pv_len++] = m16;
    }
    if (pos)
        for (int i = out->pv_len - 1; i >= 0; i--)
            position_undo_move(pos, out->pv[i]);
}

bool usi_info_parse(const char *line, Position *pos, UsiInfo *out, char *why, size_t why_len) {
    memset(out, 0, sizeof *out);
    out->multipv = 1;
    const char *p = line, *w;
    size_t n = next_word(&p, &w);
    if (!word_is(w, n, "info"))
        return fail(why, why_len, "not an info line", NULL, 0);
    int64_t v;
    while ((n = next_word(&p, &w)) > 0) {
        const char *key = w;
        size_t kn = n;
        if (word_is(key, kn, "string")) {
            out->is_string = true;
            return true;
        }
        if (word_is(key, kn, "pv")) {
            read_pv(p, pos, out);
            return true;
        }
        struct {
            const char *name;
            int64_t lo, hi;
        } const num[] = {{"depth", 0, 100000},    {"seldepth", 0, 100000}, {"multipv", 1, USI_INFO_MULTIPV_MAX},
                         {"nodes", 0, INT64_MAX}, {"nps", 0, INT64_MAX},   {"time", 0, INT64_MAX},
                         {"hashfull", 0, 1000000}};
        int which = -1;
        for (int i = 0; i < (int)(sizeof num / sizeof num[0]); i++)
            if (word_is(key, kn, num[i].name))
                which = i;
        if (which >= 0) {
            n = next_word(&p, &w);
            if (!word_int(w, n, num[which].lo, num[which].hi, &v))
                return fail(why, why_len, n ? "bad number" : "missing number after", n ? w : key, n ? n : kn);
            switch (which) {
            case 0: out->depth = (int)v, out->has_depth = true; break;
            case 1: out->seldepth = (int)v, out->has_seldepth = true; break;
            case 2: out->multipv = (int)v, out->has_multipv = true; break;
            case 3: out->nodes = (uint64_t)v, out->has_nodes = true; break;
            case 4: out->nps = (uint64_t)v, out->has_nps = true; break;
            case 5: out->time_ms = (uint64_t)v, out->has_time = true; break;
            default: out->hashfull = (int)v, out->has_hashfull = true; break;
            }
            continue;
        }
        if (word_is(key, kn, "score")) {
            n = next_word(&p, &w);
            bool mate = word_is(w, n, "mate");
            if (!mate && !word_is(w, n, "cp"))
                return fail(why, why_len, "score is neither cp nor mate:", w, n);
            n = next_word(&p, &w);
            if (mate && n == 1 && (w[0] == '+' || w[0] == '-')) {
                out->mate_unknown = true;
                v = w[0] == '+' ? USI_INFO_MATE_UNKNOWN : -USI_INFO_MATE_UNKNOWN;
            } else if (!word_int(w, n, mate ? -100000 : INT64_MIN / 2, mate ? 100000 : INT64_MAX / 2, &v))
                return fail(why, why_len, "bad score", w, n);
            if (!mate)
                v = v > 1000000 ? 1000000 : v < -1000000 ? -1000000 : v;
            out->has_score = true;
            out->score_mate = mate;
            out->mated = mate && w[0] == '-';
            out->score = (int)v;
            const char *save = p;
            n = next_word(&p, &w);
            if (word_is(w, n, "lowerbound"))
                out->bound = USI_BOUND_LOWER;
            else if (word_is(w, n, "upperbound"))
                out->bound = USI_BOUND_UPPER;
            else
                p = save;
            continue;
        }
        if (word_is(key, kn, "lowerbound") || word_is(key, kn, "upperbound")) {
            /* a bound apart from the score (some engines put it later) */
            out->bound = key[0] == 'l' ? USI_BOUND_LOWER : USI_BOUND_UPPER;
            continue;
        }
        /* currmove, currmovenumber, cpuload, tbhits, refutation, ... and anything else:
         * skipped a word at a time (their arguments are skipped the same way) */
    }
    return true;
}

bool usi_info_is_complete(const UsiInfo *in) {
    return !in->is_string && in->has_score && in->bound == USI_BOUND_EXACT && in->has_depth && in->pv_len > 0;
}

UsiBestmove usi_bestmove_parse(const char *line, Position *pos, Move *best, Move *ponder) {
    const char *p = line, *w;
    size_t n = next_word(&p, &w);
    if (!word_is(w, n, "bestmove"))
        return USI_BESTMOVE_NO;
    *best = *ponder = MOVE_NONE;
    n = next_word(&p, &w);
    if (word_is(w, n, "resign"))
        return USI_BESTMOVE_RESIGN;
    if (word_is(w, n, "win"))
        return USI_BESTMOVE_WIN;
    Move16 m16;
    if (!n || !move16_from_usi(w, n, &m16))
        return USI_BESTMOVE_BAD;
    Move m = pos ? position_legal_move_from16(pos, m16) : m16;
    if (m == MOVE_NONE)
        return USI_BESTMOVE_BAD;
    *best = m;
    n = next_word(&p, &w);
    if (!word_is(w, n, "ponder"))
        return USI_BESTMOVE_MOVE;
    n = next_word(&p, &w);
    Move16 p16;
    if (!n || !move16_from_usi(w, n, &p16))
        return USI_BESTMOVE_MOVE;
    if (!pos) {
        *ponder = p16;
        return USI_BESTMOVE_MOVE;
    }
    StateInfo st;
    position_do_move(pos, m, &st);
    *ponder = position_legal_move_from16(pos, p16);
    position_undo_move(pos, m);
    return USI_BESTMOVE_MOVE;
}
