/* engine_pool.c - external USI engines behind the searcher interface (engine_pool.h). */
#include "bookgen/engine_pool.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shogi/movegen.h"
#include "match/usi_client.h"
#include "shogi/notation.h"

enum { POOL_MAX = 256, BACKOFF_FIRST_MS = 100, BACKOFF_MAX_MS = 10000 };

typedef struct {
    EngineProc e;
    const char *cmd;
    bool running;
    bool retired;
    bool has_multipv;
    int cur_mpv; /* MultiPV last set, 0 = not yet */
    int fails_in_row;
    int restarts; /* starts after the first */
    int starts;
    uint64_t done;
    bool fresh;            /* no position searched since its last usinewgame */
    bool ever_ready;       /* its engine got through a handshake once */
    int64_t next_start_us; /* back-off: not before this */
    char why[700];         /* the last failure */
} Slot;

typedef struct {
    Searcher base;
    EnginePoolOptions o;
    Slot *slots;
    volatile sig_atomic_t stop; /* raised by pool_stop; engine reads give up on it */
    pthread_mutex_t lock;       /* warn stream and the said-once flag */
    bool said_no_multipv;
    int bad_lines_said; /* ignored engine lines shown on the warn stream so far */
} Pool;

enum { BAD_LINES_SHOWN = 3 }; /* the first ones are shown; the summary counts them all */

int64_t engine_pool_default_timeout(const SearchBudget *b) {
    if (b->movetime)
        return 10 * b->movetime + 30000;
    return 300000;
}

static void sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static const char *slot_name(const Slot *s) { return s->e.name[0] ? s->e.name : s->cmd; }

/* Counts an engine line that was ignored in whole or in part and shows the first few,
 * with what was done, the reason and the position, so that a user can see what an engine
 * printed that we could not use. */
static void bad_line(Pool *p, int i, const char *sfen, const char *done, const char *line, const char *why,
                     int *warnings) {
    (*warnings)++;
    pthread_mutex_lock(&p->lock);
    if (p->bad_lines_said < BAD_LINES_SHOWN) {
        p->bad_lines_said++;
        char shown[201]; /* the line as printable text, cut at 200 bytes */
        size_t n = 0;
        for (; n < sizeof shown - 1 && line[n]; n++)
            shown[n] = line[n] >= 0x20 && line[n] < 0x7f ? line[n] : '?';
        shown[n] = '\0';
        fprintf(p->o.warn, "engine #%d (%s): %s %s%s (%s) at sfen %s%s\n", i + 1, slot_name(&p->slots[i]), done, shown,
                line[n] ? "..." : "", why, sfen,
                p->bad_lines_said == BAD_LINES_SHOWN ? "; further ones are only counted" : "");
    }
    pthread_mutex_unlock(&p->lock);
}

/* Ends the engine and counts a failure; retires the slot after too many in a row.
 * Returns the status to give the caller. */
static SearchStatus slot_fail(Pool *p, int i, const char *fmt, const char *arg) {
    Slot *s = &p->slots[i];
    char why[384];
    snprintf(why, sizeof why, fmt, arg ? arg : "");
    engine_close(&s->e, 200);
    s->running = false;
    s->cur_mpv = 0;
    s->fails_in_row++;
    if (s->e.last_stderr[0])
        snprintf(s->why, sizeof s->why, "%s; last stderr line: %s", why, s->e.last_stderr);
    else
        snprintf(s->why, sizeof s->why, "%s", why);
    int max = p->o.max_failures > 0 ? p->o.max_failures : 3;
    int64_t backoff = BACKOFF_FIRST_MS;
    for (int k = 1; k < s->fails_in_row && backoff < BACKOFF_MAX_MS; k++)
        backoff *= 2;
    if (backoff > BACKOFF_MAX_MS)
        backoff = BACKOFF_MAX_MS;
    s->next_start_us = engine_now_us() + backoff * 1000;
    bool retire = s->fails_in_row >= max || !s->ever_ready;
    pthread_mutex_lock(&p->lock);
    if (!p->o.quiet || retire)
        fprintf(p->o.warn, "engine #%d (%s): %s%s\n", i + 1, s->cmd, s->why,
                !retire         ? "; restarting"
                : s->ever_ready ? "; retired after repeated failures"
                                : "; retired: it never completed a handshake");
    pthread_mutex_unlock(&p->lock);
    if (retire) {
        s->retired = true;
        return SEARCH_RETIRED;
    }
    return SEARCH_RETRY;
}

