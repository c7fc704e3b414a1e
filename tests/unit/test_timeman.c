/* test_timeman.c - time allocation against a fake clock: budgets for byoyomi, Fischer,
 * sudden death and movetime, and a simulated game that must never lose on time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "search/timeman.h"

static const TimeOptions DEFAULTS = {1000, 120, 1120, 100};

static TimeBudget budget(int64_t left, int64_t inc, int64_t byoyomi, int64_t movetime, int ply, const TimeOptions *o) {
    TimeControl tc = {left, inc, byoyomi, movetime, ply};
    return timeman_budget(&tc, o);
}

static void test_no_clock_is_unlimited(void **state) {
    (void)state;
    TimeBudget b = budget(0, 0, 0, 0, 1, &DEFAULTS);
    assert_true(b.maximum_ms == INT64_MAX && b.optimum_ms == INT64_MAX);
}

static void test_movetime(void **state) {
    (void)state;
    TimeBudget b = budget(0, 0, 0, 5000, 1, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 5000 - 500); /* NetworkDelay2 capped at a tenth */
    assert_int_equal(b.optimum_ms, b.maximum_ms);
    b = budget(0, 0, 0, 100000, 1, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 100000 - 1120);
    b = budget(0, 0, 0, 300, 1, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 300 - 70); /* 40 ms plus a tenth under 400 ms */
}

/* Byoyomi only: the whole byoyomi less the safety margin is used. */
static void test_byoyomi(void **state) {
    (void)state;
    TimeBudget b = budget(0, 0, 10000, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 10000 - 1000); /* NetworkDelay2 capped at a tenth */
    assert_true(b.optimum_ms >= 8000 && b.optimum_ms <= b.maximum_ms);
    /* A short byoyomi: the delays are capped at 30% so that most of it is still used. */
    b = budget(0, 0, 100, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 70);
    assert_true(b.optimum_ms >= 60 && b.optimum_ms <= 70);
    b = budget(0, 0, 200, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 140);
    /* Longer ones keep 40 ms plus a tenth (under 400 ms), then a tenth but at least 50 ms, back. */
    b = budget(0, 0, 300, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 230);
    b = budget(0, 0, 400, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 350);
    b = budget(0, 0, 500, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 450);
    assert_int_equal(b.optimum_ms, 450);
    b = budget(0, 0, 1000, 0, 40, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 900);
}

/* Sudden death: about a thirtieth of the clock, never more than a third. */
static void test_sudden_death(void **state) {
    (void)state;
    TimeBudget b = budget(600000, 0, 0, 0, 40, &DEFAULTS);
    assert_true(b.optimum_ms >= 600000 / 35 && b.optimum_ms <= 600000 / 25);
    assert_true(b.maximum_ms <= 600000 / 3);
    assert_true(b.maximum_ms >= b.optimum_ms);
    /* SlowMover 200 thinks about twice as long. */
    TimeOptions slow = DEFAULTS;
    slow.slow_mover = 200;
    TimeBudget s = budget(600000, 0, 0, 0, 40, &slow);
    assert_true(s.optimum_ms > b.optimum_ms * 3 / 2);
    /* In the opening a little less is spent. */
    TimeBudget early = budget(600000, 0, 0, 0, 1, &DEFAULTS);
    assert_true(early.optimum_ms < b.optimum_ms);
}

/* MinimumThinkingTime raises short budgets, but never past a quarter of the limit. */
static void test_minimum_thinking_time(void **state) {
    (void)state;
    TimeOptions o = DEFAULTS;
    o.minimum_thinking_ms = 3000;
    TimeBudget b = budget(60000, 0, 0, 0, 40, &o);
    assert_true(b.optimum_ms >= 3000);
    b = budget(2000, 0, 0, 0, 40, &o);
    assert_true(b.optimum_ms <= 2000 / 4 + 1);
}

/* A fake clock plays 300 moves; each move uses its whole hard limit plus a 5 ms reply
 * overhead. The clock must never fall, under Fischer 1 s + 100 ms, byoyomi 100 ms, and
 * 10 s sudden death with 1 s byoyomi. */
static void simulate(int64_t start, int64_t inc, int64_t byoyomi, const TimeOptions *o) {
    int64_t clock = start;
    for (int ply = 1; ply <= 300; ply++) {
        TimeBudget b = budget(clock, inc, byoyomi, 0, ply, o);
        int64_t used = b.maximum_ms + 5;
        clock -= used;
        if (clock < 0) {
            if (-clock > byoyomi)
                fail_msg("lost on time at ply %d (clock %lld, byoyomi %lld)", ply, (long long)clock,
                         (long long)byoyomi);
            clock = 0;
        }
        clock += inc;
    }
}

static void test_never_loses_on_time(void **state) {
    (void)state;
    simulate(1000, 100, 0, &DEFAULTS);
    simulate(0, 0, 100, &DEFAULTS);
    simulate(10000, 0, 1000, &DEFAULTS);
    TimeOptions zero = {0, 0, 0, 100};
    simulate(1000, 100, 0, &zero);
    simulate(0, 0, 100, &zero);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_clock_is_unlimited),
        cmocka_unit_test(test_movetime),
        cmocka_unit_test(test_byoyomi),
        cmocka_unit_test(test_sudden_death),
        cmocka_unit_test(test_minimum_thinking_time),
        cmocka_unit_test(test_never_loses_on_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
