/* test_openings_gen.c - the shared random-openings generator (match/openings_gen.h):
 * lines replay, stay within the ply range, are distinct, repeat for a seed, and obey
 * keep() and the stop flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "match/openings_gen.h"
#include "shogi/movegen.h"

static int count_moves(const char *line) {
    int n = 0;
    const char *m = strstr(line, "moves");
    for (const char *p = m ? m + 5 : line + strlen(line); *p; p++)
        n += *p == ' ';
    return n;
}

static void test_lines_replay_and_are_distinct(void **state) {
    (void)state;
    shogi_init();
    OpeningsGenOptions o = {.count = 60, .min_plies = 2, .max_plies = 4, .seed = 7, .tries_per_line = 100};
    Openings a, b;
    int tries = 0;
    assert_true(openings_generate(&o, &a, &tries));
    assert_int_equal(a.n, 60);
    assert_true(tries >= 60);
    for (int i = 0; i < a.n; i++) {
        int n = count_moves(a.lines[i]);
        assert_true(n >= 2 && n <= 4);
        char *norm = NULL, err[256];
        assert_int_equal(opening_parse_line(a.lines[i], &norm, err, sizeof err), OPENING_OK);
        free(norm);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(a.lines[i], a.lines[j]);
    }
    /* The same seed gives the same lines; another seed other lines. */
    assert_true(openings_generate(&o, &b, NULL));
    assert_int_equal(b.n, a.n);
    for (int i = 0; i < a.n; i++)
        assert_string_equal(a.lines[i], b.lines[i]);
    openings_free(&b);
    o.seed = 8;
    assert_true(openings_generate(&o, &b, NULL));
    int same = 0;
    for (int i = 0; i < a.n; i++)
        same += strcmp(a.lines[i], b.lines[i]) == 0;
    assert_true(same < a.n);
    openings_free(&a);
    openings_free(&b);
}

/* Only 30 distinct positions exist after one ply: asking for more gives 30. */
static void test_distinct_end_positions(void **state) {
    (void)state;
    OpeningsGenOptions o = {.count = 50, .min_plies = 1, .max_plies = 1, .seed = 1, .tries_per_line = 100};
    Openings a;
    assert_true(openings_generate(&o, &a, NULL));
    assert_int_equal(a.n, 30);
    openings_free(&a);
}

static bool white_to_move(void *ctx, const Game *g) {
    (*(int *)ctx)++;
    return g->pos.side == WHITE;
}

static void test_keep_and_stop(void **state) {
    (void)state;
    int calls = 0;
    OpeningsGenOptions o = {.count = 20,
                            .min_plies = 2,
                            .max_plies = 5,
                            .seed = 3,
                            .tries_per_line = 100,
                            .keep = white_to_move,
                            .ctx = &calls};
    Openings a;
    assert_true(openings_generate(&o, &a, NULL));
    assert_int_equal(a.n, 20);
    assert_true(calls >= 20);
    for (int i = 0; i < a.n; i++)
        assert_int_equal(count_moves(a.lines[i]) % 2, 1);
    openings_free(&a);
    volatile sig_atomic_t stop = 1;
    o.stop = &stop;
    assert_true(openings_generate(&o, &a, NULL));
    assert_int_equal(a.n, 0);
    openings_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_replay_and_are_distinct),
        cmocka_unit_test(test_distinct_end_positions),
        cmocka_unit_test(test_keep_and_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
