/* playout_pick.h - the move choice of the tests' random playouts: a random legal move,
 * but, when `bias` is not a multiple of 4 (three times in four), the first capture or drop
 * from that place on, so that hands fill up and tactics appear. Header-only, for the unit
 * tests (test_rules, test_see). */
#ifndef HAYANAGI_TESTS_PLAYOUT_PICK_H
#define HAYANAGI_TESTS_PLAYOUT_PICK_H

#include <stdint.h>

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

#endif
