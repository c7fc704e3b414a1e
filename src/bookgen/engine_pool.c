/* engine_pool.c - external USI engines behind the searcher interface (engine_pool.h). */
#include "bookgen/engine_pool.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shogi/movegen.h"
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

/* Counts an engine line that was ignored and shows the first few, with the reason and the
 * position, so that a user can see what an engine printed that we could not use. */
static void bad_line(Pool *p, int i, const char *sfen, const char *line, const char *why, int *warnings) {
    (*warnings)++;
    pthread_mutex_lock(&p->lock);
    if (p->bad_lines_said < BAD_LINES_SHOWN) {
        p->bad_lines_said++;
        char shown[201]; /* the line as printable text, cut at 200 bytes */
        size_t n = 0;
        for (; n < sizeof shown - 1 && line[n]; n++)
            shown[n] = line[n] >= 0x20 && line[n] < 0x7f ? line[n] : '?';
        shown[n] = '\0';
        fprintf(p->o.warn, "engine #%d (%s): ignored %s%s (%s) at sfen %s%s\n", i + 1, slot_name(&p->slots[i]), shown,
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
    bool retire = s->fails_in_row >= max;
    pthread_mutex_lock(&p->lock);
    if (!p->o.quiet || retire)
        fprintf(p->o.warn, "engine #%d (%s): %s%s\n", i + 1, s->cmd, s->why,
                retire ? "; retired after repeated failures" : "; restarting");
    pthread_mutex_unlock(&p->lock);
    if (retire) {
        s->retired = true;
        return SEARCH_RETIRED;
    }
    return SEARCH_RETRY;
}

/* isready -> readyok: the caller's deadline, or 120 s (NNUE and GPU engines load long). */
static int64_t ready_deadline_ms(const Pool *p) { return p->o.ready_ms > 0 ? p->o.ready_ms : 120000; }

/* Starts slot i's engine and does the handshake. */
static SearchStatus slot_start(Pool *p, int i) {
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
    if (!engine_start_ex(&s->e, s->cmd, ENGINE_STDERR_CAPTURE, err, sizeof err))
        return slot_fail(p, i, "%s", err);
    if (s->starts++)
        s->restarts++;
    if (!engine_usi(&s->e, p->o.startup_ms > 0 ? p->o.startup_ms : 30000, err, sizeof err))
        return p->stop ? SEARCH_STOPPED : slot_fail(p, i, "%s", err);
    for (int k = 0; k < p->o.n_options; k++)
        if (!engine_setoption(&s->e, p->o.options[k].name, p->o.options[k].value) && !s->done && !s->restarts) {
            pthread_mutex_lock(&p->lock);
            fprintf(p->o.warn, "engine #%d (%s) has no option %s: not sent\n", i + 1, slot_name(s),
                    p->o.options[k].name);
            pthread_mutex_unlock(&p->lock);
        }
    s->has_multipv = engine_option_name(&s->e, "MultiPV") != NULL;
    s->cur_mpv = 0;
    if (!engine_isready(&s->e, ready_deadline_ms(p), err, sizeof err))
        return p->stop ? SEARCH_STOPPED : slot_fail(p, i, "%s", err);
    engine_send(&s->e, "usinewgame");
    s->fresh = true;
    s->running = true;
    return SEARCH_OK;
}

static void go_line(const SearchBudget *b, char *buf, size_t len) {
    if (b->go_raw)
        snprintf(buf, len, "go %s", b->go_raw);
    else if (b->nodes)
        snprintf(buf, len, "go nodes %" PRIu64, b->nodes);
    else if (b->movetime)
        snprintf(buf, len, "go movetime %" PRId64, b->movetime);
    else
        snprintf(buf, len, "go depth %d", b->depth > 0 ? b->depth : 8);
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
        SearchStatus st = slot_start(p, i);
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
    char sfen[SFEN_MAX], line[ENGINE_LINE_MAX], go[600];
    position_to_sfen(pos, sfen, true);
    size_t plen = strlen(sfen) + 16;
    char *posline = malloc(plen);
    if (!posline)
        return SEARCH_RETRY;
    snprintf(posline, plen, "position sfen %s", sfen);
    go_line(b, go, sizeof go);
    engine_drain(&s->e);
    if (p->o.newgame_each && !s->fresh) {
        char err[256];
        if (!engine_isready(&s->e, ready_deadline_ms(p), err, sizeof err)) {
            free(posline);
            return p->stop ? SEARCH_STOPPED : slot_fail(p, i, "%s", err);
        }
        engine_send(&s->e, "usinewgame");
    }
    s->fresh = false;
    bool sent = engine_send(&s->e, posline) && engine_send(&s->e, go);
    free(posline);
    if (!sent)
        return slot_fail(p, i, "%s", "engine gone (cannot write to it)");
    MultiPvLines *lines = malloc(sizeof *lines);
    if (!lines)
        return SEARCH_RETRY;
    multipv_lines_init(lines, pos, want);
    int64_t limit = p->o.timeout_ms > 0 ? p->o.timeout_ms : engine_pool_default_timeout(b);
    int64_t deadline = engine_now_us() + limit * 1000;
    int junk = 0;
    SearchStatus st = SEARCH_OK;
    Move best = MOVE_NONE, ponder = MOVE_NONE;
    for (;;) {
        EngineRead r = engine_read_line(&s->e, line, sizeof line, deadline);
        if (r == ENGINE_READ_EOF) {
            st = slot_fail(p, i, "%s", "engine exited during the search");
            break;
        }
        if (r == ENGINE_READ_TIMEOUT) {
            char t[64];
            snprintf(t, sizeof t, "%" PRId64, limit);
            st = slot_fail(p, i, "no bestmove within %s ms (--engine-timeout)", t);
            break;
        }
        if (r == ENGINE_READ_ABORTED) {
            /* Ctrl-C: stop the engine, collect its bestmove, keep it for a clean quit */
            s->e.abort_flag = NULL;
            engine_send(&s->e, "stop");
            int64_t d = engine_now_us() + (int64_t)ENGINE_STOP_WAIT_MS * 1000;
            while (engine_read_line(&s->e, line, sizeof line, d) == ENGINE_READ_OK && strncmp(line, "bestmove", 8)) {
            }
            s->e.abort_flag = &p->stop;
            st = SEARCH_STOPPED;
            break;
        }
        UsiInfo in;
        char why[160] = "";
        if (usi_info_parse(line, pos, &in, why, sizeof why)) {
            if (in.pv_illegal)
                bad_line(p, i, sfen, line, "a PV move that is not legal; the PV stops before it", &out->warnings);
            if (in.has_nodes && in.nodes > out->nodes)
                out->nodes = in.nodes;
            multipv_lines_add(lines, &in);
            if (usi_info_is_complete(&in) && in.multipv <= want && in.depth > out->depth)
                out->depth = in.depth;
            continue;
        }
        UsiBestmove bm = usi_bestmove_parse(line, pos, &best, &ponder);
        if (bm == USI_BESTMOVE_NO) {
            if (!strncmp(line, "info", 4))
                bad_line(p, i, sfen, line, why[0] ? why : "malformed", &out->warnings);
            else if (++junk > 1000) {
                st = slot_fail(p, i, "%s", "printed more than 1000 lines that are no USI");
                break;
            }
            continue;
        }
        if (bm == USI_BESTMOVE_BAD)
            bad_line(p, i, sfen, line, "not a legal move", &out->warnings);
        break;
    }
    if (st == SEARCH_OK) {
        multipv_lines_answer(lines, out);
        if (!out->n && best != MOVE_NONE) {
            SearchCandidate *c = &out->c[out->n++];
            memset(c, 0, sizeof *c);
            c->move = move_to_move16(best);
            c->ponder = ponder == MOVE_NONE ? MOVE_NONE : move_to_move16(ponder);
        }
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
