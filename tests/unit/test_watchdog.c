/* test_watchdog.c - the reply of last resort. A search thread that
 * cannot run (here: held inside its info report, as a thread starved of CPU on a loaded
 * machine is held) must not leave the GUI waiting past its time: the watchdog answers a
 * little after the hard limit with the best move of the last completed iteration, and the
 * search, once it runs again, gives no second bestmove. Without a clock nothing is armed
 * and the answer comes from the search as always. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "search/search.h"
#include "shogi/notation.h"
#include "usi/info_text.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int infos;          /* info depth lines seen */
    int hold_at;        /* the info line (1-based) during which the search thread is held */
    bool held, release; /* the search thread is held / may go on */
    int bestmoves;
    Move best;
    char held_line[4096];
    char last_info[4096]; /* the last info line before the bestmove */
} Probe;

static void on_info(void *ctx, const SearchInfo *in) {
    Probe *p = ctx;
    char line[4096]; /* the text the engine writes for this report (PVs here are short) */
    usi_info_text(in, line, sizeof line);
    pthread_mutex_lock(&p->lock);
    snprintf(p->last_info, sizeof p->last_info, "%s", line);
    if (strncmp(line, "info depth ", 11) == 0 && ++p->infos == p->hold_at) {
        snprintf(p->held_line, sizeof p->held_line, "%s", line);
        p->held = true;
        pthread_cond_broadcast(&p->cond);
        while (!p->release)
            pthread_cond_wait(&p->cond, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

static void on_bestmove(void *ctx, Move best, Move ponder) {
    (void)ponder;
    Probe *p = ctx;
    pthread_mutex_lock(&p->lock);
    p->bestmoves++;
    p->best = best;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* Waits (at most 30 s of wall time, a bound no passing run comes near) for cond. */
static bool wait_for(Probe *p, bool (*cond)(const Probe *)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    while (!cond(p) && rc == 0)
        rc = pthread_cond_timedwait(&p->cond, &p->lock, &until);
    bool ok = cond(p);
    pthread_mutex_unlock(&p->lock);
    return ok;
}
static bool is_held(const Probe *p) { return p->held; }
static bool answered(const Probe *p) { return p->bestmoves > 0; }

static void test_watchdog_answers_for_a_held_search(void **state) {
    (void)state;
    Search *s = search_create(16);
    assert_non_null(s);
    Game g;
    game_init(&g);
    char err[128];
    assert_true(game_set_sfen(&g, STARTPOS_SFEN, err, sizeof err));
    Probe p = {.hold_at = 1};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.cond, NULL);
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.timed = true;
    lim.byoyomi = 2000; /* hard limit 1800 ms */
    SearchReporter rep = {on_info, on_bestmove, NULL, &p};
    search_go(s, &g, &lim, &opt, &rep);
    assert_true(wait_for(&p, is_held));
    /* The search thread is held inside its first PV report: the watchdog answers. */
    if (!wait_for(&p, answered))
        fail_msg("no bestmove while the search thread was held");
    pthread_mutex_lock(&p.lock);
    assert_int_equal(p.bestmoves, 1);
    /* It plays the move of the held report (the snapshot), after a closing info line. */
    char want[USI_MOVE_MAX + 8];
    snprintf(want, sizeof want, " pv %s", move_to_usi(p.best, want + 8));
    if (!strstr(p.held_line, want))
        fail_msg("bestmove %s is not the held line's first move: %s", want + 4, p.held_line);
    if (strncmp(p.last_info, "info depth ", 11) != 0 || !strstr(p.last_info, " time ") || !strstr(p.last_info, want))
        fail_msg("no closing info line before the watchdog's bestmove: %s", p.last_info);
    p.release = true;
    pthread_cond_broadcast(&p.cond);
    pthread_mutex_unlock(&p.lock);
    search_wait(s);
    assert_int_equal(p.bestmoves, 1); /* the search gave no second answer */

    /* Without a clock nothing is armed: a held depth search answers only when it runs. */
    Probe q = {.hold_at = 2};
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.cond, NULL);
    memset(&lim, 0, sizeof lim);
    lim.depth = 3;
    SearchReporter rep2 = {on_info, on_bestmove, NULL, &q};
    search_go(s, &g, &lim, &opt, &rep2);
    assert_true(wait_for(&q, is_held));
    pthread_mutex_lock(&q.lock);
    assert_int_equal(q.bestmoves, 0);
    q.release = true;
    pthread_cond_broadcast(&q.cond);
    pthread_mutex_unlock(&q.lock);
    search_wait(s);
    assert_int_equal(q.bestmoves, 1);

    pthread_mutex_destroy(&p.lock);
    pthread_cond_destroy(&p.cond);
    pthread_mutex_destroy(&q.lock);
    pthread_cond_destroy(&q.cond);
    game_free(&g);
    search_destroy(s);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watchdog_answers_for_a_held_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