/* The one handshake deadline (usiok and readyok): --engine-startup, else USI_HANDSHAKE_MS.
 * --engine-timeout is the search's: an engine that loads for longer than it searches must
 * not be retired for it. */
static int64_t handshake_ms(const Pool *p) { return p->o.startup_ms > 0 ? p->o.startup_ms : USI_HANDSHAKE_MS; }

/* Which slot a start-up callback is about. */
typedef struct {
    Pool *p;
    int i;
} SlotRef;

static void missing_option(void *ctx, const char *name) {
    SlotRef *r = ctx;
    Slot *s = &r->p->slots[r->i];
    if (s->done || s->restarts)
        return;
    pthread_mutex_lock(&r->p->lock);
    fprintf(r->p->o.warn, "engine #%d (%s) has no option %s: not sent\n", r->i + 1, slot_name(s), name);
    pthread_mutex_unlock(&r->p->lock);
}

/* Starts slot i's engine and does the handshake. An engine that never got through one is
 * retired at its first failure (a restart does not mend a wrong command, a missing file or
 * an engine that never says readyok); one that did is restarted like after a crash. Either
 * way the position is not to blame (out->engine_fault). */
static SearchStatus slot_start(Pool *p, int i, SearchAnswer *out) {
    Slot *s = &p->slots[i];
    int64_t wait = s->next_start_us - engine_now_us();
    while (wait > 0 && !p->stop) {
        sleep_ms(wait > 50000 ? 50 : (wait + 999) / 1000);
        wait = s->next_start_us - engine_now_us();
    }
    if (p->stop)
        return SEARCH_STOPPED;
    char err[256];
    s->e.abort_flag = &p->stop;
    SlotRef ref = {p, i};
    UsiClientConfig uc = {.cmd = s->cmd,
                          .stderr_mode = ENGINE_STDERR_CAPTURE,
                          .options = p->o.options,
                          .n_options = p->o.n_options,
                          .handshake_ms = handshake_ms(p),
                          .missing_option = missing_option,
                          .ctx = &ref};
    bool ok = usi_client_start(&s->e, &uc, NULL, err, sizeof err);
    if (s->starts++)
        s->restarts++;
    if (ok && !engine_send(&s->e, "usinewgame")) {
        ok = false;
        snprintf(err, sizeof err, "cannot write 'usinewgame': engine gone");
    }
    if (!ok) {
        if (p->stop)
            return SEARCH_STOPPED;
        out->engine_fault = true;
        return slot_fail(p, i, "%s", err); /* retires it when it never got through a handshake */
    }
    s->ever_ready = true;
    s->has_multipv = engine_option_name(&s->e, "MultiPV") != NULL;
    s->cur_mpv = 0;
    s->fresh = true;
    s->running = true;
    return SEARCH_OK;
}

/* What pool_analyse's line callbacks need. */
typedef struct {
    Pool *p;
    int i;
    const char *sfen;
    MultiPvLines *lines;
    SearchAnswer *out;
    int want;
} Reading;

static void on_info(void *ctx, const UsiInfo *in, const char *line) {
    Reading *r = ctx;
    if (in->pv_illegal) {
        /* one rule (docs/book_making.md, "The searcher: in this process or external
         * engines"): the legal prefix of the PV is kept with the line's score and depth; a
         * PV whose first move is not legal keeps nothing of the line but its node count */
        char why[64];
        snprintf(why, sizeof why, "PV move %d is not legal", in->pv_len + 1);
        bad_line(r->p, r->i, r->sfen, in->pv_len ? "kept the legal PV prefix of" : "ignored", line, why,
                 &r->out->warnings);
    }
    if (in->has_nodes && in->nodes > r->out->nodes)
        r->out->nodes = in->nodes;
    SearchLine sl;
    if (searcher_line_from_info(in, &sl))
        multipv_lines_add(r->lines, &sl);
    if (usi_info_is_complete(in) && in->multipv <= r->want && in->depth > r->out->depth)
        r->out->depth = in->depth;
}

