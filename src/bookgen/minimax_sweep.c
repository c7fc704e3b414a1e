/* minimax_sweep.c - book minimax of a sorted DB2016 file whose graph does not fit in
 * memory (minimax.h, book_minimax_sweep()): the steps of minimax.h on sorted files.
 *
 * A position is numbered by its ordinal in the file (its node id in the other paths).
 * Every join below is a merge of two streams sorted on the same field, each sorted by
 * util/record_sort.h, so the memory is a few sort buffers whatever the book's size.
 *   1. keys: each position's Zobrist key and 32 bits of its PackedSfen hash (the identity
 *      minimax_file.c uses; two book positions agreeing on both are refused) with its
 *      ordinal, sorted by key; the keys also go into a child filter (minimax_internal.h).
 *      With flipped, each position's twin's key goes to a second sort and to the mirror
 *      filter, and minimax_sweep_twins.c finds the positions whose twin is in the book
 *      and hands their twins' mirrored moves to steps 2, 3 and 6, which add them to the
 *      moves read as the IR path adds them before it finds the edges.
 *   2. children: each position's edges are found by minimax_node_edges(), the code of the
 *      other paths, with a lookup that writes every child key it is asked for (with the
 *      parent and the question's number) and answers "not in the book"; the questions,
 *      sorted by key and joined with the keys, become the hits, sorted by (parent,
 *      question). With flipped, a move's mirror (book_key_flipped_after_move()) is asked
 *      after its own key where the mirror filter lets it; step 3 asks it only when the
 *      own key missed, so its number and hit are passed over there (question()).
 *   3. edges: minimax_node_edges() again, its lookup now answered from the hits in the
 *      order it asks, builds each position's real edge list (duplicates and leaf moves as
 *      in memory): inner edges (child, parent, question) sorted by child; the positions
 *      whose moves all leave the book are settled at once (their values sorted by
 *      ordinal), the others written with their count of inner edges and the best of their
 *      leaf moves.
 * Steps 4 and 5 are minimax_sweep_settle.c's (minimax_internal.h), on record files
 * (util/record_file.h):
 *   4. sweeps (step 1): the open edges joined with the values settled in the last sweep
 *      give resolved values, sorted by parent and merged into the open positions; one
 *      whose edges are all resolved is settled with the best of them, negated, one ply
 *      deeper. A settled value is the negamax of the acyclic part below it, whatever the
 *      order it is found in (vd_better() is a strict order), so this is step 1's result.
 *      The sweeps are as many as the longest path to a leaf among the settled positions,
 *      and each reads only the edges still open.
 *   5. core (steps 2-4): the positions never settled (cycles and what leads to them) and
 *      the edges between them are loaded as a graph, each position's settled and leaf
 *      moves folded into one edge to a settled node holding their best (the best of a
 *      list does not depend on its order), its inner edges in their order; then
 *      minimax_propagate(), the in-memory code, over it. Settled positions are never on a
 *      perpetual-check loop (nothing below them comes back), so they need no other role.
 *   6. writing: every inner edge joined with its child's final value (and whether it is a
 *      perpetual-check loop position in check), sorted by (parent, question); each entry
 *      of the file, read once more, gets its edges from minimax_node_edges() answered from
 *      that stream, and minimax_node_result() and the DB2016 writer as in
 *      minimax_file.c: the same bytes.
 * Exactness: the same as the in-memory path whenever its perpetual-check pruning (step 2)
 * ends before its 256 rounds, which a chain of checks two plies apart over more than 256
 * book positions would need. The core must fit in three quarters of the memory; else the
 * run fails and says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book/db2016.h"
#include "bookgen/minimax.h"
#include "bookgen/minimax_internal.h"
#include "shogi/packed_sfen.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/record_sort.h"
#include "util/record_file.h"

/* ---- records ---- */

typedef struct {
    uint64_t zob;
    uint32_t chk, parent, q, pad;
} AskRec;

typedef struct {
    uint32_t parent, q, child;
} HitRec;

typedef struct {
    uint32_t parent, q;
    VD vd;
    uint32_t loop_checked;
} OutRec;

#define CMP(a, b)                                                                                                      \
    if ((a) != (b))                                                                                                    \
    return (a) < (b) ? -1 : 1

