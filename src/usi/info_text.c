/* info_text.c - see info_text.h. */
#include "usi/info_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shogi/notation.h"

typedef struct {
    char *buf;
    size_t len, at;
} Out;

static void put(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Out *o, const char *fmt, ...) {
    if (o->at >= o->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->len - o->at)
        o->at = o->len; /* truncated: nothing more goes in */
    else
        o->at += (size_t)n;
}

char *usi_info_text(const SearchInfo *in, char *buf, size_t len) {
    if (!len)
        return buf;
    buf[0] = '\0';
    Out o = {buf, len, 0};
    if (in->text) {
        put(&o, "info string %s", in->text);
        return buf;
    }
    put(&o, "info depth %d", in->depth);
    if (in->seldepth >= 0)
        put(&o, " seldepth %d", in->seldepth);
    switch (in->score_kind) {
    case INFO_SCORE_CP: put(&o, " score cp %d", in->score); break;
    case INFO_SCORE_MATE: put(&o, " score mate %d", in->score); break;
    case INFO_SCORE_MATED: put(&o, " score mate -%d", in->score); break;
    case INFO_SCORE_NONE: break;
    }
    if (in->score_kind != INFO_SCORE_NONE && in->bound != INFO_BOUND_EXACT)
        put(&o, in->bound == INFO_BOUND_LOWER ? " lowerbound" : " upperbound");
    if (in->multipv > 0)
        put(&o, " multipv %d", in->multipv);
    put(&o, " nodes %llu", (unsigned long long)in->nodes);
    if (in->nps >= 0)
        put(&o, " nps %lld", (long long)in->nps);
    if (in->hashfull >= 0)
        put(&o, " hashfull %d", in->hashfull);
    if (in->time_ms >= 0)
        put(&o, " time %lld", (long long)in->time_ms);
    if (in->pv) {
        put(&o, " pv");
        for (int i = 0; i < in->pv_length; i++) {
            char m[USI_MOVE_MAX];
            move_to_usi(in->pv[i], m);
            /* A whole move or nothing: stop before one that would be cut. */
            size_t need = 1 + strlen(m);
            if (o.at + need >= o.len)
                break;
            put(&o, " %s", m);
        }
    }
    if (o.at >= o.len) /* a truncated field: end at the last complete one */
        buf[len - 1] = '\0';
    return buf;
}
