/* minimax_sweep_twins.c - colour-flipped twins out of core (minimax.h, flipped), for
 * minimax_sweep.c.
 *
 * Before it finds the edges, the IR path gives each position whose twin is in the book the
 * twin's mirrored moves that it lacks (minimax.c, add_twin_moves()); everything after that
 * (the edges into a mirror included) is the same code on a longer move list. Out of core:
 *   1. the keys (sorted by key) joined with the twins' keys (each position's twin's key
 *      with the position's ordinal, sorted the same way) give the pairs (twin, position),
 *      sorted by twin; the keys are copied to a file on the way, for the children's join;
 *   2. one more read of the input hands each twin's moves, mirrored, to its position:
 *      records (position, index, move) sorted by position into a file;
 *   3. each pass that finds the edges reads that file along with the input
 *      (minimax_twins_apply()) and adds the moves as the IR path adds them.
 * A book without twins costs the twins' keys' sort and the join, not the read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/db2016.h"
#include "bookgen/minimax.h"
#include "bookgen/minimax_internal.h"
#include "util/error.h"
#include "util/interrupt.h"

typedef struct {
    uint32_t twin, ord;
} PairRec;

static int cmp_pair(const void *a, const void *b) {
    const PairRec *x = a, *y = b;
    if (x->twin != y->twin)
        return x->twin < y->twin ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int cmp_twin_move(const void *a, const void *b) {
    const TwinMoveRec *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool key_less(const KeyRec *a, const KeyRec *b) { return a->zob != b->zob ? a->zob < b->zob : a->chk < b->chk; }

/* Step 1: the pairs into pairs, the keys into keys_out. */
static bool join_pairs(const SweepEnv *env, RecordSort *keys, RecordSort *asks, RecordFile *keys_out, RecordSort *pairs,
                       char *err, size_t err_len) {
    if (!record_sort_finish(keys, err, err_len) || !record_sort_finish(asks, err, err_len))
        return false;
    const Progress *pr = env->opt->progress;
    if (pr)
        progress_start(env->opt->progress, pr->out, "minimax: twins' keys", env->total, pr->quiet);
    const void *kp = NULL, *ap = NULL;
    int kr = record_sort_next(keys, &kp, err, err_len), ar = kr < 0 ? -1 : record_sort_next(asks, &ap, err, err_len);
    bool ok = kr >= 0 && ar >= 0;
    uint64_t i = 0;
    while (ok && kr == 1) {
        const KeyRec *k = kp;
        while (ok && ar == 1 && key_less(ap, k))
            ar = record_sort_next(asks, &ap, err, err_len);
        while (ok && ar == 1 && !key_less(k, ap)) { /* equal: a position whose twin is k's */
            PairRec p = {k->ord, ((const KeyRec *)ap)->ord};
            ok = record_sort_add(pairs, &p, err, err_len);
            ar = record_sort_next(asks, &ap, err, err_len);
        }
        ok = ok && ar >= 0 && record_file_put(keys_out, k, err, err_len) && minimax_sweep_tick(env, ++i, err, err_len);
        if (ok)
            kr = record_sort_next(keys, &kp, err, err_len);
        ok = ok && kr >= 0;
    }
    if (pr)
        progress_finish(env->opt->progress);
    return ok && record_file_rewind(keys_out, err, err_len);
}

/* Step 2: the read of the input. */
typedef struct {
    const SweepEnv *env;
    RecordSort *pairs, *moves;
    const PairRec *cur; /* the next pair, NULL at the end */
    uint64_t n;
    BookMoveList *list;
    char *err;
    size_t err_len;
    bool failed;
} Collect;

static bool collect_fail(Collect *c) {
    c->failed = true;
    return false;
}

static bool collect_entry(void *ctx, Book *entry, const Position *parsed) {
    Collect *c = ctx;
    (void)parsed;
    if (c->cur && c->cur->twin < c->n)
        return collect_fail(c) && error_set(c->err, c->err_len, "a twin not read (a bug)");
    bool have = false;
    while (c->cur && c->cur->twin == c->n) {
        if (!have)
            book_position_moves(entry, 0, c->list);
        have = true;
        for (int i = 0; i < c->list->n; i++) {
            BookMove m = minimax_mirror_move(c->list->moves[i]);
            TwinMoveRec r;
            memset(&r, 0, sizeof r); /* the padding too: the record goes to a file */
            r.ord = c->cur->ord;
            r.idx = (uint32_t)i;
            r.score = m.score;
            r.depth = m.depth;
            r.count = m.count > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : (uint32_t)m.count;
            r.move = m.move;
            r.ponder = m.ponder;
            r.has_score = m.has_score;
            r.has_depth = m.has_depth;
            if (!record_sort_add(c->moves, &r, c->err, c->err_len))
                return collect_fail(c);
        }
        const void *p;
        int k = record_sort_next(c->pairs, &p, c->err, c->err_len);
        if (k < 0)
            return collect_fail(c);
        c->cur = k ? p : NULL;
    }
    c->n++;
    if ((c->n & 4095) == 0) {
        if (c->env->opt->progress)
            progress_update(c->env->opt->progress, c->n);
        if (interrupt_requested())
            return collect_fail(c) && error_set(c->err, c->err_len, "interrupted");
    }
    return true;
}

