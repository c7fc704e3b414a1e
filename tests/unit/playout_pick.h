/* playout_pick.h - the tests' random playouts: the move choice (a random legal move, but,
 * when `bias` is not a multiple of 4 (three times in four), the first capture or drop from
 * that place on, so that hands fill up and tactics appear) and the loop that visits every
 * position of a number of playouts. Header-only, for the unit tests (test_rules, test_see). */
#ifndef HAYANAGI_TESTS_PLAYOUT_PICK_H
#define HAYANAGI_TESTS_PLAYOUT_PICK_H

#include <stdint.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/position.h"

/* The index into list[0..n) (n > 0) of the move to play: r chooses the starting place. */
static inline int playout_pick(const Position *pos, const ExtMove *list, int n, uint64_t r, uint64_t bias) {
    int pick = (int)(r % (uint64_t)n);
    if (bias % 4)
        for (int i = 0; i < n; i++) {
            Move m = list[(pick + i) % n].move;
            if (move_is_drop(m) || pos->board[move_to(m)] != NO_PIECE)
                return (pick + i) % n;
        }
    return pick;
}

/* How a playout draws its random numbers (xorshift64 on the seed): one number a move, used
 * for both the place and the bias, or two, one each. Each test keeps the stream its
 * positions (and the counts its comments quote) were made with. */
typedef enum { PLAYOUT_ONE_DRAW, PLAYOUT_TWO_DRAWS } PlayoutDraws;

/* Plays `games` playouts of at most `plies` plies from the start position, calling
 * visit(game, its legal moves, their count, ctx) at every position before the move is
 * chosen; a playout ends at a position without a legal move. */
static inline void playout_visit(int games, int plies, uint64_t seed, PlayoutDraws draws,
                                 void (*visit)(Game *g, const ExtMove *list, int n, void *ctx), void *ctx) {
    for (int game = 0; game < games; game++) {
        Game g;
        game_init(&g);
        for (int ply = 0; ply < plies; ply++) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            if (n == 0)
                break;
            visit(&g, list, n, ctx);
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            uint64_t r = seed;
            if (draws == PLAYOUT_TWO_DRAWS)
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            game_push(&g, list[playout_pick(&g.pos, list, n, r, seed)].move);
        }
        game_free(&g);
    }
}

#endif
