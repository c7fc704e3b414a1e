/* root.c - see root.h. */
#include "search/root.h"

void root_control_init(RootControl *c, atomic_bool *stop, atomic_bool *ponder, double *start_ms) {
    c->stop = stop;
    c->ponder = ponder;
    c->start_ms = start_ms;
    c->infinite = false;
    c->running = false;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
}

void root_control_destroy(RootControl *c) {
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
}

void root_control_arm(RootControl *c, const SearchLimits *limits) {
    /* The clock runs from the moment go was read: whatever came between (a busy machine,
     * the previous search's join) is already spent. */
    double now = search_now_ms();
    *c->start_ms = limits->received_ms > 0 && limits->received_ms <= now ? limits->received_ms : now;
    c->infinite = limits->infinite;
    atomic_store(c->stop, false);
    atomic_store(c->ponder, limits->ponder);
}

bool root_control_start(RootControl *c, void *(*fn)(void *), void *arg) {
    if (pthread_create(&c->thread, NULL, fn, arg) != 0) {
        fn(arg); /* no thread to be had: search here, synchronously */
        return false;
    }
    c->running = true;
    return true;
}

void root_control_stop(RootControl *c) {
    pthread_mutex_lock(&c->lock);
    atomic_store(c->stop, true);
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

void root_control_ponderhit(RootControl *c) {
    pthread_mutex_lock(&c->lock);
    if (atomic_load(c->ponder)) {
        *c->start_ms = search_now_ms();
        atomic_store(c->ponder, false);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

void root_control_wait(RootControl *c) {
    if (c->running) {
        pthread_join(c->thread, NULL);
        c->running = false;
    }
}

bool root_control_running(const RootControl *c) { return c->running; }

void root_control_hold(RootControl *c) {
    pthread_mutex_lock(&c->lock);
    while (!atomic_load(c->stop) && (atomic_load(c->ponder) || c->infinite))
        pthread_cond_wait(&c->cond, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

void root_control_hold_until_stop(RootControl *c) {
    pthread_mutex_lock(&c->lock);
    while (!atomic_load(c->stop))
        pthread_cond_wait(&c->cond, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

Move root_rule_answer(const Position *pos, EnteringKingRule ekr, int legal_count) {
    Move declaration = position_declaration(pos, ekr);
    if (declaration != MOVE_NONE)
        return declaration;
    return legal_count == 0 ? MOVE_RESIGN : MOVE_NONE;
}

bool root_forced_move(int legal_count, const SearchLimits *limits, const TimeBudget *budget, bool pondering) {
    return legal_count == 1 && !limits->infinite && !pondering && limits->depth == 0 && limits->nodes == 0 &&
           budget->maximum_ms != INT64_MAX;
}

bool root_should_resign(int score, int resign_value) { return resign_value < 32000 && score <= -resign_value; }