static int cmp_key(const void *a, const void *b) {
    const KeyRec *x = a, *y = b;
    CMP(x->zob, y->zob);
    CMP(x->chk, y->chk);
    CMP(x->ord, y->ord);
    return 0;
}

static int cmp_ask(const void *a, const void *b) {
    const AskRec *x = a, *y = b;
    CMP(x->zob, y->zob);
    CMP(x->chk, y->chk);
    CMP(x->parent, y->parent);
    CMP(x->q, y->q);
    return 0;
}

static int cmp_hit(const void *a, const void *b) {
    const HitRec *x = a, *y = b;
    CMP(x->parent, y->parent);
    CMP(x->q, y->q);
    return 0;
}

static int cmp_edge(const void *a, const void *b) {
    const EdgeRec *x = a, *y = b;
    CMP(x->child, y->child);
    CMP(x->parent, y->parent);
    CMP(x->q, y->q);
    return 0;
}

static int cmp_fin(const void *a, const void *b) {
    const FinRec *x = a, *y = b;
    CMP(x->ord, y->ord);
    return 0;
}

static int cmp_out(const void *a, const void *b) {
    const OutRec *x = a, *y = b;
    CMP(x->parent, y->parent);
    CMP(x->q, y->q);
    return 0;
}

/* ---- the run ---- */

typedef struct {
    const MinimaxOptions *opt;
    uint64_t memory;
    const char *tmpdir, *out;
    char *err;
    size_t err_len;
    bool failed; /* err is set by a callback */
    size_t n;    /* the current entry's ordinal */
    size_t total;
    ChildFilters filters;
    /* one node's edges */
    EdgeSink sink;
    Node *mini; /* 1 + MAX_MOVES: the node, then the children of its edges (writing) */
    ExtMove *gen;
    BookMoveList *list, *res;
    uint32_t q;           /* questions asked for this node */
    uint32_t *child_of;   /* by question (edges) */
    uint32_t nmini;       /* children set in mini (writing) */
    RecordSort *sort_in;  /* the stream a pass writes into */
    RecordSort *sort_out; /* the stream a pass reads from */
    const void *cur;      /* its current record, NULL at its end */
    RecordFile settled, open;
    RecordSort *twin_asks; /* pass 1 with flipped: each position's twin's key */
    RecordFile twin_file;  /* the twins' moves (minimax_sweep_twins.c) */
    TwinReader twins;
    uint64_t twin_moves; /* moves a pass took from twins */
    uint64_t edges_inner;
    FILE *f; /* writing */
    uint64_t written_positions, written_moves;
    MinimaxStats *stats;
} Sweep;

static bool sweep_fail(Sweep *s, const char *what) {
    if (!s->failed)
        error_set(s->err, s->err_len, "position %zu: %s", s->n, what);
    s->failed = true;
    return false;
}

static bool advance(Sweep *s) {
    char e[256];
    int k = record_sort_next(s->sort_out, &s->cur, e, sizeof e);
    if (k < 0)
        return sweep_fail(s, e);
    if (k == 0)
        s->cur = NULL;
    return true;
}

static RecordSort *open_sort(Sweep *s, size_t size, RecordCompare cmp) {
    SweepEnv env = {.memory = s->memory, .tmpdir = s->tmpdir, .near = s->out};
    return minimax_sweep_open_sort(&env, size, cmp, s->err, s->err_len);
}

static bool entry_position(Sweep *s, const Position *parsed, Position *pos, StateInfo *st) {
    char why[128];
    if (!position_from_parts(pos, st, parsed->board, parsed->hand, parsed->side, 1, why, sizeof why))
        return sweep_fail(s, why);
    return true;
}

/* After each entry of a pass: the progress, and a stop on Ctrl-C (interrupt.h; the
 * caller's scope). */
static bool tick(Sweep *s) {
    s->n++;
    if ((s->n & 4095) == 0) {
        if (s->opt->progress)
            progress_update(s->opt->progress, s->n);
        if (interrupt_requested())
            return sweep_fail(s, "interrupted");
    }
    return true;
}

/* The same for the i-th record of a join or a sweep. */
static bool tick_records(Sweep *s, uint64_t i) {
    if ((i & 65535) == 0) {
        if (s->opt->progress)
            progress_update(s->opt->progress, i);
        if (interrupt_requested())
            return error_set(s->err, s->err_len, "interrupted");
    }
    return true;
}

