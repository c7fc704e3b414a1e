/* movegen.h - move generators.
 *
 * Every generator writes into a caller-owned array of at least MAX_MOVES entries and
 * returns the count. All promotion choices are generated (promotion and, where the
 * rules allow it, non-promotion), so perft counts match the published numbers.
 * Drops never break nifu, never land where the piece could not move again, and a
 * pawn drop that mates (uchifuzume) is never produced.
 */
#ifndef HAYANAGI_SHOGI_MOVEGEN_H
#define HAYANAGI_SHOGI_MOVEGEN_H

#include "shogi/position.h"

enum { MAX_MOVES = 600 }; /* the most legal moves known in one position is 593 */

typedef struct {
    Move move;
    int32_t value; /* free for the caller's ordering */
} ExtMove;

typedef enum {
    GEN_CAPTURES,     /* pseudo-legal moves onto enemy pieces; not in check */
    GEN_QUIETS,       /* pseudo-legal moves to empty squares and drops; not in check */
    GEN_NON_EVASIONS, /* GEN_CAPTURES + GEN_QUIETS */
    GEN_EVASIONS,     /* pseudo-legal answers to a check; only in check */
    GEN_QUIET_CHECKS, /* legal quiet moves that give check; not in check */
    GEN_LEGAL,        /* every legal move, in check or not */
    GEN_CHECKS        /* every legal move that gives check, in check or not */
} GenType;

/* Generates moves of the given kind for the side to move into list; returns the count.
 * Pseudo-legal lists still need position_is_legal() before a move is played. */
int generate_moves(const Position *pos, GenType type, ExtMove *list);

/* True when the side to move has at least one legal move (faster than counting). */
bool position_has_legal_move(const Position *pos);

#endif
