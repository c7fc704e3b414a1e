/* minimax_file.c - book minimax from a sorted DB2016 file into a DB2016 file without the
 * book IR (minimax.h, book_minimax_file()).
 *
 * The file is read three times, entry by entry (db2016_read_entries()):
 *   1. the index: each position's Zobrist key (position_key()) and 32 bits of its
 *      PackedSfen hash (book_key_hash()), in file order, which is the order the IR would
 *      number the positions in since a sorted file holds each position once;
 *   2. the graph: each entry's position and moves give its node's edges
 *      (minimax_node_edges(), the same code as the IR path); a child is found by its
 *      Zobrist key in the index and confirmed by the 32-bit hash;
 *   3. the output: each entry's moves are replaced by its node's result
 *      (minimax_node_result()) and written as the DB2016 writer writes a position, in file
 *      order, which is the writer's SFEN order.
 * Memory per position: the index 12 bytes (the key's top bits with the id below them,
 * sorted, and the hash check) plus a directory of about 1 byte, the child filters 2 or 4,
 * the node 12, and 8 per edge; the index and filters go before the propagation, whose
 * parent lists take 12 bytes plus 4 per inner edge. About 60 bytes a position with 3.5
 * moves, against the IR's 95 plus the writer's SFEN arena of 110.
 *
 * Collisions. Two positions of the book whose keys agree in the top bits and whose checks
 * agree are refused (the caller falls back to the IR); a child that is not in the book is
 * taken for a book position only when 64 - idbits + 32 bits agree by chance (about 2^-75
 * a probe at 2 M positions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/db2016.h"
#include "bookgen/minimax.h"
#include "bookgen/minimax_internal.h"
#include "shogi/packed_sfen.h"
#include "util/atomic_file.h"
#include "util/error.h"

typedef struct {
    uint64_t *keys; /* sorted; the Zobrist key's top 64 - idbits bits, the id below */
    uint32_t *chk;  /* by id */
    uint32_t *dir;  /* bucket (top dbits bits) -> first index in keys; 2^dbits + 1 entries */
    int idbits, dbits;
    size_t n;
} KeyIndex;

static uint32_t key_check(const BookKey *k) { return (uint32_t)book_key_hash(k); }

static bool index_find(const KeyIndex *x, Key z, uint32_t chk, uint32_t *id) {
    uint64_t top = z >> x->idbits, idmask = ((uint64_t)1 << x->idbits) - 1;
    size_t b = (size_t)(z >> (64 - x->dbits));
    for (uint32_t i = x->dir[b]; i < x->dir[b + 1]; i++) {
        uint64_t k = x->keys[i], kt = k >> x->idbits;
        if (kt > top)
            return false;
        if (kt == top && x->chk[k & idmask] == chk) {
            *id = (uint32_t)(k & idmask);
            return true;
        }
    }
    return false;
}

static bool find_in_index(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id) {
    Key z, twin;
    if (zob)
        z = *zob;
    else if (!packed_sfen_keys(key, &z, &twin))
        return false;
    return index_find(ctx, z, key_check(key), id);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    const MinimaxOptions *opt;
    char *err;
    size_t err_len;
    size_t n;
    uint64_t moves; /* the book's move lines, the most edges but converged ones */
    bool failed;    /* err is set */
    /* pass 1 */
    Key *zobs, *twins; /* by id; twins with flipped */
    uint32_t *chk, *twin_chk;
    size_t cap;
    /* pass 2 */
    KeyIndex *index;
    EdgeSink *sink;
    ExtMove *gen;
    BookMoveList *list, *out;
    /* pass 3 */
    const Graph *g;
    FILE *f;
    uint64_t written_positions, written_moves;
} Pass;

static bool pass_fail(Pass *p, const char *what) {
    error_set(p->err, p->err_len, "position %zu: %s", p->n, what);
    p->failed = true;
    return false;
}

static bool grow(void **a, size_t cap, size_t size) {
    void *q = realloc(*a, cap * size);
    if (q)
        *a = q;
    return q != NULL;
}

