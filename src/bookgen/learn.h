/* learn.h - `book learn`: a book chosen by a player's results in its own games.
 *
 * Evaluations choose book moves by what an engine thinks of a position; a player's match
 * records say what the moves actually scored. For every position within max_ply where the
 * player (a glob pattern on the record's player names, fnmatch(3)) was to move, each move
 * it played is credited with its games' results, each measured against the player's mean
 * result with the same colour in the same record file: records of matches run under other
 * conditions, against other opponents or with other books then compare fairly, and a move
 * is only "good" for scoring better than the player's usual play there.
 *
 * A move's value is the sum of those differences over (games + prior): the mean
 * difference shrunk toward zero, so that a move seen in few games needs a large lead to
 * count (with game results' variance near 0.21 and true differences between opening moves
 * of a few percent, a prior near 100 games is the Bayesian estimate; see
 * docs/book_making.md). For each position where some move was played in at least
 * min_games games, the book keeps the move of highest value among those, with its games as
 * its count, no score and no depth, and a comment giving the evidence of every move played
 * there in min_games games or more.
 *
 * Memory: one small entry per (position, move) occurrence within max_ply and one per
 * game, not the games' moves.
 */
#ifndef HAYANAGI_BOOKGEN_LEARN_H
#define HAYANAGI_BOOKGEN_LEARN_H

#include <stdbool.h>
#include <stdint.h>

#include "book/book.h"
#include "record/reader.h"

typedef struct {
    const char *player; /* fnmatch(3) pattern on player names ("hayanagi*"); required */
    int max_ply;        /* positions before game plies 1..max_ply are learned; at least 1 */
    int min_games;      /* a move needs this many games to be chosen; at least 1 */
    double prior;       /* shrink: the value is sum(result - mean) / (games + prior); >= 0 */
} BookLearnOptions;

typedef struct {
    uint64_t games;        /* games seen */
    uint64_t player_games; /* sides the player played with a known result */
    uint64_t positions;    /* distinct player-to-move positions seen */
    uint64_t chosen;       /* positions given a move (the book's size) */
    uint64_t changed;      /* of them, where the chosen move is not the one played most */
} BookLearnStats;

typedef struct BookLearn BookLearn;

/* A new learner (o is copied; o->player must outlive it). NULL when memory runs out. */
BookLearn *book_learn_create(const BookLearnOptions *o);

void book_learn_free(BookLearn *l);

/* Adds one game: nothing when neither player matches or the result is unknown. Games of
 * one record file must come together (RecordGame.file names the file). Returns false
 * only when memory runs out. */
bool book_learn_add_game(BookLearn *l, const RecordGame *g);

/* The learned book (the caller frees it), statistics in *st (may be NULL). NULL when
 * memory runs out. The learner may not be used afterwards except to free it. */
Book *book_learn_finish(BookLearn *l, BookLearnStats *st);

#endif
