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
#include "book/extsort.h"
#include "shogi/movegen.h"

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

/* The prune of the DB2016 file in into the DB2016 file out (atomically, comments kept)
 * without the book in memory: the bytes of reading in with comments, book_prune() and
 * writing. The book is sorted through eo (book/extsort.h) into one temporary sorted copy,
 * then walked breadth first by passes over it, one per ply: the positions of a ply (a
 * sorted, deduplicated key stream, sorted on disk too when it is large) are joined with
 * the copy, and the positions their followed moves lead to become the next ply's (those a
 * Bloom filter of the book's keys, an eighth of the memory, does not rule out). A bit per
 * book position marks those reached (the one part of the memory that grows with the
 * book: 1 bit a position), and a last pass writes them. stats (may be NULL) as
 * book_prune()'s; written (may be NULL) gets what the writer wrote (positions with moves,
 * moves), passes the passes over the copy. Returns false with the reason in err (out
 * untouched, no temporary file left): the input cannot be read, a fatal line, the disk is
 * full, memory runs out, a key does not decode, or a signal. */
bool book_prune_file(const char *in, const char *out, const PruneOptions *opt, const ExtSortOptions *eo,
                     PruneStats *stats, uint64_t written[2], uint64_t *passes, char *err, size_t err_len);

/* The moves of list that prune keeps (count at least min_share percent of the list's
 * total, all when the total is 0 or min_share 0), compacted in order; the others are
 * counted in *rare. Returns the new list->n. */
int prune_keep_moves(BookMoveList *list, int min_share, uint64_t *rare);

/* The walk's starting positions: opt->roots when given (*n set to their count), else the
 * start position, whose key is written to *start and returned (*n = 1). */
const BookKey *prune_roots(const PruneOptions *opt, BookKey *start, size_t *n);

/* Calls fn with the key of each position the walk follows from pos: after each kept move
 * that is legal there, then, with through_legal, after every legal move (legal is
 * MAX_MOVES of scratch). Stops and returns false when fn does. */
typedef bool (*PruneChildFn)(void *ctx, const BookKey *child);
bool prune_children(Position *pos, const BookMoveList *kept, bool through_legal, ExtMove *legal, PruneChildFn fn,
                    void *ctx);

#endif
