/* bench_mcts.c - MCTS playouts per second per thread with the built-in alpha-beta
 * provider (quiescence value, one-ply softmax policy) and the embedded evaluation, on
 * the start position and a middle-game position, with 1 and 2 threads. Each run is a
 * fresh tree of PLAYOUTS playouts; medians of RUNS runs. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "mcts/mcts.h"
#include "mcts/provider_ab.h"

enum { PLAYOUTS = 20000, RUNS = 5 };

static const struct {
    const char *name, *sfen;
} POSITIONS[] = {
    {"startpos", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
    {"bench_tactical", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"},
};

int main(void) {
    shogi_init();
    bench_print_machine("bench_mcts");
    MctsSearch *m = mcts_create();
    AbProviderOptions ab;
    ab_provider_defaults(&ab);
    printf("%-12s %7s %22s %22s %14s\n", "position", "threads", "playouts/s (median)", "per thread",
           "qs nodes/playout");
    for (size_t p = 0; p < sizeof POSITIONS / sizeof POSITIONS[0]; p++) {
        Game g;
        game_init(&g);
        if (!game_set_sfen(&g, POSITIONS[p].sfen, NULL, 0)) {
            fprintf(stderr, "bad sfen %s\n", POSITIONS[p].sfen);
            return 1;
        }
        for (int threads = 1; threads <= 2; threads++) {
            double rate[RUNS], evals = 0;
            for (int r = 0; r < RUNS; r++) {
                MctsOptions o;
                mcts_options_default(&o);
                o.threads = threads;
                o.tree_mb = 256;
                o.reuse_tree = false;
                o.info_interval_ms = 0;
                SearchLimits lim;
                memset(&lim, 0, sizeof lim);
                lim.nodes = PLAYOUTS;
                mcts_clear(m);
                double t0 = bench_now_ms();
                MctsResult res = mcts_run(m, &g, &lim, &o, ab_provider(&ab), NULL);
                double ms = bench_now_ms() - t0;
                rate[r] = (double)res.playouts * 1000.0 / ms;
                evals = (double)res.evaluated / (double)res.playouts;
            }
            double med = bench_median(rate, RUNS);
            printf("%-12s %7d %14.0f playouts/s %14.0f playouts/s %14.1f\n", POSITIONS[p].name, threads, med,
                   med / threads, evals);
        }
        game_free(&g);
    }
    mcts_destroy(m);
    return 0;
}
