/* provider_ab.h - the built-in policy/value provider from the alpha-beta engine's parts.
 *
 * Value: score_to_value() of the quiescence search of the position (search_probe_qsearch,
 * with the evaluation in use: embedded or NNUE). Policy: a softmax, at temperature
 * temperature_cp, of a one-ply score per move: minus the static evaluation after the
 * move, less the value of the moving piece when the static exchange on its destination
 * loses material (see_ge). Both reuse the search's evaluator and SEE; nothing here
 * evaluates a position by itself.
 */
#ifndef HAYANAGI_MCTS_PROVIDER_AB_H
#define HAYANAGI_MCTS_PROVIDER_AB_H

#include <stddef.h>

#include "mcts/provider.h"
#include "search/search.h"

typedef struct {
    double temperature_cp; /* > 0; the PolicyTemperature option */
    size_t hash_mb;        /* each evaluator's quiescence hash table */
    SearchOptions rules;   /* entering-king rule and move limit for the quiescence search */
} AbProviderOptions;

/* Defaults: temperature 100 cp, 4 MB per evaluator, search_options_default() rules. */
void ab_provider_defaults(AbProviderOptions *o);

/* The provider; it reads *o whenever an evaluator is made, so o must outlive it. */
MctsProvider ab_provider(const AbProviderOptions *o);

/* The one-ply policy score of each legal move (the logits before the temperature), in
 * centipawns; exposed for tests. pos is restored. */
void ab_policy_scores(Position *pos, const Move *moves, int n, double *scores);

#endif
