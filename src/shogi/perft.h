/* perft.h - counting the leaves of the legal move tree, to check the generators. */
#ifndef HAYANAGI_SHOGI_PERFT_H
#define HAYANAGI_SHOGI_PERFT_H

#include "shogi/position.h"

typedef struct {
    uint64_t nodes;
    /* Filled only when perft_run() is asked for statistics. */
    uint64_t captures, promotions, checks, mates;
} PerftCounts;

/* Counts the leaves at depth plies below pos (depth >= 1; depth 0 counts 1). With
 * stats, also classifies the leaf moves (slower: every leaf is played). pos is restored
 * before returning. */
PerftCounts perft_run(Position *pos, int depth, bool stats);

/* perft_run that also reports the count under each root move, as it is found, through
 * on_move(ctx, move, nodes) (`perft divide`). Returns the totals. */
PerftCounts perft_divide(Position *pos, int depth, bool stats, void (*on_move)(void *ctx, Move m, uint64_t nodes),
                         void *ctx);

#endif
