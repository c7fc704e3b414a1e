/* test_root.c - search/root.h, the root rules both searchers share: the answer before
 * searching (declaration, no legal move), the forced move, resigning, and the thread's
 * life (an answer held while pondering or in infinite mode until ponderhit or stop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "search/root.h"

static void set(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

static void test_rule_answer(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    /* 30 points in the camp: a declaration under the 27-point rule only. */
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1");
    assert_int_equal(root_rule_answer(&pos, EKR_27, 5), MOVE_WIN);
    assert_int_equal(root_rule_answer(&pos, EKR_24, 5), MOVE_NONE);
    /* No legal move (mated by the gold on 5b): resign. */
    set(&pos, &st, "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1");
    assert_false(position_has_legal_move(&pos));
    assert_int_equal(root_rule_answer(&pos, EKR_27, 0), MOVE_RESIGN);
    position_set_startpos(&pos, &st);
    assert_int_equal(root_rule_answer(&pos, EKR_27, 30), MOVE_NONE);
}

static void test_forced_and_resign(void **state) {
    (void)state;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    TimeBudget timed = {1000, 2000}, untimed = {INT64_MAX, INT64_MAX};
    assert_true(root_forced_move(1, &lim, &timed, false));
    assert_false(root_forced_move(2, &lim, &timed, false));
    assert_false(root_forced_move(1, &lim, &timed, true)); /* pondering */
    assert_false(root_forced_move(1, &lim, &untimed, false));
    lim.depth = 3;
    assert_false(root_forced_move(1, &lim, &timed, false));
    lim.depth = 0;
    lim.infinite = true;
    assert_false(root_forced_move(1, &lim, &timed, false));
    assert_true(root_should_resign(-600, 500));
    assert_true(root_should_resign(-500, 500));
    assert_false(root_should_resign(-499, 500));
    assert_false(root_should_resign(-31000, 99999)); /* the default never resigns */
    assert_false(root_should_resign(-31999, 32000));
}

typedef struct {
    RootControl ctl;
    atomic_bool stop, ponder;
    double start_ms;
    atomic_int answered;
} Fake;

static void *fake_search(void *arg) {
    Fake *f = arg;
    root_control_hold(&f->ctl); /* the answer waits like a searcher's */
    atomic_store(&f->answered, 1);
    return NULL;
}

static void sleep_a_little(void) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void test_hold_until_ponderhit_or_stop(void **state) {
    (void)state;
    static Fake f;
    root_control_init(&f.ctl, &f.stop, &f.ponder, &f.start_ms);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    /* go ponder: held until ponderhit, which restarts the clock. */
    lim.ponder = true;
    lim.received_ms = 1;
    atomic_store(&f.answered, 0);
    root_control_arm(&f.ctl, &lim);
    assert_true(f.start_ms == 1);
    assert_true(root_control_start(&f.ctl, fake_search, &f));
    assert_true(root_control_running(&f.ctl));
    sleep_a_little();
    assert_int_equal(atomic_load(&f.answered), 0);
    root_control_ponderhit(&f.ctl);
    root_control_wait(&f.ctl);
    assert_int_equal(atomic_load(&f.answered), 1);
    assert_false(root_control_running(&f.ctl));
    assert_false(atomic_load(&f.ponder));
    assert_true(f.start_ms > 1);
    /* go infinite: held until stop (ponderhit does not release it). */
    lim.ponder = false;
    lim.infinite = true;
    atomic_store(&f.answered, 0);
    root_control_arm(&f.ctl, &lim);
    assert_false(atomic_load(&f.stop));
    root_control_start(&f.ctl, fake_search, &f);
    root_control_ponderhit(&f.ctl);
    sleep_a_little();
    assert_int_equal(atomic_load(&f.answered), 0);
    root_control_stop(&f.ctl);
    root_control_wait(&f.ctl);
    assert_int_equal(atomic_load(&f.answered), 1);
    /* A plain go is not held. */
    lim.infinite = false;
    atomic_store(&f.answered, 0);
    root_control_arm(&f.ctl, &lim);
    root_control_start(&f.ctl, fake_search, &f);
    root_control_wait(&f.ctl);
    assert_int_equal(atomic_load(&f.answered), 1);
    root_control_destroy(&f.ctl);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_answer),
        cmocka_unit_test(test_forced_and_resign),
        cmocka_unit_test(test_hold_until_ponderhit_or_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