/* pass 1: the keys */
static bool key_entry(void *ctx, Book *entry, const Position *parsed) {
    Sweep *s = ctx;
    Key zob[2];
    uint32_t chk[2];
    char e[256];
    if (!minimax_entry_keys(entry, parsed, s->opt->flipped, zob, chk, e, sizeof e))
        return sweep_fail(s, e);
    KeyRec r = {.zob = zob[0], .chk = chk[0], .ord = (uint32_t)s->n};
    filter_add(&s->filters, FILTER_BOOK, r.zob);
    if (!record_sort_add(s->sort_in, &r, e, sizeof e))
        return sweep_fail(s, e);
    if (s->opt->flipped) {
        KeyRec t = {.zob = zob[1], .chk = chk[1], .ord = (uint32_t)s->n};
        filter_add(&s->filters, FILTER_MIRROR, t.zob);
        if (!record_sort_add(s->twin_asks, &t, e, sizeof e))
            return sweep_fail(s, e);
    }
    return tick(s);
}

/* pass 2: every child key asked for, answered "not in the book"; a mirror's key comes
 * without its Zobrist key (minimax_node_edges()) */
static bool ask_find(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id) {
    Sweep *s = (Sweep *)ctx;
    (void)id;
    uint32_t q = s->q++; /* numbered whatever the answer: the later passes count the same */
    Key z, twin;
    if (zob)
        z = *zob;
    else if (!packed_sfen_keys(key, &z, &twin))
        return false; /* not a position: in no book */
    AskRec r = {.zob = z, .chk = (uint32_t)book_key_hash(key), .parent = (uint32_t)s->n, .q = q};
    char e[256];
    if (!record_sort_add(s->sort_in, &r, e, sizeof e))
        sweep_fail(s, e);
    return false;
}

static bool node_edges(Sweep *s, Book *entry, const Position *parsed) {
    Position pos;
    StateInfo st;
    if (!entry_position(s, parsed, &pos, &st))
        return false;
    book_position_moves(entry, 0, s->list);
    char e[256];
    if (!minimax_twins_apply(&s->twins, (uint32_t)s->n, s->list, &s->twin_moves, e, sizeof e))
        return sweep_fail(s, e);
    s->q = 0;
    s->nmini = 0;
    s->sink.ne = 0;
    if (!minimax_node_edges(&s->sink, 0, &pos, s->list, s->gen))
        return sweep_fail(s, "out of memory");
    return !s->failed;
}

static bool ask_entry(void *ctx, Book *entry, const Position *parsed) {
    Sweep *s = ctx;
    if (!node_edges(s, entry, parsed))
        return false;
    return tick(s);
}

/* The number pass 2 gave the question minimax_node_edges() asks now, whose answer is a
 * record (parent, q) of the stream read, or none (then *rec is NULL). Pass 2 answered every
 * question "no", so it asked after each key of a book position that of its mirror where
 * the mirror filter let it (flipped); when that position is in the book, the mirror is
 * not asked now, and its number (and any answer to it) is passed over. */
static uint32_t question(Sweep *s, const Key *zob, const void **rec) {
    uint32_t q = s->q++, pq[2]; /* HitRec and OutRec begin with parent, q */
    while (s->cur) {
        memcpy(pq, s->cur, sizeof pq);
        if ((pq[0] == s->n && pq[1] >= q) || pq[0] > s->n || !advance(s))
            break;
    }
    *rec = s->cur && pq[0] == s->n && pq[1] == q ? s->cur : NULL;
    if (*rec && zob && s->opt->flipped && filter_may_hold(&s->filters, FILTER_MIRROR, *zob))
        s->q++;
    return q;
}

/* pass 3: the lookups answered from the hits, in the order they are asked */
static bool hit_find(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id) {
    Sweep *s = (Sweep *)ctx;
    (void)key;
    const void *r;
    uint32_t q = question(s, zob, &r);
    if (!r)
        return false;
    s->child_of[q] = ((const HitRec *)r)->child;
    *id = q + 1;
    advance(s);
    return true;
}

