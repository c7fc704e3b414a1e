/* expand.h - `book expand`: grow a book where PV-MCTS says play will go (docs/mcts.md, "hayanagi book expand"; the
 * ponkotsu method).
 *
 * One round:
 *   1. From the root, follow the book's best move for both sides (highest score, then
 *      most played) until a position with fewer than min_candidates moves, or one the
 *      book does not hold: the start.
 *   2. Run PV-MCTS from the start for `playouts` playouts with the given provider (the
 *      CLI uses the alpha-beta provider with this book as PolicyBook).
 *   3. Walk the tree: every position reached by a tree edge that the book does not hold,
 *      or holds without a move, is a candidate; its count is the visits of the edges
 *      into it (transpositions add up). The subtree below it is not walked. A start the
 *      book does not hold is itself the only candidate.
 *   4. Take the `top` candidates with the most visits (ties: smaller key bytes first)
 *      and think each with MultiPV 1 (book_think with only_keys), adding them.
 * Extra starts ("other leaves of the book", as in the WCSC book article 将棋AI世界5位を支えた知識と技術): each round
 * also runs steps 2-3 from the extra_starts book positions with fewer than min_candidates moves and the smallest plies
 * (ties: key order), other than the main start; their counts are summed. After the last round the caller re-runs
 * minimax (book_minimax).
 *
 * Resuming: each round's thinking checkpoints into the think journal; after a round the
 * caller's checkpoint callback writes the book, then the journal is removed (the next
 * round starts a fresh one), and rounds_done tells where to resume.
 */
#ifndef HAYANAGI_BOOKGEN_EXPAND_H
#define HAYANAGI_BOOKGEN_EXPAND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "bookgen/think.h"
#include "mcts/mcts.h"
#include "shogi/game.h"

typedef struct {
    BookKey key;
    int ply;
    uint64_t visits;
} ExpandTarget;

typedef struct {
    uint64_t playouts;  /* per start and round (P) */
    size_t top;         /* positions thought per round (N) */
    int min_candidates; /* K */
    int rounds;         /* R: rounds to run in this call */
    int extra_starts;   /* other short book positions to start from */
    const char *root_sfen;
    MctsProvider provider;
    MctsOptions mcts;   /* tree size, threads, PUCT constants */
    ThinkOptions think; /* depth/nodes/movetime, threads, journal, progress, stop (multipv forced to 1) */
    /* Called after each finished round with its number (1-based); false aborts. */
    bool (*checkpoint)(void *ctx, const Book *b, int round);
    void *ctx;
    Progress *progress;          /* rounds; may be NULL */
    volatile sig_atomic_t *stop; /* set asynchronously to stop after the positions in flight */
} ExpandOptions;

typedef struct {
    int rounds_done;
    uint64_t candidates; /* distinct candidate positions seen, all rounds */
    uint64_t thought;    /* positions searched */
    uint64_t moves_added;
    bool interrupted;
} ExpandStats;

/* Step 1: plays the book's best moves on g (which holds the root) until the start; returns
 * the number of moves played. */
int expand_find_start(const Book *b, Game *g, int min_candidates);

/* Step 3 on a finished tree whose root is the position of start: adds each candidate's
 * visits into counts (a book of keys, as a set) and visits (indexed by the ids of counts,
 * grown as needed; *cap its capacity). Returns false when memory runs out. */
bool expand_count(const Book *b, MctsTree *t, const Game *start, Book *counts, uint64_t **visits, size_t *cap);

/* Step 4's choice: the top candidates of counts/visits, most visited first, into out
 * (room for top). Returns how many. */
size_t expand_pick(const Book *counts, const uint64_t *visits, size_t top, ExpandTarget *out);

/* Runs opt->rounds rounds on b. Returns false with the reason in err (journal, memory);
 * stats->interrupted when *stop ended it early. */
bool book_expand(Book *b, const ExpandOptions *opt, ExpandStats *stats, char *err, size_t err_len);

#endif