static void on_bad_line(void *ctx, const char *line, const char *why) {
    Reading *r = ctx;
    bad_line(r->p, r->i, r->sfen, "ignored", line, why, &r->out->warnings);
}

/* What the end of a search means for the slot: SEARCH_OK when a bestmove came. */
static SearchStatus after_go(Pool *p, int i, const UsiGoResult *res, int64_t limit_ms) {
    char t[64];
    switch (res->status) {
    case USI_GO_BESTMOVE: return SEARCH_OK;
    case USI_GO_EOF: return slot_fail(p, i, "%s", "engine exited during the search");
    case USI_GO_TIMEOUT:
        snprintf(t, sizeof t, "%" PRId64, limit_ms);
        return slot_fail(p, i, "no bestmove within %s ms (--engine-timeout)", t);
    case USI_GO_JUNK:
        snprintf(t, sizeof t, "%d", USI_JUNK_MAX);
        return slot_fail(p, i, "printed more than %s lines that are no USI", t);
    case USI_GO_ABORTED: break;
    }
    /* Ctrl-C: the engine was stopped and is kept for a clean quit, unless it hung */
    if (res->hung) {
        engine_close(&p->slots[i].e, 200);
        p->slots[i].running = false;
    }
    return SEARCH_STOPPED;
}

static SearchStatus pool_analyse(Searcher *base, int i, Position *pos, const SearchBudget *b, int mpv,
                                 SearchAnswer *out) {
    Pool *p = (Pool *)base;
    Slot *s = &p->slots[i];
    if (s->retired)
        return SEARCH_RETIRED;
    if (p->stop)
        return SEARCH_STOPPED;
    if (!s->running) {
        SearchStatus st = slot_start(p, i, out);
        if (st != SEARCH_OK)
            return st;
    }
    if (mpv > 1 && !s->has_multipv) {
        pthread_mutex_lock(&p->lock);
        if (!p->said_no_multipv)
            fprintf(p->o.warn, "engine #%d (%s) has no MultiPV option: it gives one move per position\n", i + 1,
                    slot_name(s));
        p->said_no_multipv = true;
        pthread_mutex_unlock(&p->lock);
    }
    if (s->has_multipv && s->cur_mpv != mpv) {
        char v[16];
        snprintf(v, sizeof v, "%d", mpv);
        engine_setoption(&s->e, "MultiPV", v);
        s->cur_mpv = mpv;
    }
    int want = s->has_multipv ? mpv : 1;
    char sfen[SFEN_MAX], go[600];
    position_to_sfen(pos, sfen, true);
    size_t plen = strlen(sfen) + 16;
    char *posline = malloc(plen);
    MultiPvLines *lines = malloc(sizeof *lines);
    if (!posline || !lines) {
        free(posline);
        free(lines);
        return SEARCH_RETRY;
    }
    snprintf(posline, plen, "position sfen %s", sfen);
    search_budget_go_line(b, go, sizeof go);
    SearchStatus st = SEARCH_OK;
    if (p->o.newgame_each && !s->fresh) {
        char err[256];
        engine_drain(&s->e);
        if (!usi_client_newgame(&s->e, handshake_ms(p), err, sizeof err)) {
            out->engine_fault = true; /* not the position's: it was not sent yet */
            st = p->stop ? SEARCH_STOPPED : slot_fail(p, i, "%s", err);
        }
    }
    s->fresh = false;
    multipv_lines_init(lines, pos, want);
    int64_t limit = p->o.timeout_ms > 0 ? p->o.timeout_ms : engine_pool_default_timeout(b);
    Reading rd = {p, i, sfen, lines, out, want};
    UsiGo ask = {.position_line = posline,
                 .go_line = go,
                 .limit_us = limit * 1000,
                 .pos = pos,
                 .on_info = on_info,
                 .on_bad_line = on_bad_line,
                 .ctx = &rd};
    UsiGoResult res;
    if (st == SEARCH_OK) {
        usi_client_go(&s->e, &ask, &res);
        st = after_go(p, i, &res, limit);
    }
    free(posline);
    if (st == SEARCH_OK) {
        multipv_lines_answer(lines, out);
        if (res.kind == USI_BESTMOVE_MOVE)
            search_answer_bare_bestmove(out, res.best, res.ponder);
        if (!out->n) {
            if (!position_has_legal_move(pos))
                st = SEARCH_NONE;
            else
                st = slot_fail(p, i, "%s", "no legal move in its answer (garbage, resign or an illegal bestmove)");
        } else {
            s->fails_in_row = 0;
            s->done++;
        }
    }
    snprintf(out->engine, sizeof out->engine, "%s", slot_name(s));
    free(lines);
    return st;
}