bool minimax_entry_keys(const Book *entry, const Position *parsed, bool flipped, Key zob[2], uint32_t chk[2], char *why,
                        size_t why_len) {
    /* the keys from the parsed position: cheaper than decoding the PackedSfen */
    BookKey k, fk;
    Position pos, twin;
    StateInfo st, twin_st;
    book_position_key(entry, 0, &k);
    if (!position_from_parts(&pos, &st, parsed->board, parsed->hand, parsed->side, 1, why, why_len))
        return false;
    zob[0] = position_key(&pos);
    chk[0] = key_check(&k);
    if (flipped) {
        /* the colour-flipped twin (book_key_flip()) */
        Piece board[SQ_NB];
        for (Square sq = 0; sq < SQ_NB; sq++) {
            Piece pc = parsed->board[SQ_NB - 1 - sq];
            board[sq] = pc == NO_PIECE ? NO_PIECE : piece_make(color_flip(piece_color(pc)), piece_type(pc));
        }
        Hand hand[COLOR_NB] = {parsed->hand[WHITE], parsed->hand[BLACK]};
        if (!position_from_parts(&twin, &twin_st, board, hand, color_flip(parsed->side), 1, why, why_len))
            return false;
        book_key_from_position(&twin, &fk);
        zob[1] = position_key(&twin);
        chk[1] = key_check(&fk);
    }
    return true;
}

static bool collect(void *ctx, Book *entry, const Position *parsed) {
    Pass *p = ctx;
    if (p->n == p->cap) {
        size_t c = p->cap ? p->cap * 2 : 1 << 16;
        if (!grow((void **)&p->zobs, c, sizeof *p->zobs) || !grow((void **)&p->chk, c, sizeof *p->chk) ||
            (p->opt->flipped &&
             (!grow((void **)&p->twins, c, sizeof *p->twins) || !grow((void **)&p->twin_chk, c, sizeof *p->twin_chk))))
            return pass_fail(p, "out of memory");
        p->cap = c;
    }
    Key zob[2];
    uint32_t chk[2];
    char why[128];
    if (!minimax_entry_keys(entry, parsed, p->opt->flipped, zob, chk, why, sizeof why))
        return pass_fail(p, why);
    p->zobs[p->n] = zob[0];
    p->chk[p->n] = chk[0];
    if (p->opt->flipped) {
        p->twins[p->n] = zob[1];
        p->twin_chk[p->n] = chk[1];
    }
    p->n++;
    return true;
}

static bool edges(void *ctx, Book *entry, const Position *parsed) {
    Pass *p = ctx;
    BookKey k;
    Position pos;
    StateInfo st;
    book_position_key(entry, 0, &k);
    if (p->n >= p->index->n || key_check(&k) != p->index->chk[p->n])
        return pass_fail(p, "the input changed while it was read");
    char why[128];
    if (!position_from_parts(&pos, &st, parsed->board, parsed->hand, parsed->side, 1, why, sizeof why))
        return pass_fail(p, "corrupt key");
    book_position_moves(entry, 0, p->list);
    if (!minimax_node_edges(p->sink, (uint32_t)p->n, &pos, p->list, p->gen))
        return pass_fail(p, "out of memory");
    p->n++;
    if (p->opt->progress && (p->n & 4095) == 0)
        progress_update(p->opt->progress, p->n);
    return true;
}

static bool write_out(void *ctx, Book *entry, const Position *parsed) {
    Pass *p = ctx;
    char sfen[SFEN_MAX];
    position_to_sfen(parsed, sfen, false); /* what the key decodes to: no decoding needed */
    book_position_moves(entry, 0, p->list);
    int m = minimax_node_result(p->g, (uint32_t)p->n, p->list, p->out);
    if (!book_set_moves(entry, 0, p->out->moves, m))
        return pass_fail(p, "out of memory");
    if (!db2016_write_entry(p->f, entry, 0, sfen, true, false, p->list))
        return pass_fail(p, "corrupt key");
    if (m > 0) { /* the writer leaves out a position without moves */
        p->written_positions++;
        p->written_moves += (uint64_t)m;
    }
    p->n++;
    if (p->opt->progress && (p->n & 4095) == 0)
        progress_update(p->opt->progress, p->n);
    return true;
}

