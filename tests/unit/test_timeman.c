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
    TimeControl tc = {left, inc, byoyomi, movetime, ply, true, 0, 0};
    return timeman_budget(&tc, o);
}

static void test_no_clock_is_unlimited(void **state) {
    (void)state;
    TimeControl tc = {0, 0, 0, 0, 1, false, 0, 0}; /* go, go depth N, go nodes N */
    TimeBudget b = timeman_budget(&tc, &DEFAULTS);
    assert_true(b.maximum_ms == INT64_MAX && b.optimum_ms == INT64_MAX);
}

/* Zero time is the least time: go btime 0 wtime 0, byoyomi 0 and
 * movetime 0 are timed, and their limit is 1 ms, not "until stop". */
static void test_zero_time_is_least(void **state) {
    (void)state;
    TimeBudget b = budget(0, 0, 0, 0, 1, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 1);
    assert_int_equal(b.optimum_ms, 1);
    b = budget(-1000, 0, 0, 0, 30, &DEFAULTS); /* a negative clock is no time at all */
    assert_int_equal(b.maximum_ms, 1);
    /* A few milliseconds are less than any margin: still the least time. */
    b = budget(5, 0, 0, 0, 30, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 1);
    b = budget(0, 0, 5, 0, 30, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 1);
}

/* The lag of recent replies (a loaded machine) widens the byoyomi margin, up to half of
 * what the move may use. */
static void test_lag_widens_margin(void **state) {
    (void)state;
    TimeControl tc = {0, 0, 200, 0, 40, true, 0, 0};
    assert_int_equal(timeman_budget(&tc, &DEFAULTS).maximum_ms, 140);
    tc.lag_ms = 20;
    assert_int_equal(timeman_budget(&tc, &DEFAULTS).maximum_ms, 120); /* 60 + 20 kept back */
    tc.lag_ms = 1000;
    assert_int_equal(timeman_budget(&tc, &DEFAULTS).maximum_ms, 100); /* never more than half */
    tc.byoyomi_ms = 10000;
    tc.lag_ms = 300;
    assert_int_equal(timeman_budget(&tc, &DEFAULTS).maximum_ms, 10000 - 1000 - 300);
    tc.byoyomi_ms = 0;
    tc.movetime_ms = 1000;
    tc.lag_ms = 100;
    assert_int_equal(timeman_budget(&tc, &DEFAULTS).maximum_ms, 1000 - 100 - 100);
    /* The estimate follows the latest late reply and decays by a quarter a move. */
    assert_int_equal(timeman_update_lag(0, 80), 80);
    assert_int_equal(timeman_update_lag(80, -5), 60);
    assert_int_equal(timeman_update_lag(60, 0), 45);
    assert_int_equal(timeman_update_lag(45, 100), 100);
    assert_int_equal(timeman_update_lag(0, -50), 0);
}

/* Main time plus byoyomi, 30 s + 5 s (the whole main time went on the
 * first 8 moves). Each of our moves uses its optimum, or 1.5 optima (an unstable best
 * move) within the hard limit every third move: the main time must last well past the
 * opening, yet be used up in the middle game, and the clock must never fall. */
/* Sets *main_gone_at to the move that used up the main time (0 if it never ran out). */
static void play_main_and_byoyomi(int64_t main_ms, int64_t byoyomi, double unstable, int *main_gone_at) {
    int64_t main_left = main_ms;
    *main_gone_at = 0;
    for (int move = 1; move <= 100; move++) {
        int ply = 2 * move - 1;
        TimeBudget b = budget(main_left, 0, byoyomi, 0, ply, &DEFAULTS);
        assert_true(b.optimum_ms <= b.maximum_ms);
        assert_true(b.maximum_ms <= main_left + byoyomi);
        int64_t used = b.optimum_ms;
        if (move % 3 == 0 && (int64_t)(used * unstable) < b.maximum_ms)
            used = (int64_t)(used * unstable);
        if (used <= main_left) {
            main_left -= used;
        } else {
            if (used - main_left > byoyomi)
                fail_msg("lost on time at move %d", move);
            main_left = 0;
        }
        if (main_left == 0 && !*main_gone_at)
            *main_gone_at = move;
    }
}

static void test_main_time_spread(void **state) {
    (void)state;
    int gone;
    /* After 8 moves most of the main time is still there. */
    int64_t left = 30000;
    for (int move = 1; move <= 8; move++)
        left -= budget(left, 0, 5000, 0, 2 * move - 1, &DEFAULTS).optimum_ms;
    assert_true(left >= 30000 / 2);
    /* The first move thinks about 1.5 s, not byoyomi + a share (5.75 s). */
    TimeBudget first = budget(30000, 0, 5000, 0, 1, &DEFAULTS);
    assert_true(first.optimum_ms >= 1000 && first.optimum_ms <= 2500);
    play_main_and_byoyomi(30000, 5000, 1.0, &gone);
    assert_true(gone >= 12 && gone <= 40);
    play_main_and_byoyomi(30000, 5000, 1.5, &gone);
    assert_true(gone >= 10 && gone <= 40);
    /* 10 minutes + 10 s: about 600 s / 40 a move at first. */
    first = budget(600000, 0, 10000, 0, 1, &DEFAULTS);
    assert_true(first.optimum_ms >= 14000 && first.optimum_ms <= 17000);
    play_main_and_byoyomi(600000, 10000, 1.5, &gone);
    assert_true(gone >= 25 && gone <= 80); /* gone by ply 160 */
    /* Less than one byoyomi of main time left: use it all now, with the byoyomi. */
    TimeBudget b = budget(3000, 0, 5000, 0, 61, &DEFAULTS);
    assert_int_equal(b.maximum_ms, 8000 - 800);
    assert_int_equal(b.optimum_ms, b.maximum_ms);
}

/* MaxMovesToDraw shortens the horizon: near the end the main time is spent faster. */
static void test_horizon_ends_with_the_game(void **state) {
    (void)state;
    TimeControl tc = {60000, 0, 0, 0, 250, true, 0, 0};
    TimeBudget open = timeman_budget(&tc, &DEFAULTS);
    tc.max_ply = 256; /* 4 moves of ours left */
    TimeBudget end = timeman_budget(&tc, &DEFAULTS);
    assert_true(end.optimum_ms > open.optimum_ms * 5);
    assert_true(end.maximum_ms <= 60000 - 50);
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
        cmocka_unit_test(test_zero_time_is_least),
        cmocka_unit_test(test_lag_widens_margin),
        cmocka_unit_test(test_main_time_spread),
        cmocka_unit_test(test_horizon_ends_with_the_game),
        cmocka_unit_test(test_movetime),
        cmocka_unit_test(test_byoyomi),
        cmocka_unit_test(test_sudden_death),
        cmocka_unit_test(test_minimum_thinking_time),
        cmocka_unit_test(test_never_loses_on_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
