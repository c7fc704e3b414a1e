/* make.h - making books from game records and from other books: build (count the moves
 * of games), merge (several books, weighted, three policies) and import-losses (docs/book_making.md, "import-losses":
 * where a rival lost before, play the winner's moves again). The minimax back-propagation
 * is in minimax.h, the engine-driven expansion in think.h.
 */
#ifndef HAYANAGI_BOOKGEN_MAKE_H
#define HAYANAGI_BOOKGEN_MAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "book/book.h"
#include "record/reader.h"

/* Sets pos to g's root with states from the caller-owned buffer *st, grown to hold one
 * state per move of g (*st and *cap start NULL / 0; free(*st) at the end), so that the game
 * can be replayed with position_do_move(pos, g->moves[i], &(*st)[i + 1]). Returns false
 * when the root does not parse (the reader never hands out such a game; a book key needs
 * both kings) or memory runs out: *cap > g->n_moves tells the first from the second. */
bool book_replay_start(const RecordGame *g, Position *pos, StateInfo **st, size_t *cap);

typedef enum { BUILD_SIDE_BOTH, BUILD_SIDE_BLACK, BUILD_SIDE_WHITE } BuildSide;

/* Scores gathered from record comments (--scores-from-comments): per (position, move),
 * the sum and number of the evaluations the records give after that move. */
typedef struct BuildScores BuildScores;

/* A new empty collection (the caller frees it with build_scores_free()); NULL when
 * memory runs out. */
BuildScores *build_scores_create(void);
void build_scores_free(BuildScores *s);

/* Sets, on every (position, move) of b that has samples, the score to their mean
 * (rounded, the mover's view) and appends "scores from comments: N samples" to the move's
 * comment. *moves and *samples (when non-null) get how many moves were scored and from how
 * many samples. Returns false when memory runs out. */
bool build_scores_apply(const BuildScores *s, Book *b, uint64_t *moves, uint64_t *samples);

typedef struct {
    int max_ply;         /* moves at game plies 1..max_ply are counted; 0 = no limit */
    BuildSide side;      /* whose moves are counted */
    bool winner_only;    /* only the winner's moves (games without a winner add none) */
    int32_t min_rating;  /* only moves by a player rated at least this; REC_NO_RATING = off */
    const char *player;  /* only moves by the player of this exact name; NULL = off */
    BuildScores *scores; /* when non-NULL: the comment scores (RecordGame.scores) of counted
                            moves are gathered here, turned to the mover's view */
} BookBuildOptions;

typedef struct {
    uint64_t games;         /* games seen */
    uint64_t games_used;    /* games that added at least one move */
    uint64_t moves_counted; /* move occurrences added */
} BookBuildStats;

/* Adds the moves of one game to b: for each counted move, its position gets count + 1
 * for that move, and every position visited (within max_ply) gets games + 1 and
 * black_wins / white_wins + 1 by the result (book_get_stats()). The game is replayed
 * from its root; st is a caller-owned buffer of states, grown as needed (*st and *cap
 * start NULL / 0; free(*st) at the end). Returns false only when memory runs out. */
bool book_build_add_game(Book *b, const RecordGame *g, const BookBuildOptions *o, BookBuildStats *stats, StateInfo **st,
                         size_t *cap);

/* A new book holding only the moves of b counted at least min_count times (positions
 * left without moves are dropped; statistics are kept). NULL when memory runs out. */
Book *book_filter_min_count(const Book *b, uint64_t min_count);

typedef enum { MERGE_SUM, MERGE_PREFER_DEEPER, MERGE_PREFER_FIRST } MergePolicy;

/* Merges src (its counts multiplied by weight, at least 1 for a move that had a count)
 * into *dst, which may be replaced by a new book (the old one is freed):
 *   MERGE_SUM            counts add up; of two evaluations of one move the deeper one
 *                        stays (the later one on a tie);
 *   MERGE_PREFER_DEEPER  a position in both keeps the move list of the book whose best
 *                        searched depth there is larger (dst's on a tie);
 *   MERGE_PREFER_FIRST   a position in both keeps dst's moves.
 * Positions in only one book are copied. Returns false when memory runs out. */
bool book_merge_policy(Book **dst, const Book *src, double weight, MergePolicy policy);

typedef struct {
    uint64_t games;     /* games the opponent lost */
    uint64_t named;     /* games the opponent played (either side), lost or not */
    uint64_t positions; /* winner-to-move positions rewritten */
} ImportLossStats;

/* For one game: when the player named opponent (exact match) lost it, every position
 * within max_ply (0 = all) where the winner was to move gets the winner's move as the
 * book's first choice: its count becomes one more than the largest count there, and when
 * the position has evaluated moves its score becomes the best score there (+1 when
 * another move held it). Returns false only when memory runs out. */
bool book_import_loss(Book *b, const RecordGame *g, const char *opponent, int max_ply, ImportLossStats *stats,
                      StateInfo **st, size_t *cap);

#endif