static void print_entry_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)ctx;
    fprintf(stderr, "warning: %s:%llu: %s\n", file, (unsigned long long)line, reason);
}

/* One pass over the file. Returns false with the reason in err. */
static bool run_pass(const char *path, Db2016EntryFn fn, Pass *p, bool report, const char *label, size_t total,
                     Db2016Stats *st) {
    Db2016ReadOptions ro = {
        .keep_comments = fn != collect, .positions_only = fn == collect, .on_error = report ? print_entry_error : NULL};
    if (p->opt->progress)
        progress_start(p->opt->progress, p->opt->progress->out, label, total, p->opt->progress->quiet);
    p->n = 0;
    char rerr[512];
    bool ok = db2016_read_entries(path, fn, p, &ro, st, rerr, sizeof rerr);
    if (p->opt->progress)
        progress_finish(p->opt->progress);
    if (!ok && !p->failed)
        error_set(p->err, p->err_len, "%s", rerr);
    else if (!ok)
        error_set(p->err + strlen(p->err), p->err_len - strlen(p->err), " (%s)", path);
    return ok;
}

/* Builds the index from p->zobs and p->chk (p->zobs becomes x->keys). Returns 1, 0 when
 * two positions collide (reason in err), -1 when memory runs out. */
static int build_index(Pass *p, KeyIndex *x, char *err, size_t err_len) {
    size_t n = p->n;
    x->n = n;
    x->idbits = 1;
    while (((size_t)1 << x->idbits) < n + 1)
        x->idbits++;
    x->dbits = 1;
    while (((size_t)4 << x->dbits) < n && x->dbits < 30)
        x->dbits++;
    x->keys = p->zobs;
    p->zobs = NULL;
    x->chk = p->chk;
    p->chk = NULL;
    uint64_t idmask = ((uint64_t)1 << x->idbits) - 1;
    for (size_t id = 0; id < n; id++)
        x->keys[id] = (x->keys[id] & ~idmask) | id;
    qsort(x->keys, n, sizeof *x->keys, cmp_u64);
    x->dir = malloc((((size_t)1 << x->dbits) + 1) * sizeof *x->dir);
    if (!x->dir)
        return -1;
    size_t i = 0;
    for (size_t b = 0; b <= ((size_t)1 << x->dbits); b++) {
        while (i < n && (x->keys[i] >> (64 - x->dbits)) < b)
            i++;
        x->dir[b] = (uint32_t)i;
    }
    for (size_t j = 1; j < n; j++)
        if (x->keys[j] >> x->idbits == x->keys[j - 1] >> x->idbits) {
            /* the run of equal tops is short: compare its checks pairwise */
            for (size_t k = j; k > 0 && x->keys[k - 1] >> x->idbits == x->keys[j] >> x->idbits; k--)
                if (x->chk[x->keys[k - 1] & idmask] == x->chk[x->keys[j] & idmask]) {
                    error_set(err, err_len, "two positions share a 64-bit key and its check");
                    return 0;
                }
        }
    return 1;
}

