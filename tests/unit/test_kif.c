/* test_kif.c - the KIF / KI2 reader and the USI list reader on the real files in
 * ../shared/refdata/{kif,ki2,usi} (Kifu for JS, ShogiHome, python-shogi, rsshogi) and on
 * hand-written snippets for the disambiguators. Expected values read off the files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <iconv.h>
#include <stdio.h>
#include <string.h>

#include "rec_helpers.h"

#define KIF REF "kif/json-kifu-format/"
#define KI2 REF "ki2/json-kifu-format/"

static void test_kif_game(void **state) {
    (void)state;
    Got got;
    read_into(REF "kif/python-shogi/habu-fujii-2006.kif", &got, false); /* Shift_JIS, CRLF */
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.games, 1);
    assert_int_equal(got.g[0].n_moves, 181);
    assert_string_equal(got.g[0].end, "投了");
    assert_int_equal(got.g[0].result, REC_BLACK_WIN);
    assert_string_equal(got.g[0].black, "羽生善治");
    assert_string_equal(got.g[0].white, "藤井猛");
    assert_string_equal(got.g[0].event, "順位戦"); /* 棋戦：, not the comment *棋戦詳細： */
    read_into(KIF "shogidb2.kifu", &got, false);   /* UTF-8 */
    assert_int_equal(got.g[0].n_moves, 110);
    assert_int_equal(got.g[0].result, REC_WHITE_WIN);
    assert_string_equal(got.g[0].white, "藤井聡太");
    assert_string_equal(got.g[0].event, "竜王戦");
}

