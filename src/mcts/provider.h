/* provider.h - what the MCTS tree asks of a position: a value and a policy.
 *
 * The tree code sees only this interface. A provider makes one evaluator per search
 * thread (evaluators keep per-thread scratch state such as a hash table or NNUE
 * accumulators); an evaluator is used by one thread at a time. Providers stack: the
 * PolicyBook mixer (policybook.h) wraps any other provider.
 *
 * Values are win rates in [0, 1] from the side to move's view. Scores in centipawns map
 * to win rates with the logistic score_to_value(cp) = 1 / (1 + exp(-cp / 756)), as
 * dlshogi does; value_to_score() is its inverse, used to print `score cp`.
 */
#ifndef HAYANAGI_MCTS_PROVIDER_H
#define HAYANAGI_MCTS_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "shogi/position.h"

/* The scale of the logistic between centipawns and win rates. */
#define MCTS_VALUE_SCALE 756.0

/* Win rate of a score of cp centipawns (side to move's view). */
double score_to_value(double cp);
/* The score (centipawns) whose win rate is v; clamped to +-30000 near 0 and 1. */
int value_to_score(double v);

typedef struct MctsEvaluator MctsEvaluator;

struct MctsEvaluator {
    /* Evaluates pos (not changed on return; its history may be read for repetitions):
     * writes priors[i] >= 0 for each of the n legal moves (they sum to 1) and returns the
     * win rate of pos for the side to move. n >= 1. */
    double (*evaluate)(MctsEvaluator *self, Position *pos, const Move *moves, int n, float *priors);
    /* Frees the evaluator. */
    void (*destroy)(MctsEvaluator *self);
    /* Positions evaluated and search nodes spent (for nps), kept by the evaluator. */
    uint64_t nodes;
};

typedef struct {
    /* A new evaluator for one search thread, or NULL when memory runs out. */
    MctsEvaluator *(*new_evaluator)(void *ctx);
    void *ctx;
} MctsProvider;

/* Turns logits[0..n) into a softmax distribution in priors (temperature 1; the caller
 * divides by its temperature first). */
void mcts_softmax(const double *logits, int n, float *priors);

/* A provider that knows nothing: uniform priors and a value of 0.5 for every position.
 * A baseline, and the provider whose answers tests can work out by hand. */
MctsProvider mcts_provider_uniform(void);

#endif