static bool collect_moves(const SweepEnv *env, const char *in, RecordSort *pairs, RecordSort *moves, char *err,
                          size_t err_len) {
    Collect c = {.env = env, .pairs = pairs, .moves = moves, .err = err, .err_len = err_len};
    const void *p;
    int k = record_sort_finish(pairs, err, err_len) ? record_sort_next(pairs, &p, err, err_len) : -1;
    if (k < 0)
        return false;
    c.cur = k ? p : NULL;
    c.list = malloc(sizeof *c.list);
    if (!c.list)
        return error_set(err, err_len, "out of memory");
    const Progress *pr = env->opt->progress;
    if (pr)
        progress_start(env->opt->progress, pr->out, "minimax: twins' moves", env->total, pr->quiet);
    Db2016ReadOptions ro = {0};
    char rerr[512];
    bool ok = db2016_read_entries(in, collect_entry, &c, &ro, NULL, rerr, sizeof rerr);
    if (pr)
        progress_finish(env->opt->progress);
    free(c.list);
    if (!ok && !c.failed)
        error_set(err, err_len, "%s", rerr);
    if (ok && (c.cur || c.n != env->total))
        ok = error_set(err, err_len, "%s changed while it was read", in);
    return ok;
}

bool minimax_twins_find(const SweepEnv *env, const char *in, RecordSort *keys, RecordSort *asks, RecordFile *keys_out,
                        RecordFile *moves, uint64_t *twins, char *err, size_t err_len) {
    *twins = 0;
    RecordSort *pairs = minimax_sweep_open_sort(env, sizeof(PairRec), cmp_pair, err, err_len), *ms = NULL;
    bool ok = pairs && join_pairs(env, keys, asks, keys_out, pairs, err, err_len);
    /* their buffers (a quarter of the memory each) go before the pairs are read */
    record_sort_close(keys);
    record_sort_close(asks);
    if (ok)
        *twins = record_sort_count(pairs);
    if (ok && *twins) {
        ms = minimax_sweep_open_sort(env, sizeof(TwinMoveRec), cmp_twin_move, err, err_len);
        ok = ms && collect_moves(env, in, pairs, ms, err, err_len);
        record_sort_close(pairs);
        pairs = NULL;
        ok = ok && record_sort_finish(ms, err, err_len) &&
             record_file_create(moves, sizeof(TwinMoveRec), env->tmpdir, env->near, err, err_len);
        const void *r;
        int k = 0;
        while (ok && (k = record_sort_next(ms, &r, err, err_len)) == 1)
            ok = record_file_put(moves, r, err, err_len);
        ok = ok && k == 0 && record_file_rewind(moves, err, err_len);
    }
    record_sort_close(pairs);
    record_sort_close(ms);
    return ok;
}

bool minimax_twins_rewind(TwinReader *r, char *err, size_t err_len) {
    r->next.ord = UINT32_MAX;
    if (!r->file || !r->file->t.f)
        return true;
    int k = record_file_rewind(r->file, err, err_len) ? record_file_get(r->file, &r->next, err, err_len) : -1;
    if (k == 0)
        r->next.ord = UINT32_MAX;
    return k >= 0;
}

bool minimax_twins_apply(TwinReader *r, uint32_t ord, BookMoveList *list, uint64_t *added, char *err, size_t err_len) {
    int own = list->n;
    while (r->next.ord == ord) {
        const TwinMoveRec *t = &r->next;
        bool have = t->move == MOVE_NONE;
        for (int j = 0; j < own && !have; j++)
            have = list->moves[j].move == t->move;
        if (!have) {
            /* what book_add_move() does with it: a move added before (two of the twin's
             * moves that mirror to one) takes the later one's numbers */
            int j = own;
            while (j < list->n && list->moves[j].move != t->move)
                j++;
            BookMove *m = &list->moves[j];
            if (j == list->n) {
                if (list->n == BOOK_MAX_MOVES)
                    return error_set(err, err_len, "more than %d moves with its twin's", BOOK_MAX_MOVES);
                list->n++;
                *m = (BookMove){.move = t->move,
                                .ponder = t->ponder,
                                .score = t->score,
                                .depth = t->depth,
                                .count = t->count,
                                .has_score = t->has_score,
                                .has_depth = t->has_depth};
            } else {
                uint64_t sum = m->count + t->count;
                m->count = sum > BOOK_COUNT_MAX ? BOOK_COUNT_MAX : sum;
                if (t->ponder != MOVE_NONE)
                    m->ponder = t->ponder;
                if (t->has_score) {
                    m->score = t->score;
                    m->has_score = true;
                }
                if (t->has_depth) {
                    m->depth = t->depth;
                    m->has_depth = true;
                }
            }
            ++*added;
        }
        int k = record_file_get(r->file, &r->next, err, err_len);
        if (k < 0)
            return false;
        if (k == 0)
            r->next.ord = UINT32_MAX;
    }
    return true;
}
