/* test_info_text.c - the one USI formatter (usi/info_text.h) against lines written by
 * hand in the USI protocol's own words, and search_info_set_value's mate conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "search/search.h"
#include "shogi/notation.h"
#include "usi/info_text.h"

static Move usi(const char *text) {
    Move16 m = MOVE_NONE;
    assert_true(move16_from_usi(text, strlen(text), &m));
    return (Move)m;
}

static void test_pv_line(void **state) {
    (void)state;
    Move pv[3] = {usi("7g7f"), usi("3c3d"), usi("8h2b+")};
    SearchInfo in = search_info_empty();
    in.depth = 12;
    in.seldepth = 17;
    search_info_set_value(&in, 94);
    in.nodes = 123456;
    in.nps = 654321;
    in.hashfull = 12;
    in.time_ms = 188;
    in.pv = pv;
    in.pv_length = 3;
    char buf[USI_INFO_TEXT_MAX];
    assert_string_equal(usi_info_text(&in, buf, sizeof buf),
                        "info depth 12 seldepth 17 score cp 94 nodes 123456 nps 654321 hashfull 12 time 188 "
                        "pv 7g7f 3c3d 8h2b+");
    /* A bound of a fail-high, in a MultiPV search. */
    in.bound = INFO_BOUND_LOWER;
    in.multipv = 2;
    in.pv_length = 1;
    assert_string_equal(usi_info_text(&in, buf, sizeof buf),
                        "info depth 12 seldepth 17 score cp 94 lowerbound multipv 2 nodes 123456 nps 654321 "
                        "hashfull 12 time 188 pv 7g7f");
    in.bound = INFO_BOUND_UPPER;
    in.multipv = 0;
    search_info_set_value(&in, -300);
    assert_string_equal(usi_info_text(&in, buf, sizeof buf),
                        "info depth 12 seldepth 17 score cp -300 upperbound nodes 123456 nps 654321 hashfull 12 "
                        "time 188 pv 7g7f");
}

static void test_mate_and_text(void **state) {
    (void)state;
    Move pv[1] = {usi("G*5b")};
    SearchInfo in = search_info_empty();
    in.depth = 1;
    search_info_set_value(&in, mate_in(1));
    in.nodes = 42;
    in.pv = pv;
    in.pv_length = 1;
    char buf[USI_INFO_TEXT_MAX];
    /* The root mate report: no seldepth, nps, hashfull or time. */
    assert_string_equal(usi_info_text(&in, buf, sizeof buf), "info depth 1 score mate 1 nodes 42 pv G*5b");
    search_info_set_value(&in, mated_in(4));
    assert_int_equal(in.score_kind, INFO_SCORE_MATED);
    assert_int_equal(in.score, 4);
    in.pv = NULL;
    assert_string_equal(usi_info_text(&in, buf, sizeof buf), "info depth 1 score mate -4 nodes 42");
    /* Mated now is "mate -0", as YaneuraOu writes it. */
    search_info_set_value(&in, mated_in(0));
    assert_string_equal(usi_info_text(&in, buf, sizeof buf), "info depth 1 score mate -0 nodes 42");
    search_info_set_value(&in, VALUE_MATE_IN_MAX_PLY - 1);
    assert_int_equal(in.score_kind, INFO_SCORE_CP);
    SearchInfo t = search_info_text("mcts visits 10 winrate 0.5000");
    assert_string_equal(usi_info_text(&t, buf, sizeof buf), "info string mcts visits 10 winrate 0.5000");
}

/* A PV that does not fit ends at the last whole move. */
static void test_truncation(void **state) {
    (void)state;
    Move pv[8];
    for (int i = 0; i < 8; i++)
        pv[i] = usi(i % 2 ? "3c3d" : "7g7f");
    SearchInfo in = search_info_empty();
    in.depth = 3;
    in.nodes = 5;
    in.pv = pv;
    in.pv_length = 8;
    char buf[40];
    usi_info_text(&in, buf, sizeof buf);
    assert_string_equal(buf, "info depth 3 nodes 5 pv 7g7f 3c3d 7g7f");
    char tiny[10];
    usi_info_text(&in, tiny, sizeof tiny);
    assert_true(strlen(tiny) < sizeof tiny);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pv_line),
        cmocka_unit_test(test_mate_and_text),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
