/* classic.h - the weights of the embedded evaluation, exposed for the tuner
 * (src/eval/tune.c) and nothing else: the engine uses eval_classic from eval.h. */
#ifndef HAYANAGI_EVAL_CLASSIC_H
#define HAYANAGI_EVAL_CLASSIC_H

#include "eval/eval.h"

/* Every field is an int, so the tuner may treat the struct as an array of
 * CLASSIC_WEIGHT_COUNT ints (checked by a static assertion in tune.c). */
typedef struct {
    int board[PIECE_TYPE_NB]; /* material on the board (the king's is unused) */
    int hand[PIECE_TYPE_NB];
    int attack[PIECE_TYPE_NB][9]; /* by distance to the enemy king */
    int defend[PIECE_TYPE_NB][9]; /* by distance to our own king */
    int king_rank[9];             /* king's rank counted from its own side (0 = home rank) */
    int danger_attack;            /* per enemy attack on a king-zone square */
    int danger_defence;           /* per defender of a king-zone square */
    int danger_hand;              /* per enemy hand piece (not pawns) */
    int danger_scale;             /* penalty = danger^2 * scale / 64 */
} ClassicWeights;

enum { CLASSIC_WEIGHT_COUNT = sizeof(ClassicWeights) / sizeof(int) };

/* The weights the engine plays with (fitted by `hayanagi tune`, see docs/eval.md). */
extern const ClassicWeights classic_default_weights;

/* The classical evaluation under weights w, from the side to move's point of view. */
Value classic_evaluate_with(const ClassicWeights *w, const Position *pos);

#endif
