/* report.h - `book report`: how far real games stay in a book.
 *
 * Each game is replayed from its root. A move is "in the book" while the position before
 * it is found in the book (as the engine finds it: book_probe(), so FlippedBook and the
 * legality filter apply) and the move played is one of its candidates. A game's plies in
 * book are its leading moves in the book; its exit is the position after them, either a
 * book position where the side to move played something else (a deviation) or a position
 * the book does not hold (the book line ended). The book's score at the exit, from
 * black's view, is the best candidate's score at a deviation, and the last book move's
 * score at an end of line; exits without a score are not counted for it. After the exit,
 * every later move played from a position the book holds that is one of its candidates is
 * counted apart (later_book_moves): the engine would have played from its book there too.
 * A side's own exit is the number of plies played before that side's first move that is
 * not a book move (the whole game when there is none): how long an engine playing that
 * side went on playing from the book, past the opponent's deviations that the book
 * answers (own_exit_plies).
 *
 * The report keeps one small record per game (for the median) and one per distinct exit
 * position; memory grows with the games, not with their length.
 */
#ifndef HAYANAGI_BOOKGEN_REPORT_H
#define HAYANAGI_BOOKGEN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book/book.h"
#include "book/select.h"
#include "record/reader.h"

enum { REPORT_MAX_AT = 8 };

typedef struct BookReport BookReport;

/* A new report over the book behind src (which must outlive the report), probing with
 * opt (NULL: the engine's defaults). plies_at[0..n_at) are the plies at which the share
 * of games still in the book is counted (at most REPORT_MAX_AT). Returns NULL when memory
 * runs out; the caller frees it with book_report_free(). */
BookReport *book_report_create(const BookSource *src, const BookSelectOptions *opt, const int *plies_at, int n_at);

void book_report_free(BookReport *r);

/* Replays one game (root SFEN, legal moves from it). Returns false with the reason in
 * err when the root does not parse, a move is illegal or memory runs out. */
bool book_report_add_game(BookReport *r, const char *root_sfen, const Move *moves, int n, char *err, size_t err_len);

/* The same for a game with a known result (REC_RESULT_UNKNOWN: as book_report_add_game()):
 * every book move it played is also credited with the result for the side that played it
 * (win 1, draw 1/2, loss 0), for the disagreements. player (BLACK, WHITE, or -1 for none)
 * is the side of the player the report is about: its own exit is counted apart
 * (player_games, player_exit_plies). */
bool book_report_add_result(BookReport *r, const char *root_sfen, const Move *moves, int n, RecordResult result,
                            int player, char *err, size_t err_len);

/* The disagreements: book moves played in at least min_games games whose mean result
 * differs by more than margin from the expected score of their book score (the mover's
 * view, on grow.h's logistic scale: E = 1 / (1 + exp(-score / 600))); moves without a
 * score are not compared. Printed to f, most games first (ties: larger difference), at
 * most top of them. When lines is non-NULL, also writes one `sfen SFEN` line per position
 * of the printed moves (each once) to it: a --startmoves-file for `book think`. Returns
 * the number of disagreements found (printed or not), -1 when memory runs out. */
long book_report_print_disagreements(const BookReport *r, FILE *f, double margin, int min_games, int top, FILE *lines);

typedef struct {
    uint64_t games;
    double mean_plies;
    double median_plies;
    uint64_t book_moves[2];           /* book moves played by black, by white */
    uint64_t later_book_moves[2];     /* after the exit: moves of a book position the game came back to */
    uint64_t own_exit_plies[2];       /* summed over the games: black's / white's own exit (above) */
    uint64_t player_games[2];         /* games with a player (book_report_add_result()) as black / white */
    uint64_t player_exit_plies[2];    /* summed over those games: the player's own exit */
    uint64_t still_in[REPORT_MAX_AT]; /* games with at least plies_at[i] plies in book */
    uint64_t deviations[2];           /* exits where black / white, to move, left the book */
    uint64_t line_ends[2];            /* exits at the end of a book line, black / white to move */
    uint64_t not_in_book;             /* games whose root is not in the book */
    uint64_t scored_exits;            /* exits with a book score */
    double mean_exit_score;           /* black's view, over scored exits */
    double median_exit_score;
    uint64_t bad_exits[2]; /* scored exits at -100 or worse for black / for white */
} BookReportSummary;

/* Fills *s from the games added so far. */
void book_report_summary(const BookReport *r, BookReportSummary *s);

/* Prints the summary and the top most common exit positions (SFEN, count, how the games
 * left, the book's best move and score there) to f. */
void book_report_print(const BookReport *r, FILE *f, int top);

#endif
