/* watchdog.c - see watchdog.h. */
#include "search/watchdog.h"

#include <time.h>

#include "search/search.h"

void watchdog_init(Watchdog *w) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w->lock, NULL);
    w->armed = false;
    w->cancelled = false;
}

void watchdog_destroy(Watchdog *w) {
    watchdog_cancel(w);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
}

static void *watchdog_main(void *arg) {
    Watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        if (w->cancelled) {
            pthread_mutex_unlock(&w->lock);
            return NULL;
        }
        double left = w->at_ms - search_now_ms();
        if (left <= 0)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)(left * 1e6);
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        pthread_cond_timedwait(&w->cond, &w->lock, &ts);
    }
    pthread_mutex_unlock(&w->lock);
    w->fire(w->ctx);
    return NULL;
}

bool watchdog_arm(Watchdog *w, double at_ms, void (*fire)(void *ctx), void *ctx) {
    watchdog_cancel(w);
    w->at_ms = at_ms;
    w->fire = fire;
    w->ctx = ctx;
    w->cancelled = false;
    w->armed = pthread_create(&w->thread, NULL, watchdog_main, w) == 0;
    return w->armed;
}

void watchdog_cancel(Watchdog *w) {
    if (!w->armed)
        return;
    pthread_mutex_lock(&w->lock);
    w->cancelled = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->armed = false;
}
