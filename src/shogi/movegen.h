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

/* One colour's pieces by how they attack, for testing the squares a king may step to. */
typedef struct {
    Bitboard pawns, knights, silvers, golds, kings, diag, orth, lances;
    Bitboard occ; /* the occupancy the sliders' lines are traced through */
} KingThreats;

/* Fills k with colour c's pieces except those on `except`, their lines traced through
 * occupancy occ. */
static inline void king_threats_of(const Position *pos, Color c, Bitboard except, Bitboard occ, KingThreats *k) {
    const Bitboard *bt = pos->by_type, mine = pos->by_color[c] & ~except;
    k->pawns = bt[PAWN] & mine;
    k->knights = bt[KNIGHT] & mine;
    k->silvers = bt[SILVER] & mine;
    k->golds = (bt[GOLD] | bt[PRO_PAWN] | bt[PRO_LANCE] | bt[PRO_KNIGHT] | bt[PRO_SILVER]) & mine;
    k->kings = (bt[KING] | bt[HORSE] | bt[DRAGON]) & mine;
    k->diag = (bt[BISHOP] | bt[HORSE]) & mine;
    k->orth = (bt[ROOK] | bt[DRAGON]) & mine;
    k->lances = bt[LANCE] & mine;
    k->occ = occ;
}

/* True when a piece of k attacks `to`, where a king of colour `king_color` would step (a
 * piece attacks it iff a piece of its kind but king_color's, standing on `to`, would
 * attack it back): the step attackers first, then a slider line only when a slider of k
 * stands on it on the empty board. */
static inline bool king_step_attacked(Color king_color, Square to, const KingThreats *k) {
    Color us = king_color;
    return (bb_pawn_attacks(us, to) & k->pawns) || (bb_knight_attacks(us, to) & k->knights) ||
           (bb_silver_attacks(us, to) & k->silvers) || (bb_gold_attacks(us, to) & k->golds) ||
           (bb_king_attacks(to) & k->kings) ||
           ((bitboard_tables.step[piece_make(us, BISHOP)][to] & k->diag) &&
            (bb_bishop_attacks(to, k->occ) & k->diag)) ||
           ((bitboard_tables.step[piece_make(us, ROOK)][to] & k->orth) && (bb_rook_attacks(to, k->occ) & k->orth)) ||
           ((bitboard_tables.step[piece_make(us, LANCE)][to] & k->lances) &&
            (bb_lance_attacks(us, to, k->occ) & k->lances));
}

#endif
