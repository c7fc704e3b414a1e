/* watchdog.h - a timer thread for the reply of last resort. On a loaded machine a search
 * thread that has used its share of the CPU can wait a long time (hundreds of
 * milliseconds were measured) before it runs again to notice its deadline, while a
 * thread that slept until then is scheduled at once. The driver arms a Watchdog a little
 * after the hard time limit; if the search has not answered by then, the watchdog
 * answers with the best move of the last completed iteration. */
#ifndef HAYANAGI_SEARCH_WATCHDOG_H
#define HAYANAGI_SEARCH_WATCHDOG_H

#include <pthread.h>
#include <stdbool.h>

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC, the clock of search_now_ms() */
    bool armed;          /* a thread exists and has not been joined */
    bool cancelled;
    double at_ms;
    void (*fire)(void *ctx);
    void *ctx;
} Watchdog;

/* Prepares w (not armed). */
void watchdog_init(Watchdog *w);
/* Cancels w if armed and frees its lock and condition. */
void watchdog_destroy(Watchdog *w);
/* Starts a thread that calls fire(ctx) once search_now_ms() reaches at_ms, unless
 * watchdog_cancel comes first. False (nothing armed) when no thread can be had. */
bool watchdog_arm(Watchdog *w, double at_ms, void (*fire)(void *ctx), void *ctx);
/* Wakes the thread and joins it: afterwards fire is not running and will not run. A
 * no-op when not armed. Never call it from fire. */
void watchdog_cancel(Watchdog *w);

#endif
