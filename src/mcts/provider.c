/* provider.c - the value scale and softmax shared by every provider (provider.h). */
#include <math.h>
#include <stdlib.h>

#include "mcts/provider.h"

double score_to_value(double cp) { return 1.0 / (1.0 + exp(-cp / MCTS_VALUE_SCALE)); }

int value_to_score(double v) {
    if (v <= 0.0 || v >= 1.0 || v != v)
        return v >= 1.0 ? 30000 : -30000;
    double cp = -MCTS_VALUE_SCALE * log(1.0 / v - 1.0);
    return cp > 30000 ? 30000 : cp < -30000 ? -30000 : (int)lround(cp);
}

void mcts_softmax(const double *logits, int n, float *priors) {
    double max = -INFINITY, sum = 0;
    for (int i = 0; i < n; i++)
        if (logits[i] > max)
            max = logits[i];
    for (int i = 0; i < n; i++)
        sum += exp(logits[i] - max);
    for (int i = 0; i < n; i++)
        priors[i] = (float)(exp(logits[i] - max) / sum);
}

static double uniform_evaluate(MctsEvaluator *self, Position *pos, const Move *moves, int n, float *priors) {
    (void)pos;
    (void)moves;
    self->nodes++;
    for (int i = 0; i < n; i++)
        priors[i] = 1.0f / (float)n;
    return 0.5;
}

static void uniform_destroy(MctsEvaluator *self) { free(self); }

static MctsEvaluator *uniform_new(void *ctx) {
    (void)ctx;
    MctsEvaluator *e = calloc(1, sizeof *e);
    if (e) {
        e->evaluate = uniform_evaluate;
        e->destroy = uniform_destroy;
    }
    return e;
}

MctsProvider mcts_provider_uniform(void) { return (MctsProvider){uniform_new, NULL}; }
