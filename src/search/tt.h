/* tt.h - the transposition table: clusters of three 10-byte entries in 32 bytes, with
 * generation aging. Shared by all search threads without locks: a torn entry can only
 * produce a wrong move (moves are re-validated before use) or a wrong bound. */
#ifndef HAYANAGI_SEARCH_TT_H
#define HAYANAGI_SEARCH_TT_H

#include <stddef.h>

#include "shogi/position.h"

typedef enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 } Bound;

typedef struct {
    uint16_t key16;
    uint16_t move16;
    int16_t value;
    int16_t eval;
    uint8_t depth8;   /* depth + DEPTH_OFFSET, 0 = empty */
    uint8_t genbound; /* generation (5 bits) | pv (1 bit) | bound (2 bits) */
} TTEntry;

enum { TT_CLUSTER_SIZE = 3, DEPTH_OFFSET = 7 };

typedef struct {
    TTEntry entry[TT_CLUSTER_SIZE];
    uint16_t padding;
} TTCluster;

typedef struct {
    TTCluster *table;
    size_t cluster_count;
    uint8_t generation; /* in steps of 8, leaving the low 3 bits to pv and bound */
} TranspositionTable;

/* Allocates mb megabytes (at least 1) and clears them. Returns false when the memory
 * cannot be had, leaving the old table in place. */
bool tt_resize(TranspositionTable *tt, size_t mb);
void tt_free(TranspositionTable *tt);
void tt_clear(TranspositionTable *tt);
/* Starts a new search: older entries become cheaper to replace. */
void tt_new_search(TranspositionTable *tt);

/* Finds key's entry. Returns it with *found true on a hit; otherwise returns the entry
 * to overwrite (the shallowest and oldest of the cluster) with *found false. */
TTEntry *tt_probe(TranspositionTable *tt, Key key, bool *found);
/* Starts loading key's cluster into the cache: most probes miss it (the table is far
 * larger), so the search asks for the child's cluster before making the move. */
void tt_prefetch(const TranspositionTable *tt, Key key);
void tt_save(TranspositionTable *tt, TTEntry *e, Key key, Value v, bool pv, Bound b, int depth, Move16 m, Value ev);
/* Per mille of sampled entries written in the current search. */
int tt_hashfull(const TranspositionTable *tt);

static inline Bound tt_bound(const TTEntry *e) { return (Bound)(e->genbound & 3); }
static inline bool tt_is_pv(const TTEntry *e) { return (e->genbound & 4) != 0; }
static inline int tt_depth(const TTEntry *e) { return (int)e->depth8 - DEPTH_OFFSET; }

#endif