static bool edge_entry(void *ctx, Book *entry, const Position *parsed) {
    Sweep *s = ctx;
    if (s->n >= s->total)
        return sweep_fail(s, "the input changed while it was read");
    if (!node_edges(s, entry, parsed))
        return false;
    VD best = {0, 0};
    bool has = false;
    uint32_t inner = 0;
    char e[256];
    for (size_t i = 0; i < s->sink.ne; i++) {
        const Edge *ed = &s->sink.edges[i];
        if (ed->next == NO_NEXT) {
            vd_fold(&best, &has, (VD){ed->leaf, 0});
            continue;
        }
        EdgeRec r = {.child = s->child_of[ed->next - 1], .parent = (uint32_t)s->n, .q = ed->next - 1};
        if (!record_sort_add(s->sort_in, &r, e, sizeof e))
            return sweep_fail(s, e);
        inner++;
    }
    s->edges_inner += inner;
    bool ok;
    if (!inner) {
        ValRec v = {(uint32_t)s->n, vd_settled(best, has)};
        ok = record_file_put(&s->settled, &v, e, sizeof e);
    } else {
        OpenRec o = {(uint32_t)s->n, inner, best,
                     (s->mini[0].checked ? OPEN_CHECKED : 0u) | (has ? OPEN_HAS_BEST : 0u)};
        ok = record_file_put(&s->open, &o, e, sizeof e);
    }
    if (!ok)
        return sweep_fail(s, e);
    return tick(s);
}

/* pass 4: the children's final values */
static bool out_find(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id) {
    Sweep *s = (Sweep *)ctx;
    (void)key;
    const void *r;
    question(s, zob, &r);
    if (!r)
        return false;
    const OutRec *o = r;
    Node *c = &s->mini[++s->nmini];
    *c = (Node){.vd = o->vd, .settled = true, .loop = o->loop_checked != 0, .checked = o->loop_checked != 0};
    *id = s->nmini;
    advance(s);
    return true;
}

static bool write_entry(void *ctx, Book *entry, const Position *parsed) {
    Sweep *s = ctx;
    if (s->n >= s->total)
        return sweep_fail(s, "the input changed while it was read");
    if (!node_edges(s, entry, parsed))
        return false;
    Graph g = {s->mini, s->sink.edges};
    int m = minimax_node_result(&g, 0, s->list, s->res);
    char sfen[SFEN_MAX];
    position_to_sfen(parsed, sfen, false);
    if (!book_set_moves(entry, 0, s->res->moves, m))
        return sweep_fail(s, "out of memory");
    if (!db2016_write_entry(s->f, entry, 0, sfen, true, false, s->list))
        return sweep_fail(s, "corrupt key");
    if (m > 0) {
        s->written_positions++;
        s->written_moves += (uint64_t)m;
    }
    return tick(s);
}

static void print_entry_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)ctx;
    fprintf(stderr, "warning: %s:%llu: %s\n", file, (unsigned long long)line, reason);
}

static void progress_begin(Sweep *s, const char *label, uint64_t total) {
    if (s->opt->progress)
        progress_start(s->opt->progress, s->opt->progress->out, label, total, s->opt->progress->quiet);
}

static void progress_end(Sweep *s) {
    if (s->opt->progress)
        progress_finish(s->opt->progress);
}

/* One read of the input through fn. */
static bool read_pass(Sweep *s, const char *in, Db2016EntryFn fn, const char *label, bool report, Db2016Stats *st) {
    Db2016ReadOptions ro = {.keep_comments = fn == write_entry,
                            .positions_only = fn == key_entry,
                            .on_error = report ? print_entry_error : NULL};
    progress_begin(s, label, s->total);
    s->n = 0;
    s->failed = false;
    s->twin_moves = 0;
    if (fn != key_entry && !minimax_twins_rewind(&s->twins, s->err, s->err_len)) {
        progress_end(s);
        return false;
    }
    char rerr[512];
    bool ok = db2016_read_entries(in, fn, s, &ro, st, rerr, sizeof rerr);
    progress_end(s);
    if (!ok && !s->failed)
        error_set(s->err, s->err_len, "%s", rerr);
    if (ok && s->total && s->n != s->total)
        ok = error_set(s->err, s->err_len, "%s changed while it was read", in);
    return ok;
}

