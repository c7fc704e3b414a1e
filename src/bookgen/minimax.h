/* minimax.h - back-propagation of leaf evaluations through a book seen as a graph, after
 * YaneuraOu's `makebook peta_shock` (source/book/makebook2025.cpp), re-implemented.
 *
 * Every position of the book is a node; a candidate move whose resulting position is in
 * the book is an edge to that node (transpositions are shared), any other move is a leaf
 * that keeps its own score. Each node's value for its parent is the negamax of its moves
 * (score negated, depth + 1), where a move's depth is its distance to the leaf (0 for a
 * leaf move) and of two equal scores the shorter path wins when the score is >= 0, the
 * longer when it is < 0. Steps:
 *   1. nodes whose moves all end in leaves or settled nodes are settled, repeatedly;
 *   2. a perpetual-check cycle is found as the nodes in check from which a position in
 *      check of the same loop is reached two plies later, repeatedly pruned, then joined
 *      with the positions in between;
 *   3. the other unsettled nodes (cycles) start as a draw (0, depth 9999), the check-loop
 *      nodes as a loss for the checker (+-32000);
 *   4. values are propagated over all unsettled nodes until nothing changes (at most
 *      356 rounds), the check-loop nodes by a depth-first search that scores a return to
 *      the loop as a loss for the checking side (depth 9997 / 9998);
 *   5. each position's moves are written sorted by (score, depth); a move tying the best
 *      score at another depth loses 1 point, and a move into the loop where the mover is
 *      checked gets depth 9997 so it is never preferred.
 * Scores are clamped to +-32000; a move without a score counts as 0. With converge set,
 * every legal move of a position that reaches another book position is added (YaneuraOu
 * always does this; it costs a move generation per position).
 *
 * Colour-flipped twins (flipped set). A position and its colour-flipped mirror (board
 * rotated 180 degrees, colours and hands swapped, the other side to move) have the same
 * value for the side to move. YaneuraOu's peta_shock keys every node by one orientation so
 * that the two share a node, and with FlippedBook writes one of them. Here, with flipped:
 *   - a move whose resulting position is not in the book but whose mirror is becomes an
 *     edge to the mirror (so a line white reaches meets the same line reached by black);
 *   - when both twins are in the book, each gets the mirrored moves of the other that it
 *     lacks (its own entry wins for a move both hold), so both get the same value;
 *   - both are written, each in its own orientation, and the engine's FlippedBook finds
 *     either from both sides.
 */
#ifndef HAYANAGI_BOOKGEN_MINIMAX_H
#define HAYANAGI_BOOKGEN_MINIMAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "util/progress.h"

enum { MINIMAX_DEPTH_MAX = 9999, MINIMAX_DEPTH_PERPETUAL_CHECK = 9997, MINIMAX_DEPTH_PERPETUAL_CHECKED = 9998 };

typedef struct {
    bool converge;      /* add the moves that reach positions already in the book */
    bool flipped;       /* join positions with their colour-flipped twins (above) */
    int threads;        /* workers finding the edges (0 or 1 = the calling thread only) */
    Progress *progress; /* may be NULL */
} MinimaxOptions;

typedef struct {
    uint64_t positions;
    uint64_t settled;                          /* positions settled in step 1 (no cycle below them) */
    uint64_t check_loop;                       /* positions on perpetual-check loops */
    uint64_t converged_moves;                  /* moves added by converge */
    uint64_t flipped_twins;                    /* positions whose colour-flipped twin is in the book (flipped) */
    uint64_t flipped_moves;                    /* moves copied from a twin (flipped) */
    uint64_t flipped_edges;                    /* moves leading to a book position's mirror (flipped) */
    uint64_t written_positions, written_moves; /* book_minimax_file(): what OUT holds (positions with moves) */
    uint64_t rounds;                           /* propagation rounds of step 4 */
} MinimaxStats;

/* Returns a new book holding every position of in with its back-propagated moves (score
 * and depth set, ponder kept, count 1 so that the written order is the score order), or
 * NULL with the reason in err when memory runs out or a key does not decode. stats may be
 * NULL. */
/* The same, written back into b: each position's moves are replaced by its
 * back-propagated moves (no copy of the book is made, which matters for a big book).
 * Returns false with the reason in err (b then holds a partial result when the failure
 * came late; with flipped, twins' moves may have been added). */
bool book_minimax_in_place(Book *b, const MinimaxOptions *opt, MinimaxStats *stats, char *err, size_t err_len);

/* Minimax of the DB2016 book file in into the DB2016 file out (atomically; comments
 * kept), without building the book IR: the same bytes as reading in with comments,
 * book_minimax_in_place() and writing out, in about a third of the memory (minimax_file.c
 * says where it goes). in is read three times, entry by entry. Works when in is sorted
 * (each position once, in SFEN order, as `book sort` and every writer here leave it) and
 * holds no colour-flipped twins with flipped set; returns 0 with the reason in err when it
 * does not apply (the caller then takes the IR path or, for twins, which leave
 * stats->flipped_twins non-zero, the out-of-core one), 1 when out was written, -1 with the
 * reason in err on a failure (out untouched). threads is not used: one thread. */
int book_minimax_file(const char *in, const char *out, const MinimaxOptions *opt, MinimaxStats *stats, char *err,
                      size_t err_len);

/* The same as book_minimax_file() for a sorted DB2016 book whose graph does not fit in
 * memory: about `memory` bytes (256 KiB at least) plus a constant, the rest in nameless
 * scratch files in tmpdir (NULL: out's directory), by sweeps over sorted files
 * (minimax_sweep.c says how; with flipped, colour-flipped twins included, as
 * minimax_sweep_twins.c says). Returns 1 when out was written (the same bytes as the IR
 * path; *sweeps says how many sweeps step 1 took), -1 with the reason in err on a failure:
 * the input is not sorted or does not read, the disk is full, the positions on or above
 * cycles need more than three quarters of memory, or interrupt_requested()
 * (util/interrupt.h) turned true. On a failure out is untouched and no scratch file is
 * left. sweeps and stats may be NULL. */
int book_minimax_sweep(const char *in, const char *out, const MinimaxOptions *opt, uint64_t memory, const char *tmpdir,
                       MinimaxStats *stats, uint64_t *sweeps, char *err, size_t err_len);

Book *book_minimax(const Book *in, const MinimaxOptions *opt, MinimaxStats *stats, char *err, size_t err_len);

#endif
