/* select.h - choosing a book move the way YaneuraOu does (source/book/book.cpp,
 * BookMoveSelector::probe_impl), with its option names so users' settings carry over.
 *
 * The selector works on any book through a probe callback (in-memory Book, on-the-fly
 * DB2016, ...). Randomness comes from a caller-owned 64-bit state, so a fixed seed gives a
 * reproducible choice. Every returned move and ponder has been re-checked for legality in
 * its position; illegal candidates are dropped before the filters run (YaneuraOu instead
 * gives up the whole hit when it picks an illegal move).
 */
#ifndef HAYANAGI_BOOK_SELECT_H
#define HAYANAGI_BOOK_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"

/* Looks pos up in some book. Returns 1 and fills *out on a hit, 0 on a miss, -1 on an
 * error (reason in err). */
typedef int (*BookProbeFn)(void *ctx, const Position *pos, BookMoveList *out, char *err, size_t err_len);

typedef struct {
    BookProbeFn probe;
    void *ctx;
} BookSource;

/* A BookSource over an in-memory book (which must outlive the source). */
BookSource book_source_memory(const Book *b);

typedef struct {
    int book_moves;       /* BookMoves: the book is used while the SFEN ply <= this (16) */
    int ignore_rate;      /* BookIgnoreRate: percent of probes that ignore the book (0) */
    int eval_diff;        /* BookEvalDiff: keep moves within this of the first move's score (30) */
    int eval_black_limit; /* BookEvalBlackLimit: lowest score black accepts (0) */
    int eval_white_limit; /* BookEvalWhiteLimit: lowest score white accepts (-140) */
    int depth_limit;      /* BookDepthLimit: refuse the hit when the first move's depth is
                             below this; 0 ignores depth (0: a minimax book's depths are
                             distances to its leaves, see book/README.md) */
    bool consider_count;  /* ConsiderBookMoveCount: choose proportionally to count (false) */
    bool narrow_book;     /* NarrowBook: drop moves chosen less than 10% of the time (false) */
    int pv_moves;         /* BookPvMoves: length of the PV book_build_pv() follows (8) */
    bool ignore_book_ply; /* IgnoreBookPly: hit whatever the entry's ply; false requires the
                             entry's ply to equal the position's (true: Hayanagi's default,
                             YaneuraOu's is false) */
    bool flipped_book;    /* FlippedBook: on a miss, probe the colour-flipped position (true) */
} BookSelectOptions;

/* Fills *o with the defaults listed above. */
void book_select_defaults(BookSelectOptions *o);

typedef enum {
    BOOK_SELECT_HIT,
    BOOK_SELECT_MISS,      /* the position is not in the book (or its ply differs) */
    BOOK_SELECT_IGNORED,   /* BookIgnoreRate drew "think instead" */
    BOOK_SELECT_PLY_LIMIT, /* beyond BookMoves */
    BOOK_SELECT_FILTERED,  /* in the book, but no candidate survived the filters */
    BOOK_SELECT_ERROR      /* the probe failed (reason set) */
} BookSelectResult;

typedef struct {
    Move move;         /* legal in the position */
    Move ponder;       /* legal after move, or MOVE_NONE */
    BookMove entry;    /* the chosen candidate as the book has it (unflipped) */
    int candidates;    /* candidates left after the filters */
    bool flipped;      /* found through FlippedBook */
    bool from_overlay; /* chosen from the overlay (book_select_overlay()) */
} BookChoice;

/* Probes pos (through FlippedBook if needed) and returns its candidates in YaneuraOu's
 * order (count, then score) in *out, mapped back to pos's orientation, with illegal moves
 * dropped and illegal ponders cleared. Returns 1 on a hit, 0 on a miss, -1 on an error. */
int book_probe(const BookSource *src, const Position *pos, const BookSelectOptions *opt, BookMoveList *out,
               bool *flipped, char *err, size_t err_len);

/* Chooses a move for pos. *rng is the caller's random state (any value; 0 is replaced by
 * a fixed constant) and advances. pos is used for do/undo and is restored before return.
 * Returns BOOK_SELECT_HIT and fills *out, or the reason there is no book move (with a
 * human-readable explanation in reason when non-null). */
BookSelectResult book_select(const BookSource *src, Position *pos, const BookSelectOptions *opt, uint64_t *rng,
                             BookChoice *out, char *reason, size_t reason_len);

/* Opponent overlays (docs/usi.md, "Rival overlays"; made by bookgen/rival.h). An overlay
 * is an ordinary book laid over the main one for the games against one opponent. In a
 * position the overlay has, the candidates are the overlay's (in book_probe() order), then
 * the main book's moves the overlay does not list; the usual rules above (NarrowBook,
 * BookDepthLimit, BookEvalDiff and the side limits, the draw) run on the overlay's
 * candidates first, and on the main book's others only when none of the overlay's
 * survives. A move the overlay lists hides the main book's entry for it, so an overlay can
 * demote a main-book move: an overlay move scored BOOK_SCORE_DEMOTED or lower is never
 * chosen (nor given as ponder), whatever the options. Other readers of the file see an
 * ordinary candidate with count 0 and that score, below every alternative. */
#define BOOK_SCORE_DEMOTED (-VALUE_MATE) /* "this move loses" */

/* True when m is a demoted overlay move (has a score <= BOOK_SCORE_DEMOTED). */
bool book_move_demoted(const BookMove *m);

/* The candidates of pos in overlay (may be NULL) and src (may be NULL) as described
 * above, into *out: the overlay's first (*n_overlay of them, 0 when the overlay misses),
 * then src's moves not among them. Each list is checked and sorted by book_probe(); the
 * demoted moves are included (book_move_demoted() tells them). Returns 1 when either book
 * has pos, 0 when neither has, -1 on an error (reason in err). */
int book_probe_overlay(const BookSource *overlay, const BookSource *src, const Position *pos,
                       const BookSelectOptions *opt, BookMoveList *out, int *n_overlay, bool *flipped, char *err,
                       size_t err_len);

/* book_select() over an overlay and a main book (either may be NULL; book_select() is
 * this with no overlay), by the rule above. out->from_overlay says which book chose. */
BookSelectResult book_select_overlay(const BookSource *overlay, const BookSource *src, Position *pos,
                                     const BookSelectOptions *opt, uint64_t *rng, BookChoice *out, char *reason,
                                     size_t reason_len);

/* Follows the book from pos: first, then at each next position the first candidate with
 * the best score, until max moves, a miss, or a position already on the line. Writes the
 * legal moves into pv (at least max entries) and returns how many. pos is restored. */
int book_build_pv(const BookSource *src, Position *pos, const BookSelectOptions *opt, Move first, int max, Move *pv);

#endif