/* Finishes s->sort_in and makes it the stream read (s->sort_out, s->cur). */
static bool start_reading(Sweep *s) {
    record_sort_close(s->sort_out);
    s->sort_out = s->sort_in;
    s->sort_in = NULL;
    s->cur = NULL;
    return record_sort_finish(s->sort_out, s->err, s->err_len) && advance(s);
}

/* The next key of the sort keys or, when it is NULL, of the file keyfile: 1, 0 at the
 * end, -1 with the reason in err. */
static int next_key(Sweep *s, RecordSort *keys, RecordFile *keyfile, KeyRec *k) {
    const void *kp;
    int kr = keys ? record_sort_next(keys, &kp, s->err, s->err_len) : record_file_get(keyfile, k, s->err, s->err_len);
    if (keys && kr == 1)
        *k = *(const KeyRec *)kp;
    return kr;
}

/* The keys (keys, not finished, or keyfile, sorted, when keys is NULL) joined with the
 * questions (asks) into the hits (s->sort_in). */
static bool join_hits(Sweep *s, RecordSort *keys, RecordFile *keyfile, RecordSort *asks) {
    if ((keys && !record_sort_finish(keys, s->err, s->err_len)) || !record_sort_finish(asks, s->err, s->err_len))
        return false;
    s->sort_in = open_sort(s, sizeof(HitRec), cmp_hit);
    if (!s->sort_in)
        return false;
    const void *ap;
    KeyRec k, prev = {0};
    int kr = next_key(s, keys, keyfile, &k), ar;
    bool have_prev = false;
    progress_begin(s, "minimax: join", record_sort_count(asks));
    uint64_t i = 0;
    while (kr >= 0 && (ar = record_sort_next(asks, &ap, s->err, s->err_len)) == 1) {
        const AskRec *a = ap;
        while (kr == 1 && (k.zob < a->zob || (k.zob == a->zob && k.chk < a->chk))) {
            if (have_prev && prev.zob == k.zob && prev.chk == k.chk) {
                progress_end(s);
                return error_set(s->err, s->err_len, "two positions share a 64-bit key and its check");
            }
            prev = k;
            have_prev = true;
            kr = next_key(s, keys, keyfile, &k);
        }
        if (kr == 1 && k.zob == a->zob && k.chk == a->chk) {
            HitRec h = {a->parent, a->q, k.ord};
            if (!record_sort_add(s->sort_in, &h, s->err, s->err_len))
                return false;
        }
        if (!tick_records(s, ++i)) {
            progress_end(s);
            return false;
        }
    }
    progress_end(s);
    if (kr < 0 || ar < 0)
        return false;
    /* the rest of the keys, for the collision check */
    while (kr == 1) {
        if (have_prev && prev.zob == k.zob && prev.chk == k.chk)
            return error_set(s->err, s->err_len, "two positions share a 64-bit key and its check");
        prev = k;
        have_prev = true;
        kr = next_key(s, keys, keyfile, &k);
    }
    return kr == 0;
}

/* Copies the finished sort into a plain file. */
static bool sort_to_file(Sweep *s, RecordSort *rs, RecordFile *f) {
    const void *r;
    int k;
    if (!record_sort_finish(rs, s->err, s->err_len))
        return false;
    while ((k = record_sort_next(rs, &r, s->err, s->err_len)) == 1)
        if (!record_file_put(f, r, s->err, s->err_len))
            return false;
    return k == 0 && record_file_rewind(f, s->err, s->err_len);
}

/* Every inner edge (all, by child) with its child's final value, into s->sort_in. */
static bool join_final(Sweep *s, RecordFile *all, RecordSort *fin) {
    if (!record_sort_finish(fin, s->err, s->err_len) || !record_file_rewind(all, s->err, s->err_len))
        return false;
    s->sort_in = open_sort(s, sizeof(OutRec), cmp_out);
    if (!s->sort_in)
        return false;
    const void *fp;
    int fr = record_sort_next(fin, &fp, s->err, s->err_len), er;
    EdgeRec e;
    progress_begin(s, "minimax: values", all->n);
    uint64_t i = 0;
    bool ok = fr >= 0;
    while (ok && (er = record_file_get(all, &e, s->err, s->err_len)) == 1) {
        while (fr == 1 && ((const FinRec *)fp)->ord < e.child)
            fr = record_sort_next(fin, &fp, s->err, s->err_len);
        if (fr != 1 || ((const FinRec *)fp)->ord != e.child) {
            ok = fr >= 0 && error_set(s->err, s->err_len, "position %u has no value (a bug)", e.child);
            break;
        }
        const FinRec *f = fp;
        OutRec o = {e.parent, e.q, f->vd, f->loop_checked};
        ok = record_sort_add(s->sort_in, &o, s->err, s->err_len) && tick_records(s, ++i);
    }
    progress_end(s);
    return ok && er == 0;
}

