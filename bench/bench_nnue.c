/* bench_nnue.c - NNUE evaluations per second, incremental against from scratch, for the
 * three supported sizes (random nets from tests/unit/nnue_gen.h), AVX2 and portable,
 * with the embedded evaluation as a yardstick.
 *
 * One fixed random do/undo walk (with null moves, like a search tree) is replayed: once
 * without evaluating (the baseline, subtracted), then evaluating at every node with each
 * method. Medians of several runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/nnue_gen.h"
#include "common.h"
#include "eval/nnue.h"
#include "shogi/movegen.h"

enum { WALK_STEPS = 200000, MAX_DEPTH = 32, RUNS = 5 };

typedef struct {
    Move move; /* MOVE_NONE: undo */
} Step;

static Step steps[WALK_STEPS];

/* Records a random walk from the start position. */
static int record_walk(uint64_t seed) {
    rng_state = seed;
    Position pos;
    StateInfo st[MAX_DEPTH + 2];
    Move path[MAX_DEPTH + 2];
    position_set_startpos(&pos, &st[0]);
    int depth = 0, n = 0;
    while (n < WALK_STEPS) {
        ExtMove list[MAX_MOVES];
        int k = generate_moves(&pos, GEN_LEGAL, list);
        bool down = depth < MAX_DEPTH && k > 0 && (depth == 0 || rnd() % 100 < 60);
        if (depth == 0 && k == 0)
            break;
        if (down) {
            Move m;
            if (depth > 0 && path[depth - 1] != MOVE_NULL && !position_in_check(&pos) && rnd() % 100 < 3) {
                m = MOVE_NULL;
                position_do_null_move(&pos, &st[depth + 1]);
            } else {
                m = list[rnd() % (uint64_t)k].move;
                position_do_move(&pos, m, &st[depth + 1]);
            }
            path[depth++] = m;
            steps[n++].move = m;
        } else {
            Move m = path[--depth];
            if (m == MOVE_NULL)
                position_undo_null_move(&pos);
            else
                position_undo_move(&pos, m);
            steps[n++].move = MOVE_NONE;
        }
    }
    return n;
}

typedef enum { M_NONE, M_CLASSIC, M_FULL, M_INCREMENTAL } Method;

static volatile int sink;

/* Replays the walk; returns milliseconds. */
static double replay(int n, Method method, const NnueNet *net, EvalStack *s) {
    Position pos;
    StateInfo st[MAX_DEPTH + 2];
    Move path[MAX_DEPTH + 2];
    position_set_startpos(&pos, &st[0]);
    if (s)
        eval_stack_reset(s, &pos);
    int depth = 0, acc = 0;
    double t0 = bench_now_ms();
    for (int i = 0; i < n; i++) {
        Move m = steps[i].move;
        if (m != MOVE_NONE) {
            if (m == MOVE_NULL)
                position_do_null_move(&pos, &st[depth + 1]);
            else
                position_do_move(&pos, m, &st[depth + 1]);
            path[depth++] = m;
            if (method == M_INCREMENTAL)
                eval_stack_push(s, &pos);
        } else {
            m = path[--depth];
            if (m == MOVE_NULL)
                position_undo_null_move(&pos);
            else
                position_undo_move(&pos, m);
            if (method == M_INCREMENTAL)
                eval_stack_pop(s);
        }
        switch (method) {
        case M_NONE: break;
        case M_CLASSIC: acc += eval_classic.evaluate(&pos); break;
        case M_FULL: acc += nnue_evaluate_full(net, &pos, 16); break;
        case M_INCREMENTAL: acc += nnue_evaluate_incremental(s, &pos); break;
        }
    }
    sink = acc;
    return bench_now_ms() - t0;
}

static double median_ms(int n, Method method, const NnueNet *net, EvalStack *s) {
    double v[RUNS];
    for (int r = 0; r < RUNS; r++)
        v[r] = replay(n, method, net, s);
    return bench_median(v, RUNS);
}

int main(void) {
    shogi_init();
    bench_print_machine("NNUE evaluation, 1 thread");
    int n = record_walk(2024);
    double base = median_ms(n, M_NONE, NULL, NULL);
    double classic = median_ms(n, M_CLASSIC, NULL, NULL) - base;
    printf("walk: %d nodes (do/undo only %.1f ms); embedded evaluation %.2f M evals/s\n", n, base,
           n / classic / 1000.0);
    printf("%-22s %-8s %16s %16s %8s\n", "net", "path", "scratch Meval/s", "increm. Meval/s", "ratio");
    static const int shapes[3][2] = {{256, 32}, {512, 16}, {1024, 8}};
    EvalStack *s = eval_stack_new();
    for (int i = 0; i < 3; i++) {
        GenNet g = gen_net(shapes[i][0], shapes[i][1], 100 + (uint64_t)i, NULL);
        char err[256];
        NnueNet *net = nnue_load_memory(g.buf, g.len, err, sizeof err);
        free(g.buf);
        if (!net) {
            printf("load failed: %s\n", err);
            return 1;
        }
        nnue_set_current(net, 16);
        for (int simd = nnue_simd_available() ? 1 : 0; simd >= 0; simd--) {
            nnue_set_simd(simd);
            int m = simd ? n : n / 4; /* the portable path is slow: a quarter of the walk */
            double b = simd ? base : median_ms(m, M_NONE, NULL, NULL);
            double full = median_ms(m, M_FULL, net, NULL) - b;
            double inc = median_ms(m, M_INCREMENTAL, net, s) - b;
            char name[64];
            snprintf(name, sizeof name, "halfKP_%dx2-%d-32", shapes[i][0], shapes[i][1]);
            printf("%-22s %-8s %16.3f %16.3f %7.1fx\n", name, simd ? "avx2" : "portable", m / full / 1000.0,
                   m / inc / 1000.0, full / inc);
        }
        NnueStackStats st = nnue_stack_stats(s);
        printf("  (stack so far: %llu incremental updates, %llu refreshes, %llu fallbacks)\n",
               (unsigned long long)st.incremental, (unsigned long long)st.refreshes, (unsigned long long)st.fallbacks);
        nnue_set_current(NULL, 16);
    }
    nnue_set_simd(true);
    eval_stack_free(s);
    return 0;
}
