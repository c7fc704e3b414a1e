/* minimax_internal.h - the graph of minimax.c, shared with its streaming front end
 * (minimax_file.c): the node and edge layout, the child filters, the edge finding and the
 * propagation steps of minimax.h. Not for use outside src/bookgen/minimax*.c.
 *
 * Both front ends build the same graph (one node per book position, numbered in the
 * order the book IR would number them) and run the same steps on it, so that their
 * outputs are the same bytes; they differ only in where the positions and moves come from
 * (the IR, or the file read again) and where the results go. */
#ifndef HAYANAGI_BOOKGEN_MINIMAX_INTERNAL_H
#define HAYANAGI_BOOKGEN_MINIMAX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "bookgen/minimax.h"
#include "shogi/movegen.h"
#include "util/record_file.h"
#include "util/record_sort.h"

#define NO_NEXT UINT32_MAX

typedef struct {
    int16_t value;
    uint16_t depth;
} VD;

enum { MINIMAX_VALUE_MAX = 32000, MINIMAX_VALUE_INF = 32767 };

/* x better than y for the side to move (minimax.h: of equal scores the shorter path wins
 * when the score is >= 0, the longer when it is < 0; a perpetual-check move never). A
 * strict order: the best of several values does not depend on their order. */
static inline bool vd_better(VD x, VD y) {
    if (x.value != y.value)
        return x.value > y.value;
    if (x.depth == MINIMAX_DEPTH_PERPETUAL_CHECK)
        return false;
    if (y.depth == MINIMAX_DEPTH_PERPETUAL_CHECK)
        return true;
    return x.value >= 0 ? x.depth < y.depth : x.depth > y.depth;
}

/* A node's value for its parent from its best move: negated, one ply deeper. */
static inline VD for_parent(VD v) {
    VD r = {(int16_t)-v.value, (uint16_t)(v.depth + 1 > MINIMAX_DEPTH_MAX ? MINIMAX_DEPTH_MAX : v.depth + 1)};
    return r;
}

/* The best of some of a node's moves, folded in one at a time in any order (*has: at
 * least one was), for the out-of-core path, which meets a node's moves in several files. */
static inline void vd_fold(VD *best, bool *has, VD v) {
    if (!*has || vd_better(v, *best))
        *best = v;
    *has = true;
}

/* A node's value for its parent from the best of all its moves (has: it has one), as
 * minimax.c's best_for_parent() computes it, from its start value. */
static inline VD vd_settled(VD best, bool has) {
    VD start = {-MINIMAX_VALUE_INF, MINIMAX_DEPTH_MAX};
    return for_parent(has && vd_better(best, start) ? best : start);
}

/* 8 bytes. */
typedef struct {
    uint32_t next; /* child node, NO_NEXT for a leaf */
    int16_t leaf;  /* a leaf's score; for an inner edge, 1 when it leads to the mirror */
    Move16 move;
} Edge;

/* 12 bytes: the flags share the word of n. */
typedef struct {
    uint32_t first; /* edges */
    VD vd;          /* value for the parent */
    uint16_t n;
    bool settled : 1, checked : 1, loop : 1, visiting : 1, built : 1;
} Node;

typedef struct {
    Node *nodes;
    Edge *edges;
} Graph;

/* Two sets of Zobrist keys (position_key()): those of the book's positions (FILTER_BOOK)
 * and, with flipped, those of their colour-flipped twins (FILTER_MIRROR), as blocked Bloom
 * filters: a key sets three bits of one 64-bit word, the word of the same block in both
 * sets side by side, so a probe of both costs one cache line; 16 bits per position and set,
 * about 1% false hits and no false misses. A legal move whose key after the move (a few
 * xors, no move made) misses the book set cannot reach a book position, and one that also
 * misses the mirror set cannot reach a mirror: only the few others are made, encoded and
 * looked up. */
enum { FILTER_BOOK, FILTER_MIRROR };

typedef struct {
    uint64_t *words; /* blocks of `sets` words */
    uint64_t mask;   /* blocks - 1, a power of two minus one */
    int sets;        /* 1, or 2 with the mirror set */
} ChildFilters;