int book_minimax_sweep(const char *in, const char *out, const MinimaxOptions *opt, uint64_t memory, const char *tmpdir,
                       MinimaxStats *stats, uint64_t *sweeps, char *err, size_t err_len) {
    MinimaxOptions none = {0};
    MinimaxStats dummy;
    uint64_t sw = 0;
    if (!opt)
        opt = &none;
    if (!stats)
        stats = &dummy;
    if (!sweeps)
        sweeps = &sw;
    memset(stats, 0, sizeof *stats);
    *sweeps = 0;
    if (memory < 4 * RECORD_SORT_MEMORY_MIN)
        memory = 4 * RECORD_SORT_MEMORY_MIN;
    Sweep s = {
        .opt = opt, .memory = memory, .tmpdir = tmpdir, .out = out, .err = err, .err_len = err_len, .stats = stats};
    RecordFile edges0, v[1], o[1];
    memset(&edges0, 0, sizeof edges0);
    memset(v, 0, sizeof v);
    memset(o, 0, sizeof o);
    RecordFile keyfile = {0}; /* flipped: the keys, sorted, read twice */
    RecordSort *keys = NULL, *fin = NULL;
    int rc = -1;
    Db2016Stats st;
    /* the child filters: 16 bits a position and set (the positions guessed from the
     * file's size), or the largest power of two of blocks (64 bits, 4 positions a set)
     * within an eighth of the memory: a false hit costs a question through the sorts,
     * the mirror's (flipped) a key decoded too, so the filters take all of their eighth */
    int sets = opt->flipped ? 2 : 1;
    struct stat sb;
    uint64_t guess = stat(in, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size / 64 : 1024, blocks = 16;
    while (blocks * 2 * 8 * (uint64_t)sets <= memory / 8)
        blocks *= 2;
    if (guess > blocks * 4)
        guess = blocks * 4;
    s.twins = (TwinReader){.file = &s.twin_file, .next.ord = UINT32_MAX};
    s.mini = calloc(1 + MAX_MOVES, sizeof *s.mini);
    s.gen = malloc(sizeof(ExtMove) * MAX_MOVES);
    s.list = malloc(sizeof *s.list);
    s.res = malloc(sizeof *s.res);
    s.child_of = malloc(sizeof *s.child_of * (2 * MAX_MOVES + 2)); /* a move's key, its mirror's */
    if (!s.mini || !s.gen || !s.list || !s.res || !s.child_of || !minimax_filter_init(&s.filters, guess, sets)) {
        error_set(err, err_len, "out of memory");
        goto out;
    }
    s.sink = (EdgeSink){.opt = opt, .filters = &s.filters, .find = ask_find, .find_ctx = &s, .nodes = s.mini};
    /* 1. keys (and with flipped the twins' keys) */
    if (!(s.sort_in = open_sort(&s, sizeof(KeyRec), cmp_key)) ||
        (opt->flipped && !(s.twin_asks = open_sort(&s, sizeof(KeyRec), cmp_key))) ||
        !read_pass(&s, in, key_entry, "minimax: keys", false, &st))
        goto out;
    if (!st.sorted || st.duplicate_positions) {
        error_set(err, err_len, "%s is not sorted: sort it first (book sort --memory SIZE IN SORTED)", in);
        goto out;
    }
    s.total = s.n;
    stats->positions = s.total;
    if (s.total >= NO_NEXT / 2) {
        error_set(err, err_len, "too many positions (%zu)", s.total);
        goto out;
    }
    keys = s.sort_in;
    s.sort_in = NULL;
    SweepEnv env = {.opt = opt, .memory = memory, .tmpdir = tmpdir, .near = out, .total = s.total};
    if (opt->flipped) {
        /* the twins and their moves (minimax_sweep_twins.c, which takes the two sorts
         * over); the keys go to keyfile */
        bool made = record_file_create(&keyfile, sizeof(KeyRec), tmpdir, out, err, err_len);
        bool ok = made && minimax_twins_find(&env, in, keys, s.twin_asks, &keyfile, &s.twin_file, &stats->flipped_twins,
                                             err, err_len);
        if (!made) {
            record_sort_close(keys);
            record_sort_close(s.twin_asks);
        }
        keys = NULL;
        s.twin_asks = NULL;
        if (!ok)
            goto out;
    }
    /* 2. the children asked for */
    if (!(s.sort_in = open_sort(&s, sizeof(AskRec), cmp_ask)) ||
        !read_pass(&s, in, ask_entry, "minimax: children", true, &st))
        goto out;
    {
        RecordSort *asks = s.sort_in;
        s.sort_in = NULL;
        bool ok = join_hits(&s, keys, &keyfile, asks);
        record_sort_close(asks);
        record_sort_close(keys);
        record_file_close(&keyfile);
        keys = NULL;
        if (!ok)
            goto out;
    }
    /* 3. the edges */
    if (!start_reading(&s) || !(s.sort_in = open_sort(&s, sizeof(EdgeRec), cmp_edge)) ||
        !record_file_create(&v[0], sizeof(ValRec), tmpdir, out, err, err_len) ||
        !record_file_create(&o[0], sizeof(OpenRec), tmpdir, out, err, err_len))
        goto out;
    s.settled = v[0];
    s.open = o[0];
    s.sink.find = hit_find;
    s.sink.converged = 0;
    s.sink.mirrored = 0;
    bool ok = read_pass(&s, in, edge_entry, "minimax: edges", false, &st);
    stats->flipped_moves = s.twin_moves;
    stats->flipped_edges = s.sink.mirrored;
    v[0] = s.settled;
    o[0] = s.open;
    s.settled = (RecordFile){0};
    s.open = (RecordFile){0};
    stats->converged_moves = s.sink.converged;
    record_sort_close(s.sort_out);
    s.sort_out = NULL;
    if (!ok || !record_file_create(&edges0, sizeof(EdgeRec), tmpdir, out, err, err_len) ||
        !sort_to_file(&s, s.sort_in, &edges0))
        goto out;
    record_sort_close(s.sort_in);
    s.sort_in = NULL;
    /* 4-5. the sweeps and the core; the final values: an eighth of the memory (the core
     * takes three quarters) */
    s.memory /= 2;
    fin = open_sort(&s, sizeof(FinRec), cmp_fin);
    s.memory = memory;
    if (!fin || !minimax_sweep_settle(&env, &edges0, &v[0], &o[0], fin, stats, sweeps, err, err_len))
        goto out;
    /* 6. writing */
    if (!join_final(&s, &edges0, fin))
        goto out;
    record_sort_close(fin);
    fin = NULL;
    record_file_close(&edges0);
    if (!start_reading(&s))
        goto out;
    s.sink.find = out_find;
    AtomicFile af;
    if (!atomic_file_open(&af, out, err, err_len))
        goto out;
    fputs(DB2016_HEADER "\n", af.f);
    s.f = af.f;
    if (!read_pass(&s, in, write_entry, "minimax: writing", false, &st)) {
        atomic_file_abort(&af);
        goto out;
    }
    if (!atomic_file_commit(&af, err, err_len))
        goto out;
    stats->written_positions = s.written_positions;
    stats->written_moves = s.written_moves;
    rc = 1;
out:
    record_sort_close(keys);
    record_sort_close(s.twin_asks);
    record_file_close(&keyfile);
    record_file_close(&s.twin_file);
    record_sort_close(fin);
    record_sort_close(s.sort_in);
    record_sort_close(s.sort_out);
    record_file_close(&edges0);
    record_file_close(&v[0]);
    record_file_close(&o[0]);
    record_file_close(&s.settled);
    record_file_close(&s.open);
    free(s.filters.words);
    free(s.sink.edges);
    free(s.mini);
    free(s.gen);
    free(s.list);
    free(s.res);
    free(s.child_of);
    return rc;
}
