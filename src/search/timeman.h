/* timeman.h - how long to think. Pure functions of the clock and the options, so tests
 * can drive them with a fake clock. */
#ifndef HAYANAGI_SEARCH_TIMEMAN_H
#define HAYANAGI_SEARCH_TIMEMAN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int minimum_thinking_ms; /* MinimumThinkingTime */
    int network_delay_ms;    /* NetworkDelay: subtracted from the optimum */
    int network_delay2_ms;   /* NetworkDelay2: subtracted from the hard limit */
    int slow_mover;          /* SlowMover, percent: above 100 thinks longer */
} TimeOptions;

typedef struct {
    int64_t time_left_ms; /* our clock (btime or wtime) */
    int64_t increment_ms; /* our binc/winc */
    int64_t byoyomi_ms;
    int64_t movetime_ms; /* fixed time per move, 0 if none */
    int ply;             /* game ply, to spend less in the opening */
} TimeControl;

typedef struct {
    int64_t optimum_ms; /* stop after an iteration once this is spent */
    int64_t maximum_ms; /* never think longer than this */
} TimeBudget;

/* The budget for one move. Rules (see docs/usi.md): about 1/30 of the remaining time
 * scaled by SlowMover, plus the increment and the byoyomi; NetworkDelay is taken off
 * the optimum and NetworkDelay2 off the hard limit, each capped at about a tenth of what
 * the move may use so that a short byoyomi is never eaten whole (NetworkDelay2 at 30%,
 * or 40 ms plus a tenth, under 400 ms, and at no less than 50 ms above); the hard limit keeps a
 * margin of at least 10 ms below the point where the clock would fall; MinimumThinkingTime
 * raises the optimum, but to no more than a quarter of the hard limit. With no time
 * information at all the budget is unlimited (maximum_ms = INT64_MAX). */
TimeBudget timeman_budget(const TimeControl *tc, const TimeOptions *opt);

#endif