static void test_handicap(void **state) {
    (void)state;
    Got got;
    read_into(KIF "20081220kyoochi.kif", &got, false);
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[0].root, "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    assert_string_equal(got.g[0].black, "糸谷哲郎"); /* 下手 */
    assert_string_equal(got.g[0].white, "深浦康市"); /* 上手 */
    assert_int_equal(got.g[0].n_moves, 142);
    assert_true(starts_with(got.g[0].moves, "3c3d 2g2f 2b3c"));
    read_into(REF "ki2/json-kifu-format/7mai.ki2u", &got, false);
    assert_string_equal(got.g[0].root, "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
}

static void test_same_game_three_formats(void **state) {
    (void)state;
    Got a, b, c, d;
    read_into(KIF "8mai.kif", &a, false);
    read_into(KI2 "8mai.ki2", &b, false);
    read_into(REF "csa/json-kifu-format/8mai.csa", &c, false);
    read_into(KI2 "8mai.ki2u", &d, false);
    assert_int_equal(a.errors + b.errors + c.errors + d.errors, 0);
    assert_int_equal(a.g[0].n_moves, 25);
    assert_string_equal(a.g[0].moves, b.g[0].moves);
    assert_string_equal(a.g[0].moves, c.g[0].moves);
    assert_string_equal(a.g[0].moves, d.g[0].moves);
    assert_string_equal(a.g[0].root, c.g[0].root);
    /* Shift_JIS and UTF-8 versions of one record */
    read_into(REF "kif/shogihome/encoding-sjis.kif", &a, false);
    read_into(REF "kif/shogihome/encoding-utf8.kif", &b, false);
    read_into(REF "ki2/shogihome/encoding-sjis.ki2", &c, false);
    read_into(REF "ki2/shogihome/encoding-utf8.ki2", &d, false);
    assert_int_equal(a.g[0].n_moves, 4);
    assert_string_equal(a.g[0].moves, b.g[0].moves);
    assert_string_equal(a.g[0].moves, c.g[0].moves);
    assert_string_equal(a.g[0].moves, d.g[0].moves);
    /* a Shift_JIS file whose header claims UTF-8 */
    read_into(KIF "no_henka.kif", &a, false);
    read_into(KIF "no_henka.kifu", &b, false);
    assert_int_equal(a.g[0].n_moves, 11);
    assert_string_equal(a.g[0].moves, b.g[0].moves);
}

static void test_ki2_disambiguation(void **state) {
    (void)state;
    Got got;
    /* a tsume problem with 右, 左, 引 and 同 (black has no king) */
    read_into(KI2 "kobayashi_kinsho196702.ki2", &got, false);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 49);
    assert_string_equal(got.g[0].root, "8k/2rrl4/2n2ln2/g3pp2p/3l4n/2lp5/g5p2/9/7+p1 b 2B2GN4s12p 1");
    read_into(KI2 "denou3-1.ki2", &got, false);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.g[0].n_moves, 98);
    assert_int_equal(got.g[0].result, REC_WHITE_WIN);
    read_mem("▲５八金右\n", REC_FMT_KI2, &got, false);
    assert_string_equal(got.g[0].moves, "4i5h");
    read_mem("▲５八金左\n", REC_FMT_KI2, &got, false);
    assert_string_equal(got.g[0].moves, "6i5h");
    read_mem("▲５八金\n", REC_FMT_KI2, &got, false); /* two golds can go */
    assert_int_equal(got.errors, 1);
    assert_true(strstr(got.err[0], "ambiguous") != NULL);
    /* white's right is the side of file 9 */
    read_mem("▲７六歩 △３四歩 ▲２二角成 △同　銀 ▲４五角 △５二金右 ▲６八銀 △４二金寄\n", REC_FMT_KI2, &got, false);
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[0].moves, "7g7f 3c3d 8h2b+ 3a2b B*4e 6a5b 7i6h 5b4b");
    read_mem("▲７六歩 △３四歩 ▲２二角不成 △同銀 ▲５五角打 △８八角打\n", REC_FMT_KI2, &got, false);
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[0].moves, "7g7f 3c3d 8h2b 3a2b B*5e B*8h");
    /* 直 and 上 / 引 / 寄 */
    read_mem("▲５八金右 △３四歩 ▲６八金寄\n", REC_FMT_KI2, &got, false);
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[0].moves, "4i5h 3c3d 5h6h");
    read_mem("▲５八金右 △３四歩 ▲６八金直\n", REC_FMT_KI2, &got, false);
    assert_string_equal(got.g[0].moves, "4i5h 3c3d 6i6h");
    read_mem("▲５八金右 △３四歩 ▲６八金上\n", REC_FMT_KI2, &got, false);
    assert_string_equal(got.g[0].moves, "4i5h 3c3d 6i6h");
    read_mem("▲５八金右 △３四歩 ▲６八金引\n", REC_FMT_KI2, &got, false);
    assert_int_equal(got.errors, 1);
}

static void test_branches(void **state) {
    (void)state;
    Got got;
    read_into(KIF "fork.kif", &got, true);
    assert_int_equal(got.errors, 0);
    assert_int_equal(got.games, 8);
    assert_string_equal(got.g[0].moves, "7g7f 3c3d 2g2f");
    assert_int_equal(got.g[0].result, REC_BLACK_WIN);
    assert_string_equal(got.g[1].moves, "7g7f 3c3d 7f7e");
    assert_string_equal(got.g[2].moves, "7g7f 8c8d 7i6h");
    assert_int_equal(got.g[2].result, REC_DRAW); /* 持将棋 */
    assert_string_equal(got.g[3].moves, "7g7f 8c8d 2g2f");
    assert_int_equal(got.g[3].result, REC_BLACK_WIN); /* 切れ負け by white */
    assert_string_equal(got.g[4].moves, "2g2f 3c3d 2f2e");
    assert_int_equal(got.g[4].result, REC_WHITE_WIN); /* 反則勝ち by white */
    assert_string_equal(got.g[7].moves, "2g2f 8c8d 7g7f");
    assert_int_equal(got.g[7].variation, 7);
    read_into(KIF "fork.kif", &got, false);
    assert_int_equal(got.games, 1);
    /* KI2 variations give the same lines */
    Got k2;
    read_into(KI2 "fork.ki2", &k2, true);
    assert_int_equal(k2.games, 8);
    read_into(KIF "fork.kif", &got, true);
    for (int i = 0; i < 8; i++)
        assert_string_equal(k2.g[i].moves, got.g[i].moves);
    /* 同 right after a branch point */
    read_into(KIF "doh_branch.kifu", &got, true);
    assert_int_equal(got.errors, 0);
    assert_string_equal(got.g[1].moves, "7g7f 3c3d 8h2b+ 3a2b");
    /* a malformed line: reported, the next variation still read */
    read_into(KIF "fork-test.kif", &got, true);
    assert_int_equal(got.errors, 1);
    assert_int_equal(got.err_line[0], 18);
    assert_int_equal(got.games, 2);
}