static void pool_stop(Searcher *base) {
    Pool *p = (Pool *)base;
    p->stop = 1;
}

static void pool_status(Searcher *base, char *buf, size_t len) {
    Pool *p = (Pool *)base;
    size_t used = 0;
    for (int i = 0; i < base->slots && used + 1 < len; i++) {
        const Slot *s = &p->slots[i];
        int n = snprintf(buf + used, len - used, "%s#%d %" PRIu64 "%s", i ? " " : "", i + 1, s->done,
                         s->retired ? " retired" : "");
        if (n < 0)
            break;
        used += (size_t)n;
        if (s->restarts && used + 1 < len) {
            n = snprintf(buf + used, len - used, " (%d restart%s)", s->restarts, s->restarts == 1 ? "" : "s");
            if (n > 0)
                used += (size_t)n;
        }
    }
    if (used >= len && len)
        buf[len - 1] = '\0';
}

static void pool_failures(Searcher *base, char *buf, size_t len) {
    Pool *p = (Pool *)base;
    size_t used = 0;
    for (int i = 0; i < base->slots && used + 1 < len; i++) {
        const Slot *s = &p->slots[i];
        if (!s->retired)
            continue;
        int n = snprintf(buf + used, len - used, "  engine #%d '%s': %s\n", i + 1, s->cmd, s->why);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void pool_destroy(Searcher *base) {
    Pool *p = (Pool *)base;
    /* `quit` to every engine first, so that they all wind down at once: ending them one
     * by one would add up their waits */
    for (int i = 0; i < base->slots; i++)
        if (p->slots[i].e.pid > 0)
            engine_send(&p->slots[i].e, "quit");
    for (int i = 0; i < base->slots; i++) {
        p->slots[i].e.abort_flag = NULL;
        engine_close(&p->slots[i].e, ENGINE_QUIT_WAIT_MS);
    }
    pthread_mutex_destroy(&p->lock);
    free(p->slots);
    free(p);
}

static const SearcherOps POOL_OPS = {pool_analyse, pool_stop, pool_status, pool_failures, pool_destroy};

Searcher *engine_pool_create(const EnginePoolOptions *o, char *err, size_t err_len) {
    if (o->n_cmds < 1 || o->n_cmds > POOL_MAX) {
        snprintf(err, err_len, "between 1 and %d engines, please (got %d)", POOL_MAX, o->n_cmds);
        return NULL;
    }
    Pool *p = calloc(1, sizeof *p);
    Slot *slots = p ? calloc((size_t)o->n_cmds, sizeof *slots) : NULL;
    if (!slots) {
        free(p);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    p->base.ops = &POOL_OPS;
    p->base.slots = o->n_cmds;
    p->base.external = true;
    p->o = *o;
    if (!p->o.warn)
        p->o.warn = stderr;
    p->slots = slots;
    pthread_mutex_init(&p->lock, NULL);
    for (int i = 0; i < o->n_cmds; i++) {
        engine_init(&slots[i].e);
        snprintf(slots[i].e.tag, sizeof slots[i].e.tag, "e%d", i + 1);
        slots[i].cmd = o->cmds[i];
    }
    return &p->base;
}
