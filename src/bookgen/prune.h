/* prune.h - `book prune`: keep the part of a book that games from the start position
 * reach, up to a ply, without its rare moves.
 *
 * A walk from the roots (the start position unless others are given) follows the book's
 * moves breadth first. At each position it keeps the moves whose count is at least
 * min_share percent of the position's total count (all of them when the total is 0), and
 * follows them to the positions they lead to, as long as those lie within max_ply
 * (ply 1 = a root). With through_legal it also follows every legal move that is not a book
 * move but leads to a book position: a book that drops the moves its owner never plays
 * (OSL's weight 0) still holds the positions after the opponent's deviations, reached in
 * games by lookup. Positions the walk does not reach are left out; moves into positions
 * left out stay, as leaves (`book think` then searches them). Scores, depths and ponders
 * are copied as they are; statistics are not.
 */
#ifndef HAYANAGI_BOOKGEN_PRUNE_H
#define HAYANAGI_BOOKGEN_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"

typedef struct {
    int max_ply;          /* deepest ply kept, a root being ply 1 (0 = no limit) */
    int min_share;        /* percent of the position's total count a move needs (0 = keep every move) */
    bool through_legal;   /* also follow legal non-book moves into book positions */
    const BookKey *roots; /* NULL: the start position */
    size_t n_roots;
} PruneOptions;

typedef struct {
    uint64_t positions;  /* positions kept */
    uint64_t moves;      /* moves kept */
    uint64_t rare_moves; /* moves dropped for their share */
    uint64_t unreached;  /* positions of the input not kept */
} PruneStats;

/* Returns a new book (the caller frees it) holding what the walk keeps, or NULL with the
 * reason in err when memory runs out or a key does not decode. stats may be NULL. */
Book *book_prune(const Book *in, const PruneOptions *opt, PruneStats *stats, char *err, size_t err_len);

#endif
