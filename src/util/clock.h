/* clock.h - the one clock: monotonic time for budgets, timeouts, progress and speed
 * figures (never the wall-clock date). Thread-safe, no state. */
#ifndef HAYANAGI_UTIL_CLOCK_H
#define HAYANAGI_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Microseconds on CLOCK_MONOTONIC since an arbitrary fixed origin. */
static inline int64_t clock_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Milliseconds on the same clock, with a fractional part. */
static inline double clock_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

#endif
