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
    int64_t movetime_ms; /* fixed time per move (see timed) */
    int ply;             /* game ply, to spend less in the opening */
    bool timed;          /* a time field was given: zeros then mean "no time", not "no limit" */
    int max_ply;         /* the game is drawn after this ply (MaxMovesToDraw); 0 = no limit */
    int64_t lag_ms;      /* how late recent replies came after the hard limit (load) */
} TimeControl;

typedef struct {
    int64_t optimum_ms; /* stop after an iteration once this is spent */
    int64_t maximum_ms; /* never think longer than this */
} TimeBudget;

/* The budget for one move (see docs/usi.md, "Time management").
 * - No time field at all (timed false and every field 0): unlimited (INT64_MAX), the
 *   search ends on depth, nodes or stop. A timed go whose fields are all 0 gets the least
 *   time (1 ms), never an unlimited search.
 * - movetime: the whole time less the NetworkDelay2 margin.
 * - The hard limit is the time left plus the byoyomi less a margin: min(NetworkDelay2,
 *   cap), where cap is 30% (or 40 ms plus a tenth) of what the move may use under 400 ms
 *   and a tenth (at least 50 ms) above, at least 10 ms, and at least the measured lag of
 *   recent replies (tc->lag_ms, the machine's load) up to half of what the move may use.
 * - Main time is planned over a horizon of our moves (40 in the opening, 30 later, fewer
 *   when MaxMovesToDraw ends the game sooner), scaled by SlowMover; the increment is
 *   added whole, the byoyomi in proportion to how small the main time has become
 *   (byoyomi / time left), so that main time lasts into the middle game instead of being
 *   spent on the first moves; once less than one byoyomi of main time is left, the move
 *   uses all of it. NetworkDelay comes off the optimum (at most a tenth);
 *   MinimumThinkingTime raises it up to a quarter of the hard limit.
 * - A difficult move may use up to five optima (at most a third of the main time plus
 *   the byoyomi and increment), never more than the hard limit. */
TimeBudget timeman_budget(const TimeControl *tc, const TimeOptions *opt);

/* The lag estimate after a reply: how late (ms) the reply came after the hard limit
 * (negative or 0 when on time) folded into the previous estimate, which decays by a
 * quarter per move, so a loaded period widens the margin and a quiet one narrows it. */
int64_t timeman_update_lag(int64_t previous_lag_ms, int64_t late_ms);

#endif
