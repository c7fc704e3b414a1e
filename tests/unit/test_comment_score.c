/* test_comment_score.c - record_comment_score(): the evaluation comments floodgate and
 * ShogiHome write (styles as ShogiHome's restoreCustomData reads them), and text that is
 * not one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/reader.h"

static int32_t score_of(const char *text) {
    int32_t v;
    return record_comment_score(text, &v) ? v : REC_NO_SCORE;
}

static void test_styles(void **state) {
    (void)state;
    assert_int_equal(score_of("* 267 +8877KA -6272OU"), 267); /* floodgate "'** 267 ..." */
    assert_int_equal(score_of("* -376835 -9384OU"), -32000);  /* clamped */
    assert_int_equal(score_of("*0"), 0);
    assert_int_equal(score_of("*評価値=-102"), -102);
    assert_int_equal(score_of("#評価値=+35"), 35);
    assert_int_equal(score_of("#評価値=12.5"), 13);
    assert_int_equal(score_of("#評価値=-12.5"), -13);
    assert_int_equal(score_of("*詰み=先手勝ち:7手"), 31993);
    assert_int_equal(score_of("#詰み=後手勝ち"), -32000);
    assert_int_equal(score_of("#詰み=後手勝ち:3手"), -31997);
}

static void test_not_scores(void **state) {
    (void)state;
    assert_int_equal(score_of("互角"), REC_NO_SCORE);
    assert_int_equal(score_of("#読み筋=▲７七角"), REC_NO_SCORE);
    assert_int_equal(score_of("*読み筋=▲７七角"), REC_NO_SCORE);
    assert_int_equal(score_of("#深さ=21"), REC_NO_SCORE);
    assert_int_equal(score_of("** 30"), REC_NO_SCORE); /* the CSA marker must be gone */
    assert_int_equal(score_of("* -"), REC_NO_SCORE);
    assert_int_equal(score_of("#評価値=abc"), REC_NO_SCORE);
    assert_int_equal(score_of("#詰み=引き分け"), REC_NO_SCORE);
    assert_int_equal(score_of(""), REC_NO_SCORE);
    assert_int_equal(score_of("*"), REC_NO_SCORE);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_styles), cmocka_unit_test(test_not_scores)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