static void test_results_and_terminals(void **state) {
    (void)state;
    Got got;
    read_into(KIF "illegal.kif", &got, true);
    assert_int_equal(got.g[0].result, REC_WHITE_WIN); /* 先手の反則負け */
    assert_int_equal(got.g[1].result, REC_BLACK_WIN); /* 先手の反則勝ち */
    read_into(KI2 "illegal.ki2", &got, true);
    assert_int_equal(got.g[0].result, REC_WHITE_WIN);
    assert_int_equal(got.g[1].result, REC_BLACK_WIN);
    read_into(KIF "meijinsen_20180508_M7_10034.kif", &got, false);
    assert_string_equal(got.g[0].end, "封じ手");
    assert_int_equal(got.g[0].result, REC_RESULT_UNKNOWN);
    assert_string_equal(got.g[0].black, "羽生 善治竜王");
}

static void test_board_diagrams(void **state) {
    (void)state;
    Got got;
    read_into(KIF "kifu_for_iphone.kif", &got, false);
    assert_string_equal(got.g[0].root, "3sks3/9/4+P4/6+B2/9/9/9/9/9 b S2rb4gs4n4l17p 1");
    assert_int_equal(got.g[0].n_moves, 3);
    read_into(KIF "shogidokoro.kifu", &got, false);
    assert_string_equal(got.g[0].root, "4+B2n1/7k1/6pp1/7gp/4P3P/9/9/9/9 b RBSNr3g3s2n4l13p 1");
}

static void test_bad_kif(void **state) {
    (void)state;
    Got got;
    read_mem("手合割：平手\n手数----指手--\n   1 ７六歩(77)\n   2 ３三歩(33)\n   3 ２六歩(27)\n", REC_FMT_KIF, &got,
             false);
    assert_int_equal(got.games, 0);
    assert_int_equal(got.errors, 1);
    assert_int_equal(got.err_line[0], 4);
    read_mem("手合割：へんな手合\n手数----指手--\n   1 ７六歩(77)\n", REC_FMT_KIF, &got, false);
    assert_int_equal(got.errors, 1);
    read_mem("garbage\n\xff\xfe\n|junk|\n", REC_FMT_AUTO, &got, false);
    assert_int_equal(got.games, 0);
    assert_true(got.errors >= 1);
}

static void test_usi_lists(void **state) {
    (void)state;
    Got got;
    read_into(REF "usi/shogihome/book-source-src05.sfen", &got, false);
    assert_int_equal(got.games, 2);
    assert_string_equal(got.g[0].moves, "7g7f 7a6b 2h7h 5c5d 7i6h");
    read_into(REF "usi/shogihome/conversion-division-input.sfen", &got, false);
    assert_int_equal(got.errors, 0);
    assert_true(got.games >= 1);
    /* rsshogi: "name | position ...": the nifu and uchifuzume lines are refused */
    read_into(REF "usi/rsshogi/move_sequences.txt", &got, false);
    assert_int_equal(got.games, 1);
    assert_int_equal(got.g[0].n_moves, 49);
    assert_int_equal(got.errors, 2);
    assert_int_equal(got.err_line[0], 11);
    assert_int_equal(got.err_line[1], 14);
    read_into(REF "usi/rsshogi/sfen_positions.txt", &got, false);
    assert_true(got.games >= 10);
    assert_true(got.errors >= 2);
    read_mem("startpos moves 7g7f\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f\n"
             "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\nposition startpos moves 7g7g\n",
             REC_FMT_USI, &got, false);
    assert_int_equal(got.games, 3);
    assert_int_equal(got.errors, 1);
    assert_int_equal(got.err_line[0], 4);
    assert_string_equal(got.g[0].event, ""); /* USI lines name no event */
}

