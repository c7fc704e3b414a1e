/* bench_slider.c - the two slider-attack techniques side by side: classical rays (the
 * portable path) and BMI2 PEXT line tables (used when built with ARCH=avx2). Reports
 * nanoseconds per rook+bishop attack pair on random occupancies. */
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "shogi/position.h"

enum { N_OCC = 4096, ROUNDS = 200, RUNS = 5 };

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void) {
    shogi_init();
    bench_print_machine("slider attacks");
    static Bitboard occ[N_OCC];
    for (int i = 0; i < N_OCC; i++) /* about a third of the squares occupied, as in a middle game */
        occ[i] = ((Bitboard)(next_rand() & next_rand()) | ((Bitboard)(next_rand() & next_rand()) << 64)) &
                 bitboard_tables.all;
    Bitboard sink_ray = 0, sink_fast = 0;
    double ray[RUNS], fast[RUNS];
    for (int run = 0; run < RUNS; run++) {
        double t0 = bench_now_ms();
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < N_OCC; i++) {
                Square sq = (Square)((i + r) % SQ_NB);
                sink_ray ^= bb_rook_attacks_ray(sq, occ[i]) ^ bb_bishop_attacks_ray(sq, occ[i]);
            }
        double t1 = bench_now_ms();
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < N_OCC; i++) {
                Square sq = (Square)((i + r) % SQ_NB);
                sink_fast ^= bb_rook_attacks(sq, occ[i]) ^ bb_bishop_attacks(sq, occ[i]);
            }
        double t2 = bench_now_ms();
        ray[run] = (t1 - t0) * 1e6 / ((double)ROUNDS * N_OCC);
        fast[run] = (t2 - t1) * 1e6 / ((double)ROUNDS * N_OCC);
    }
#ifdef __BMI2__
    const char *name = "pext";
#else
    const char *name = "ray (no BMI2 in this build)";
#endif
    printf("rays:            %.2f ns per rook+bishop pair (median of %d)\n", bench_median(ray, RUNS), RUNS);
    printf("built-in (%s): %.2f ns per rook+bishop pair (median of %d)\n", name, bench_median(fast, RUNS), RUNS);
    printf("checksums %s\n", sink_ray == sink_fast ? "agree" : "DIFFER: the two techniques disagree");
    return sink_ray == sink_fast ? 0 : 1;
}
