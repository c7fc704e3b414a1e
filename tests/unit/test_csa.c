/* test_csa.c - the CSA reader on the real files in ../shared/refdata/csa (floodgate,
 * shogi-server, Kifu for JS, ShogiHome) and on malformed input. Expected values were
 * read off the files by hand (move counts from the last move line, results from the end
 * marker and the side to move). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rec_helpers.h"

#define CSA   REF "csa/"
#define START STARTPOS_SFEN

static void test_floodgate(void **state) {
    (void)state;
    Got got;
    read_into(CSA "shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa", &got, false);
    assert_int_equal(got.games, 1);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 158);
    assert_int_equal(got.g[0].result, REC_WHITE_WIN); /* %TORYO with black to move */
    assert_string_equal(got.g[0].end, "TORYO");
    assert_string_equal(got.g[0].black, "gps_normal");
    assert_string_equal(got.g[0].white, "gps_l");
    assert_string_equal(got.g[0].root, START);
    assert_true(starts_with(got.g[0].moves, "7g7f 3c3d 2g2f 4c4d 3i4h 8b3b"));
}

static void test_multi_game(void **state) {
    (void)state;
    Got got;
    read_into(CSA "derived/multi-game-3.csa", &got, false);
    assert_int_equal(got.games, 3);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 158);
    assert_int_equal(got.g[1].n_moves, 315);
    assert_int_equal(got.g[2].n_moves, 173);
    assert_string_equal(got.g[1].end, "KACHI");
    /* white to move declares, but the server's own summary says "illegal kachi:gps8_pgsklp
     * lose:gps9_p win": black (gps9_p) won */
    assert_int_equal(got.g[1].result, REC_BLACK_WIN);
    assert_int_equal(got.g[2].result, REC_BLACK_WIN);
    assert_string_equal(got.g[1].black, "gps9_p");
    assert_int_equal(got.g[1].line, 495);
    /* each game's own $EVENT: line; the third has none, and the second's does not carry over */
    assert_string_equal(got.g[0].event, "wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007");
    assert_string_equal(got.g[1].event, "wdoor+pgsklp_32-0-30+gps9_p+gps8_pgsklp+20060428070035");
    assert_string_equal(got.g[2].event, "");
}

static void test_ratings_and_v22(void **state) {
    (void)state;
    Got got;
    read_into(CSA "json-kifu-format/v2.csa", &got, false);
    assert_int_equal(got.games, 1);
    assert_int_equal(got.g[0].black_rating, 3345);
    assert_int_equal(got.g[0].white_rating, 3453);
    assert_string_equal(got.g[0].black, "Titanda_L");
    assert_int_equal(got.g[0].n_moves, 196);
    read_into(CSA "shogi-server/jishogi_kachi.csa", &got, false);
    assert_int_equal(got.g[0].black_rating, REC_NO_RATING);
    assert_string_equal(got.g[0].end, "KACHI");
    assert_int_equal(got.g[0].result, REC_BLACK_WIN); /* 'summary:illegal kachi: the declarer (white) lost */
    /* a legal declaration: 'summary:kachi:aobazero win:viper lose, aobazero (N+) declared */
    read_into(CSA "json-kifu-format/dr1test1test0+tu-1_aobazero_viper-300-5F+aobazero+viper+20200719201040.csa", &got,
              false);
    assert_string_equal(got.g[0].end, "KACHI");
    assert_string_equal(got.g[0].black, "aobazero");
    assert_int_equal(got.g[0].result, REC_BLACK_WIN);
}

static void test_initial_positions(void **state) {
    (void)state;
    Got a, b;
    read_into(CSA "json-kifu-format/8mai.csa", &a, false);        /* P1..P9 */
    read_into(CSA "json-kifu-format/8mai_hirate.csa", &b, false); /* PI with removals */
    assert_string_equal(a.g[0].root, "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    assert_string_equal(a.g[0].root, b.g[0].root);
    assert_string_equal(a.g[0].moves, b.g[0].moves);
    assert_int_equal(a.g[0].n_moves, 25);
    assert_string_equal(a.g[0].end, "CHUDAN");
    assert_int_equal(a.g[0].result, REC_RESULT_UNKNOWN);
    read_into(CSA "json-kifu-format/9fu.csa", &a, false);
    read_into(CSA "json-kifu-format/9fu_komabetsu.csa", &b, false); /* P+ pieces, 00AL */
    assert_string_equal(a.g[0].root, "7pk/7p1/7p1/7p1/7p1/7p1/7p1/7p1/7p1 b 2R4L4s4n 1");
    assert_string_equal(a.g[0].root, b.g[0].root);
    assert_int_equal(b.g[0].n_moves, 61);
    assert_int_equal(b.g[0].result, REC_BLACK_WIN); /* %TSUMI: white to move is mated */
}

static void test_encodings(void **state) {
    (void)state;
    Got got;
    read_into(CSA "json-kifu-format/2005_YAMADA_GPS.csa", &got, false); /* EUC-JP */
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[0].white, "山田将棋 Version 2.18 (LEVEL5)");
    assert_int_equal(got.g[0].n_moves, 107);
    assert_int_equal(got.g[0].result, REC_BLACK_WIN);
    read_into(CSA "shogihome/book-source-src03.csa", &got, false); /* Shift_JIS names */
    assert_string_equal(got.g[0].black, "羽生七冠");
    assert_string_equal(got.g[0].white, "藤井八冠");
    read_into(CSA "shogihome/conversion-csa-sjis.csa", &got, false);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 20);
}

