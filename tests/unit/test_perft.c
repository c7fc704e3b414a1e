/* test_perft.c - perft against published numbers (shared/refdata perft_expectations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "shogi/perft.h"

static uint64_t perft_of(const char *sfen, int depth) {
    Position pos;
    StateInfo st;
    char err[128];
    if (!position_from_sfen(&pos, &st, sfen, err, sizeof err))
        fail_msg("bad sfen %s: %s", sfen, err);
    return perft_run(&pos, depth, false).nodes;
}

static void test_startpos(void **state) {
    (void)state;
    static const uint64_t expected[] = {1, 30, 900, 25470, 719731, 19861490};
    for (int d = 0; d <= 5; d++)
        assert_int_equal(perft_of(STARTPOS_SFEN, d), expected[d]);
}

/* Every entry of ../shared/refdata/usi/rsshogi/perft_expectations.json but startpos d6. */
static void test_rsshogi_expectations(void **state) {
    (void)state;
    static const struct {
        const char *sfen;
        int depth;
        uint64_t nodes;
    } cases[] = {
        {"lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9", 3, 37189},
        {"l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1", 2, 15850},
        {"l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1", 3, 1114656},
        {"6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1", 2, 41605},
        {"6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1", 3, 8420492},
        {"l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", 3, 4809015},
        {"ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62", 2, 16440},
        {"ln1g5/1r2S1k2/p2pppn2/2ps2p2/1p7/2P6/PPSPPPPLP/2G2K1pr/LN4G1b w BGSLPnp 62", 3, 864786},
        {"ln3gsn1/7kl/3+B1p1p1/p4s2p/2P6/P2B3PP/1PNP+rPP2/2G3SK1/L4G1NL b G3Prs3p 65", 1, 101},
        {"ln3gsn1/7kl/3+B1p1p1/p4s2p/2P6/P2B3PP/1PNP+rPP2/2G3SK1/L4G1NL b G3Prs3p 65", 2, 15744},
        {"ln3gsn1/7kl/3+B1p1p1/p4s2p/2P6/P2B3PP/1PNP+rPP2/2G3SK1/L4G1NL b G3Prs3p 65", 3, 1183354},
        {"ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76", 2, 445},
        {"R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 1, 593},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t got = perft_of(cases[i].sfen, cases[i].depth);
        if (got != cases[i].nodes)
            fail_msg("%s depth %d: expected %llu, got %llu", cases[i].sfen, cases[i].depth,
                     (unsigned long long)cases[i].nodes, (unsigned long long)got);
    }
}

/* The statistics mode must agree with the plain count, and the start position after
 * 3 and 4 plies has published leaf statistics (the Chess Programming Wiki shogi perft
 * table): depth 3 has 59 captures, 30 promotions, 48 checks; depth 4 has 1803, 842, 1121. */
static void test_stats(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    PerftCounts c = perft_run(&pos, 3, true);
    assert_int_equal(c.nodes, 25470);
    assert_int_equal(c.captures, 59);
    assert_int_equal(c.promotions, 30);
    assert_int_equal(c.checks, 48);
    assert_int_equal(c.mates, 0);
    c = perft_run(&pos, 4, true);
    assert_int_equal(c.nodes, 719731);
    assert_int_equal(c.captures, 1803);
    assert_int_equal(c.promotions, 842);
    assert_int_equal(c.checks, 1121);
    assert_int_equal(c.mates, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startpos),
        cmocka_unit_test(test_rsshogi_expectations),
        cmocka_unit_test(test_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
