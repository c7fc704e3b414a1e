/* perft.c - perft with bulk counting at the last ply. */
#include "shogi/perft.h"

#include "shogi/movegen.h"

static uint64_t perft_count(Position *pos, int depth) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t nodes = 0;
    StateInfo st;
    for (int i = 0; i < n; i++) {
        position_do_move(pos, list[i].move, &st);
        nodes += perft_count(pos, depth - 1);
        position_undo_move(pos, list[i].move);
    }
    return nodes;
}

static void perft_stats(Position *pos, int depth, PerftCounts *c) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    StateInfo st;
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        if (depth == 1) {
            c->nodes++;
            if (position_is_capture(pos, m))
                c->captures++;
            if (move_is_promotion(m))
                c->promotions++;
        }
        position_do_move(pos, m, &st);
        if (depth == 1) {
            if (position_in_check(pos)) {
                c->checks++;
                if (!position_has_legal_move(pos))
                    c->mates++;
            }
        } else {
            perft_stats(pos, depth - 1, c);
        }
        position_undo_move(pos, m);
    }
}

PerftCounts perft_run(Position *pos, int depth, bool stats) {
    PerftCounts c = {0};
    if (depth <= 0) {
        c.nodes = 1;
        return c;
    }
    if (stats)
        perft_stats(pos, depth, &c);
    else
        c.nodes = perft_count(pos, depth);
    return c;
}

PerftCounts perft_divide(Position *pos, int depth, bool stats, void (*on_move)(void *ctx, Move m, uint64_t nodes),
                         void *ctx) {
    PerftCounts total = {0};
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    StateInfo st;
    for (int k = 0; k < n; k++) {
        position_do_move(pos, list[k].move, &st);
        PerftCounts c = perft_run(pos, depth - 1, stats);
        position_undo_move(pos, list[k].move);
        on_move(ctx, list[k].move, c.nodes);
        total.nodes += c.nodes;
        total.captures += c.captures;
        total.promotions += c.promotions;
        total.checks += c.checks;
        total.mates += c.mates;
    }
    if (stats && depth == 1) /* the leaves are the root moves themselves */
        total = perft_run(pos, 1, true);
    return total;
}