static inline uint64_t filter_pattern(uint64_t key) {
    return 1ull << (key * 0x9E3779B97F4A7C15ull >> 58) | 1ull << (key * 0xC2B2AE3D27D4EB4Full >> 58) |
           1ull << (key * 0xD6E8FEB86659FD93ull >> 58);
}

static inline uint64_t *filter_word(const ChildFilters *f, int set, uint64_t key) {
    return &f->words[((key >> 1) & f->mask) * (uint64_t)f->sets + (uint64_t)set]; /* bit 0: the side to move */
}

static inline void filter_add(ChildFilters *f, int set, uint64_t key) {
    *filter_word(f, set, key) |= filter_pattern(key);
}

static inline bool filter_may_hold(const ChildFilters *f, int set, uint64_t key) {
    uint64_t p = filter_pattern(key);
    return (*filter_word(f, set, key) & p) == p;
}

/* Sizes f for n positions and `sets` sets, all empty (f->words is the caller's to free).
 * Returns false when memory runs out. */
bool minimax_filter_init(ChildFilters *f, size_t n, int sets);

/* Finds the node of a book position by its key, whose position_key() is *zob when zob is
 * non-null: true and *id, false when absent. */
typedef bool (*ChildFindFn)(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id);

/* Where the edges of the nodes go, one node after another. */
typedef struct {
    const MinimaxOptions *opt;
    const ChildFilters *filters; /* NULL: every candidate move is encoded and looked up */
    ChildFindFn find;
    const void *find_ctx;
    Node *nodes;
    Edge *edges; /* owned (malloc); node->first indexes it */
    size_t ne, cap;
    uint64_t converged, mirrored;
} EdgeSink;

/* Appends the edges of node id, whose position is pos (restored on return) and whose book
 * moves are list, and sets the node's n, first, checked, built and settled (no child).
 * gen is scratch for MAX_MOVES moves. Returns false when memory runs out. */
bool minimax_node_edges(EdgeSink *s, uint32_t id, Position *pos, const BookMoveList *list, ExtMove *gen);

/* Step 1 (minimax.h) over the n nodes. Returns false when memory runs out. */
bool minimax_settle(Graph *g, size_t n, MinimaxStats *stats);

/* Steps 2-4 over the nodes step 1 left. Returns false when memory runs out. */
bool minimax_propagate(Graph *g, size_t n, MinimaxStats *stats);

/* Step 5 for node id: its moves sorted by (score, depth) into out->moves, ponder and
 * count taken from old (the position's moves as read). Returns their number. */
int minimax_node_result(const Graph *g, uint32_t id, const BookMoveList *old, BookMoveList *out);

/* A twin's book move m as the move of the position it is the twin of (minimax.h,
 * flipped): the move and its ponder seen from the other side, the rest as is. */
static inline BookMove minimax_mirror_move(BookMove m) {
    m.move = book_move_flip(m.move);
    m.ponder = m.ponder == MOVE_NONE ? MOVE_NONE : book_move_flip(m.ponder);
    return m;
}

/* The identity the file paths give a position (minimax_file.c): zob[0] its
 * position_key(), chk[0] 32 bits of its PackedSfen's book_key_hash(), from entry (one
 * position, id 0) and the position as parsed; with flipped, zob[1] and chk[1] the same of
 * its colour-flipped twin. Returns false with the reason in why when the position does
 * not build. */
bool minimax_entry_keys(const Book *entry, const Position *parsed, bool flipped, Key zob[2], uint32_t chk[2], char *why,
                        size_t why_len);

/* ---- out of core (minimax_sweep.c, minimax_sweep_settle.c, minimax_sweep_twins.c) ---- */

/* A position's identity (minimax_entry_keys()) and ordinal; files of them are sorted by
 * (zob, chk, ord). The twins' keys are the same records: the twin's identity, the
 * position's ordinal. */
typedef struct {
    uint64_t zob;
    uint32_t chk, ord;
} KeyRec;

/* An inner edge: the question number q is the order minimax_node_edges() asked for its
 * child in, which is the edge's order among the node's inner edges. Files of edges are
 * sorted by (child, parent, q). */
typedef struct {
    uint32_t child, parent, q;
} EdgeRec;

