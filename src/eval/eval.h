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

/* ---- incremental state of one search thread ----
 *
 * An evaluation may keep state that follows the search down and up the tree (NNUE keeps
 * its accumulators; the classic evaluation keeps nothing). Each search thread owns one
 * EvalStack, made by eval_stack_new() and freed by eval_stack_free(); every function
 * accepts NULL (evaluations are then computed from scratch). The implementation lives with
 * NNUE (eval/nnue.c); callers see only these calls. */
typedef struct EvalStack EvalStack;

/* A new stack (about 1 MB, 32-byte aligned), owned by the caller; NULL when out of memory. */
EvalStack *eval_stack_new(void);
/* Frees s (NULL is fine). */
void eval_stack_free(EvalStack *s);
/* Starts over at root (the search root), with the evaluation in use now. */
void eval_stack_reset(EvalStack *s, const Position *root);
/* Records the move that led to pos: call right after position_do_move or
 * position_do_null_move (it reads pos->st->last_move and ->captured). Cheap: work is
 * done only when an evaluation asks for it. */
void eval_stack_push(EvalStack *s, const Position *pos);
/* Call after the matching undo. */
void eval_stack_pop(EvalStack *s);
/* Makes evaluate() on the calling thread use s (NULL to unbind). */
void eval_stack_bind_thread(EvalStack *s);

/* Material value of a piece type on the board, for move ordering and SEE. */
extern const int PIECE_VALUE[PIECE_TYPE_NB];
/* What capturing a piece of type pt gains: its value plus the value of its unpromoted
 * type returning in our hand. */
extern const int CAPTURE_VALUE[PIECE_TYPE_NB];

/* Breaks the classical evaluation into its terms for `eval` (USI extension) and
 * tuning: writes a human-readable report into buf (at least 1024 bytes). */
void eval_classic_explain(const Position *pos, char *buf, size_t len);

#endif
