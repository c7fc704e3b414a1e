/* game.h - a position together with the history of moves that led to it, as needed by
 * the USI `position` command, game records and the match runner.
 *
 * Ownership: a Game owns its StateInfo array (game_free() releases it). The Position
 * inside points into that array; do not copy a Game by value.
 */
#ifndef HAYANAGI_SHOGI_GAME_H
#define HAYANAGI_SHOGI_GAME_H

#include "shogi/position.h"

typedef struct {
    Position pos;
    StateInfo *states; /* states[0] is the root, states[i] follows moves[i - 1] */
    Move *moves;
    int count; /* moves played */
    int capacity;
    char root_sfen[SFEN_MAX];
} Game;

/* Starts an empty game at the standard position. */
void game_init(Game *g);
void game_free(Game *g);

/* Replaces the game with one rooted at sfen. Returns false (and leaves g untouched)
 * when the SFEN is rejected, with the reason in err. */
bool game_set_sfen(Game *g, const char *sfen, char *err, size_t err_len);
/* game_set_sfen with position_from_sfen_ex flags. */
bool game_set_sfen_ex(Game *g, const char *sfen, int flags, char *err, size_t err_len);
/* Replaces the game with one rooted at pos (set up afresh from its board, hands, side and
 * move number, as its SFEN would give, without the text: no history before it). Returns
 * false (and leaves g untouched) when pos is no position a game can start from (a king
 * missing), with the reason in err. */
bool game_set_position(Game *g, const Position *pos, char *err, size_t err_len);

/* Plays a move, which must be legal in g->pos. Returns false only when memory runs out
 * (or the game exceeds 100000 moves), leaving the game unchanged. */
bool game_push(Game *g, Move m);
/* Takes back the last move; returns false when there is none. */
bool game_pop(Game *g);

/* Applies the arguments of a USI `position` command: "startpos [moves m1 m2 ...]" or
 * "sfen <board> <side> <hands> [ply] [moves ...]" (a tsume position where one side
 * has no king is accepted). On any error (unknown keyword, bad
 * SFEN, malformed or illegal move) leaves g untouched, writes the reason, naming the
 * failing token and its index, to err, and returns false. */
bool game_set_from_usi(Game *g, const char *args, char *err, size_t err_len);

/* Makes dst (uninitialised, or freed) a deep copy of src. Returns false when memory
 * runs out (dst is then empty and needs no game_free()). */
bool game_copy(Game *dst, const Game *src);

/* Exchanges the contents of two games (cheap; fixes the internal pointers). */
void game_swap(Game *a, Game *b);

#endif