int book_minimax_file(const char *in, const char *out, const MinimaxOptions *opt, MinimaxStats *stats, char *err,
                      size_t err_len) {
    MinimaxOptions none = {0};
    MinimaxStats dummy;
    if (!opt)
        opt = &none;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    Pass p = {.opt = opt, .err = err, .err_len = err_len};
    KeyIndex x = {0};
    ChildFilters filters = {NULL, 0, 0};
    Graph g = {NULL, NULL};
    EdgeSink sink = {0};
    int rc = -1;
    Db2016Stats st;
    if (!run_pass(in, collect, &p, false, "minimax: index", 0, &st))
        goto out;
    if (!st.sorted || st.duplicate_positions) {
        error_set(err, err_len, "%s is not sorted (book sort)", in);
        rc = 0;
        goto out;
    }
    size_t n = p.n;
    p.moves = st.moves;
    stats->positions = n;
    if (n >= NO_NEXT / 2) {
        error_set(err, err_len, "too many positions (%zu)", n);
        rc = 0;
        goto out;
    }
    if (!minimax_filter_init(&filters, n, opt->flipped ? 2 : 1))
        goto oom;
    for (size_t id = 0; id < n; id++) {
        filter_add(&filters, FILTER_BOOK, p.zobs[id]);
        if (opt->flipped)
            filter_add(&filters, FILTER_MIRROR, p.twins[id]);
    }
    int ix = build_index(&p, &x, err, err_len);
    if (ix <= 0) {
        if (ix < 0)
            goto oom;
        rc = 0;
        goto out;
    }
    if (opt->flipped) {
        /* twins share their moves first (minimax.h): that is the IR's work (or the
         * out-of-core path's), so the positions with a twin are counted and the file is
         * declined */
        for (size_t id = 0; id < n; id++) {
            uint32_t tid;
            stats->flipped_twins += filter_may_hold(&filters, FILTER_BOOK, p.twins[id]) &&
                                    index_find(&x, p.twins[id], p.twin_chk[id], &tid);
        }
        if (stats->flipped_twins) {
            error_set(err, err_len, "the book holds colour-flipped twins (%llu positions)",
                      (unsigned long long)stats->flipped_twins);
            rc = 0;
            goto out;
        }
        free(p.twins);
        free(p.twin_chk);
        p.twins = NULL;
        p.twin_chk = NULL;
    }
    g.nodes = calloc(n ? n : 1, sizeof *g.nodes);
    p.gen = malloc(sizeof(ExtMove) * MAX_MOVES);
    p.list = malloc(sizeof *p.list);
    p.out = malloc(sizeof *p.out);
    if (!g.nodes || !p.gen || !p.list || !p.out)
        goto oom;
    sink = (EdgeSink){.opt = opt, .filters = &filters, .find = find_in_index, .find_ctx = &x, .nodes = g.nodes};
    /* one block for every edge from the start: grown by doubling from small, the array
     * would leave its old copies as resident holes in the heap; pages of the block not
     * written are never touched */
    sink.cap = (size_t)p.moves + n / 8 + 4096;
    sink.edges = malloc(sink.cap * sizeof *sink.edges);
    if (!sink.edges)
        goto oom;
    p.index = &x;
    p.sink = &sink;
    if (!run_pass(in, edges, &p, true, "minimax: graph", n, &st))
        goto out;
    if (p.n != n) {
        error_set(err, err_len, "%s changed while it was read", in);
        goto out;
    }
    if (sink.ne >= NO_NEXT) {
        error_set(err, err_len, "too many moves (%zu)", sink.ne);
        goto out;
    }
    stats->converged_moves = sink.converged;
    stats->flipped_edges = sink.mirrored;
    g.edges = sink.edges;
    sink.edges = NULL;
    free(x.keys);
    free(x.chk);
    free(x.dir);
    free(filters.words);
    x = (KeyIndex){0};
    filters.words = NULL;
    if (!minimax_settle(&g, n, stats) || !minimax_propagate(&g, n, stats))
        goto oom;
    AtomicFile af;
    if (!atomic_file_open(&af, out, err, err_len))
        goto out;
    fputs(DB2016_HEADER "\n", af.f);
    p.g = &g;
    p.f = af.f;
    if (!run_pass(in, write_out, &p, false, "minimax: writing", n, &st) || p.n != n) {
        if (p.n != n && !p.failed)
            error_set(err, err_len, "%s changed while it was read", in);
        atomic_file_abort(&af);
        goto out;
    }
    if (!atomic_file_commit(&af, err, err_len))
        goto out;
    stats->written_positions = p.written_positions;
    stats->written_moves = p.written_moves;
    rc = 1;
    goto out;
oom:
    error_set(err, err_len, "out of memory");
out:
    free(p.zobs);
    free(p.chk);
    free(p.twins);
    free(p.twin_chk);
    free(p.gen);
    free(p.list);
    free(p.out);
    free(x.keys);
    free(x.chk);
    free(x.dir);
    free(filters.words);
    free(sink.edges);
    free(g.nodes);
    free(g.edges);
    return rc;
}
