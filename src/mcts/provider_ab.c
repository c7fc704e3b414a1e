/* provider_ab.c - the alpha-beta provider (provider_ab.h). */
#include <stdlib.h>

#include "eval/eval.h"
#include "mcts/provider_ab.h"
#include "search/see.h"

typedef struct {
    MctsEvaluator base; /* first: the tree holds a pointer to it */
    SearchProbe *probe;
    double temperature;
} AbEvaluator;

void ab_provider_defaults(AbProviderOptions *o) {
    o->temperature_cp = 100.0;
    o->hash_mb = 4;
    search_options_default(&o->rules);
}

void ab_policy_scores(Position *pos, const Move *moves, int n, double *scores) {
    StateInfo st;
    for (int i = 0; i < n; i++) {
        Move m = moves[i];
        double s = 0;
        if (!see_ge(pos, m, 0))
            s -= PIECE_VALUE[piece_type(move_moved_piece_after(m))];
        position_do_move(pos, m, &st);
        s -= evaluate(pos);
        position_undo_move(pos, m);
        scores[i] = s;
    }
}

static double ab_evaluate(MctsEvaluator *self, Position *pos, const Move *moves, int n, float *priors) {
    AbEvaluator *e = (AbEvaluator *)self;
    double logits[MAX_MOVES];
    ab_policy_scores(pos, moves, n, logits);
    for (int i = 0; i < n; i++)
        logits[i] /= e->temperature;
    mcts_softmax(logits, n, priors);
    Value v = search_probe_qsearch(e->probe, pos, &self->nodes);
    return score_to_value(v);
}

static void ab_destroy(MctsEvaluator *self) {
    AbEvaluator *e = (AbEvaluator *)self;
    search_probe_destroy(e->probe);
    free(e);
}

static MctsEvaluator *ab_new(void *ctx) {
    const AbProviderOptions *o = ctx;
    AbEvaluator *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->probe = search_probe_create(o->hash_mb, &o->rules);
    if (!e->probe) {
        free(e);
        return NULL;
    }
    e->temperature = o->temperature_cp > 0 ? o->temperature_cp : 1.0;
    e->base.evaluate = ab_evaluate;
    e->base.destroy = ab_destroy;
    return &e->base;
}

MctsProvider ab_provider(const AbProviderOptions *o) { return (MctsProvider){ab_new, (void *)o}; }
