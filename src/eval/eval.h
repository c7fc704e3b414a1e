/* eval.h - the evaluation interface.
 *
 * The engine asks one question: how good is this position for the side to move, in
 * centipawn-like units (a pawn on the board is worth about 90, as in YaneuraOu). The
 * embedded evaluation (eval_classic) needs no file. A file-based evaluation (NNUE)
 * plugs in by filling an Evaluator and selecting it with eval_select().
 */
#ifndef HAYANAGI_EVAL_EVAL_H
#define HAYANAGI_EVAL_EVAL_H

#include "shogi/position.h"

typedef struct Evaluator {
    const char *name;
    /* Static evaluation from the side to move's point of view. Must be thread-safe. */
    Value (*evaluate)(const Position *pos);
} Evaluator;

/* The embedded evaluation: material, hand pieces, piece placement and king safety. */
extern const Evaluator eval_classic;

/* The evaluation in use (an engine singleton, changed only while no search runs). */
const Evaluator *eval_current(void);
void eval_select(const Evaluator *e);

static inline Value evaluate(const Position *pos) { return eval_current()->evaluate(pos); }

/* Material value of a piece type on the board, for move ordering and SEE. */
extern const int PIECE_VALUE[PIECE_TYPE_NB];
/* What capturing a piece of type pt gains: its value plus the value of its unpromoted
 * type returning in our hand. */
extern const int CAPTURE_VALUE[PIECE_TYPE_NB];

/* Breaks the classical evaluation into its terms for `eval` (USI extension) and
 * tuning: writes a human-readable report into buf (at least 1024 bytes). */
void eval_classic_explain(const Position *pos, char *buf, size_t len);

#endif