/* A position not settled yet: its inner edges not resolved, the best of its resolved and
 * leaf moves (vd_fold(); OPEN_HAS_BEST: there was one), whether it is in check. */
enum { OPEN_CHECKED = 1, OPEN_HAS_BEST = 2 };
typedef struct {
    uint32_t ord, remaining;
    VD best;
    uint32_t flags;
} OpenRec;

/* A settled position's value for its parent (also a resolved edge's, by parent). */
typedef struct {
    uint32_t ord;
    VD vd;
} ValRec;

/* A position's final value, and whether it is a perpetual-check loop position in check. */
typedef struct {
    uint32_t ord;
    VD vd;
    uint32_t loop_checked;
} FinRec;

typedef struct {
    const MinimaxOptions *opt;
    uint64_t memory;           /* --memory: each sort a quarter, the core three quarters */
    const char *tmpdir, *near; /* where the scratch files go (record_file.h) */
    uint64_t total;            /* positions */
} SweepEnv;

/* Steps 1-4 of minimax.h on files: edges holds every inner edge (by child; read, kept),
 * settled the positions without an inner edge and open the others (by ordinal; taken
 * over and closed). Every position's final value goes to fin; stats gets settled,
 * check_loop and rounds, *sweeps the sweeps step 1 took. Returns false with the reason
 * in err: a scratch file fails, Ctrl-C, or the core does not fit in three quarters of
 * env->memory. */
/* After the i-th record of a pass over records: the progress every 65536 records, and a
 * stop on Ctrl-C (interrupt.h). Returns false with "interrupted" in err. */
bool minimax_sweep_tick(const SweepEnv *env, uint64_t i, char *err, size_t err_len);

/* A sort of size-byte records by cmp in a quarter of env->memory, its runs in env's
 * scratch place (record_sort.h; the caller closes it). NULL with "out of memory" in err. */
RecordSort *minimax_sweep_open_sort(const SweepEnv *env, size_t size, RecordCompare cmp, char *err, size_t err_len);

bool minimax_sweep_settle(const SweepEnv *env, RecordFile *edges, RecordFile *settled, RecordFile *open,
                          RecordSort *fin, MinimaxStats *stats, uint64_t *sweeps, char *err, size_t err_len);

/* Colour-flipped twins out of core (minimax_sweep_twins.c). keys holds every position's
 * KeyRec and asks every position's twin's (sorts not finished yet, taken over: they are
 * read and closed here, whatever the result); keys_out gets
 * every KeyRec of keys in its order. The positions whose twin is in the book are counted
 * into *twins, and their twins' moves, mirrored (minimax_mirror_move()), go to moves (a
 * new record file, left at its start; nothing made when no twin is found), read from in
 * once more when there is one. Returns false with the reason in err. */
bool minimax_twins_find(const SweepEnv *env, const char *in, RecordSort *keys, RecordSort *asks, RecordFile *keys_out,
                        RecordFile *moves, uint64_t *twins, char *err, size_t err_len);

/* One mirrored move of a twin, for position ord (its idx-th): files of them are sorted by
 * (ord, idx). */
typedef struct {
    uint32_t ord, idx;
    int32_t score, depth;
    uint32_t count;
    Move16 move, ponder;
    uint8_t has_score, has_depth, pad[2];
} TwinMoveRec;

/* Reads minimax_twins_find()'s moves along with the input's entries. */
typedef struct {
    RecordFile *file; /* NULL or never made: no twins */
    TwinMoveRec next; /* the next record; next.ord is UINT32_MAX at the end */
} TwinReader;

/* Goes back to the first record. Returns false with the reason in err. */
bool minimax_twins_rewind(TwinReader *r, char *err, size_t err_len);

/* Adds to list, the moves of position ord (whose twins' moves come before it has been
 * passed), the mirrored moves of its twin that it lacks, as the IR path adds them
 * (minimax.c: at the end, in the twin's order, merged as book_add_move() merges; *added
 * counts them). Returns false with the reason in err: a read error, or more than
 * BOOK_MAX_MOVES moves (where the IR path fails too). */
bool minimax_twins_apply(TwinReader *r, uint32_t ord, BookMoveList *list, uint64_t *added, char *err, size_t err_len);

#endif
