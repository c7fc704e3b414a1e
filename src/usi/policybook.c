/* policybook.c - the PolicyBook mixer (policybook.h). */
#include <stdlib.h>

#include "usi/policybook.h"
#include "shogi/movegen.h"

bool policybook_mix(const BookMoveList *book_moves, const Move *moves, int n, double alpha, float *priors,
                    double *value) {
    const BookMove *bm = book_moves->moves;
    int bn = book_moves->n;
    /* The top entry as book_sort_moves() would order them: most played, then best
     * score, the first of ties. */
    int top = -1;
    for (int k = 0; k < bn; k++)
        if (top < 0 || bm[k].count > bm[top].count || (bm[k].count == bm[top].count && bm[k].score > bm[top].score))
            top = k;
    double rate[MAX_MOVES] = {0};
    double total = 0;
    int legal = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bn; k++)
            if (bm[k].move == move_to_move16(moves[i])) {
                rate[i] = (double)bm[k].count;
                total += rate[i];
                legal++;
                break;
            }
    if (legal == 0)
        return false;
    for (int i = 0; i < n; i++) {
        bool in_book = false;
        for (int k = 0; k < bn && !in_book; k++)
            in_book = bm[k].move == move_to_move16(moves[i]);
        double r = total > 0 ? rate[i] / total : in_book ? 1.0 / legal : 0.0;
        priors[i] = (float)((1 - alpha) * priors[i] + alpha * r);
    }
    if (bm[top].has_score)
        *value = (1 - alpha) * *value + alpha * score_to_value(bm[top].score);
    return true;
}

typedef struct {
    MctsEvaluator base;
    MctsEvaluator *inner;
    const PolicyBookProvider *pb;
    BookMoveList list; /* large: one per evaluator */
} PbEvaluator;

static double pb_evaluate(MctsEvaluator *self, Position *pos, const Move *moves, int n, float *priors) {
    PbEvaluator *e = (PbEvaluator *)self;
    double v = e->inner->evaluate(e->inner, pos, moves, n, priors);
    self->nodes = e->inner->nodes;
    if (e->pb->book && book_lookup(e->pb->book, pos, &e->list))
        policybook_mix(&e->list, moves, n, e->pb->alpha, priors, &v);
    return v;
}

static void pb_destroy(MctsEvaluator *self) {
    PbEvaluator *e = (PbEvaluator *)self;
    e->inner->destroy(e->inner);
    free(e);
}

static MctsEvaluator *pb_new(void *ctx) {
    PolicyBookProvider *pb = ctx;
    PbEvaluator *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->inner = pb->inner.new_evaluator(pb->inner.ctx);
    if (!e->inner) {
        free(e);
        return NULL;
    }
    e->pb = pb;
    e->base.evaluate = pb_evaluate;
    e->base.destroy = pb_destroy;
    return &e->base;
}

MctsProvider policybook_provider(PolicyBookProvider *pb) { return (MctsProvider){pb_new, pb}; }