static void test_end_markers(void **state) {
    (void)state;
    Got got;
    read_into(CSA "json-kifu-format/illegal_win.csa", &got, false);
    assert_string_equal(got.g[0].end, "-ILLEGAL_ACTION");
    assert_int_equal(got.g[0].result, REC_BLACK_WIN);
    read_into(CSA "json-kifu-format/illegal_lose.csa", &got, false);
    assert_string_equal(got.g[0].end, "ILLEGAL_MOVE");
    assert_int_equal(got.g[0].result, REC_WHITE_WIN);
    read_mem("PI\n+\n+7776FU\n-3334FU\n%SENNICHITE\n/\nPI\n+\n+7776FU\n%HIKIWAKE\n/\nPI\n+\n%TIME_UP\n/\n"
             "PI\n-\n%KACHI\n",
             REC_FMT_CSA, &got, false);
    assert_int_equal(got.games, 4);
    assert_int_equal(got.g[0].result, REC_DRAW);
    assert_int_equal(got.g[1].result, REC_DRAW);
    assert_int_equal(got.g[2].result, REC_WHITE_WIN);
    assert_int_equal(got.g[3].result, REC_WHITE_WIN);
    /* perpetual check found by the rules: the checker loses */
    read_into(CSA "shogi-server/oute_sennichite.csa", &got, false);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 110);
}

static void test_statements_and_times(void **state) {
    (void)state;
    Got got;
    read_mem("V3.0\nN+a\nN-b\n$EVENT:x\nPI\n+\n+7776FU,T12.345\n-3334FU,T0,'comment\n+8822UM\nT3\n-3122GI\n%TORYO\n",
             REC_FMT_AUTO, &got, false);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.games, 1);
    assert_string_equal(got.g[0].moves, "7g7f 3c3d 8h2b+ 3a2b");
    assert_int_equal(got.g[0].result, REC_WHITE_WIN);
    assert_string_equal(got.g[0].event, "x");
}

static void test_bad_records(void **state) {
    (void)state;
    Got got;
    /* game 1: illegal king move on line 4; game 2 good; game 3: piece mismatch; game 4 good */
    read_mem("PI\n+\n+7776FU\n-2233KA\n-3334FU\n/\nPI\n+\n+2726FU\n/\nPI\n+\n+7776KA\n/\nP1 bad\n+\n/\n"
             "PI\n+\n+5756FU\n%TORYO\n",
             REC_FMT_CSA, &got, false);
    assert_int_equal(got.games, 2);
    assert_int_equal(got.errors, 3);
    assert_int_equal(got.err_line[0], 4);
    assert_string_equal(got.g[0].moves, "2g2f");
    assert_string_equal(got.g[1].moves, "5g5f");
    assert_int_equal(got.g[1].result, REC_BLACK_WIN);
    /* moves before a position, a side mismatch, an unknown statement */
    read_mem("+7776FU\n/\nPI\n+\n-3334FU\n/\nPI\n+\nXYZ\n", REC_FMT_CSA, &got, false);
    assert_int_equal(got.games, 0);
    assert_int_equal(got.errors, 3);
    /* junk never crashes and always names a line */
    read_mem("\x01\x02\xff\xfe\n%%%\n,,,,\nP+00AL\nP-00AL\n+\n", REC_FMT_CSA, &got, false);
    assert_true(got.errors >= 1);
}

static void test_sniff(void **state) {
    (void)state;
    assert_int_equal(record_format_sniff("V2.2\n", 5), REC_FMT_CSA);
    assert_int_equal(record_format_sniff("position startpos moves 7g7f\n", 28), REC_FMT_USI);
    assert_int_equal(record_format_from_path("a/b.KIF"), REC_FMT_KIF);
    assert_int_equal(record_format_from_path("a.ki2u"), REC_FMT_KI2);
    assert_int_equal(record_format_from_path("a.d/b"), REC_FMT_AUTO);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floodgate),
        cmocka_unit_test(test_multi_game),
        cmocka_unit_test(test_ratings_and_v22),
        cmocka_unit_test(test_initial_positions),
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_end_markers),
        cmocka_unit_test(test_statements_and_times),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_sniff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