/* An empty KIF or KI2 input is one error, reported at line 1 (found by fuzz_kif). */
static void test_empty_input(void **state) {
    (void)state;
    static Got got;
    for (int f = 0; f < 2; f++) {
        memset(&got, 0, sizeof got);
        read_mem("", f ? REC_FMT_KI2 : REC_FMT_KIF, &got, false);
        assert_int_equal(got.games, 0);
        assert_int_equal(got.errors, 1);
        assert_int_equal(got.err_line[0], 1);
    }
}

/* A KIF saved as UTF-16 (with or without a byte order mark) is refused by
 * name, not read as "no game". The file is a real Shift_JIS KIF converted by iconv. */
static void test_utf16_named(void **state) {
    (void)state;
    FILE *f = fopen(REF "kif/json-kifu-format/8mai.kif", "rb");
    assert_non_null(f);
    static char sjis[65536], wide[2 * 65536 + 2];
    size_t n = fread(sjis, 1, sizeof sjis, f);
    fclose(f);
    iconv_t cd = iconv_open("UTF-16LE", "CP932");
    assert_true(cd != (iconv_t)-1);
    char *in = sjis, *out = wide + 2;
    size_t il = n, ol = sizeof wide - 2;
    assert_true(iconv(cd, &in, &il, &out, &ol) != (size_t)-1);
    iconv_close(cd);
    size_t wlen = (size_t)(out - wide);
    wide[0] = (char)0xFF, wide[1] = (char)0xFE;
    for (int bom = 0; bom < 2; bom++) {
        char err[512] = "";
        RecordStats st = {0};
        const char *data = bom ? wide : wide + 2;
        assert_false(
            record_read_memory("w.kif", data, bom ? wlen : wlen - 2, REC_FMT_AUTO, NULL, &st, err, sizeof err));
        assert_non_null(strstr(err, "UTF-16LE"));
        assert_int_equal(st.games, 0);
    }
    /* the same record in Shift_JIS still reads */
    RecordStats st = {0};
    char err[512];
    assert_true(record_read_memory("8mai.kif", sjis, n, REC_FMT_AUTO, NULL, &st, err, sizeof err));
    assert_int_equal(st.games, 1);
}

/* An "encoding=" header cut by the end of the data (found by fuzz_csa: a read past the end
 * of the sample, which is not NUL-terminated); the data sits in a block of its exact size,
 * so ASan sees any read beyond it. */
static void test_encoding_header_at_end(void **state) {
    (void)state;
    static const char text[] = "\x80\x80V2U-KI-Goencoding=s"; /* not UTF-8 */
    size_t n = sizeof text - 1;
    char *exact = malloc(n);
    assert_non_null(exact);
    memcpy(exact, text, n);
    char err[256] = "";
    RecordStats st = {0};
    record_read_memory("cut", exact, n, REC_FMT_AUTO, NULL, &st, err, sizeof err);
    assert_int_equal(st.games, 0);
    free(exact);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kif_game),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_handicap),
        cmocka_unit_test(test_same_game_three_formats),
        cmocka_unit_test(test_ki2_disambiguation),
        cmocka_unit_test(test_branches),
        cmocka_unit_test(test_results_and_terminals),
        cmocka_unit_test(test_board_diagrams),
        cmocka_unit_test(test_bad_kif),
        cmocka_unit_test(test_usi_lists),
        cmocka_unit_test(test_utf16_named),
        cmocka_unit_test(test_encoding_header_at_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
