/* timeman.c - see timeman.h. */
#include "search/timeman.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* NetworkDelay2 is kept back, but at most 30% of a short clock (on a busy machine the
 * engine can wait tens of milliseconds for a CPU before and after its search), 40 ms
 * plus a tenth of one under 400 ms, and a tenth (at least 50 ms) of a longer one: the
 * reply comes 10-20 ms after the search stops, so more would only be wasted. */
static int64_t delay2_cap(int64_t available) {
    return available < 400 ? min64(available * 3 / 10, 40 + available / 10) : max64(50, available / 10);
}

/* The margin kept below the point where the clock falls: the capped NetworkDelay2, at
 * least 10 ms, widened by the lag measured on recent replies up to half of available. */
static int64_t hard_margin(int64_t available, const TimeControl *tc, const TimeOptions *opt) {
    int64_t margin = max64(10, min64(opt->network_delay2_ms, delay2_cap(available)));
    if (tc->lag_ms > 0)
        margin = max64(margin, min64(available / 2, margin + tc->lag_ms));
    return margin;
}

/* How many of our moves the main time should last: 40 in the opening, 30 later, and no
 * more than the moves left before MaxMovesToDraw ends the game. */
static int64_t moves_horizon(const TimeControl *tc) {
    int64_t mtg = tc->ply < 20 ? 40 : 30;
    if (tc->max_ply > 0) {
        int64_t ours_left = max64(1, ((int64_t)tc->max_ply - tc->ply + 2) / 2);
        mtg = min64(mtg, ours_left);
    }
    return mtg;
}

TimeBudget timeman_budget(const TimeControl *tc, const TimeOptions *opt) {
    TimeBudget b = {INT64_MAX, INT64_MAX};
    bool any = tc->time_left_ms > 0 || tc->byoyomi_ms > 0 || tc->increment_ms > 0 || tc->movetime_ms > 0;
    if (!tc->timed && !any)
        return b; /* no clock given: think until told to stop (or depth, nodes) */
    if (tc->movetime_ms > 0) {
        int64_t hard = tc->movetime_ms - hard_margin(tc->movetime_ms, tc, opt);
        b.maximum_ms = b.optimum_ms = max64(1, hard);
        return b;
    }

    int64_t left = max64(0, tc->time_left_ms);
    int64_t byoyomi = max64(0, tc->byoyomi_ms), inc = max64(0, tc->increment_ms);
    /* Everything this move may use before the clock falls. With an increment the clock
     * has already been credited, so only what is left counts. */
    int64_t available = left + byoyomi;
    int64_t hard = available - hard_margin(available, tc, opt);
    if (hard < 1) {
        b.maximum_ms = b.optimum_ms = 1; /* zero time is the least time */
        return b;
    }

    /* Main time over the horizon. While main time lasts, a move's time comes out of it
     * (the byoyomi only starts when it is gone), so the byoyomi is counted in proportion
     * to how small the main time has become: a 30 s + 5 s game then spends about 1.5 s a
     * move at first and keeps its main time into the middle game. */
    int64_t share = left / moves_horizon(tc) * max64(10, opt->slow_mover) / 100;
    int64_t byoyomi_part = left <= byoyomi ? byoyomi : byoyomi * byoyomi / left;
    int64_t optimum = share + byoyomi_part + inc;
    optimum -= min64(opt->network_delay_ms, optimum / 10);
    /* MinimumThinkingTime is honoured up to a quarter of what the move may use. */
    optimum = max64(optimum, min64(opt->minimum_thinking_ms, hard / 4));
    if (byoyomi > 0 && left < byoyomi)
        optimum = hard; /* less than one byoyomi of main time: it is worth more used now */

    /* A difficult move may take up to five optima, but never more than a third of the
     * main time on top of the byoyomi part and the increment. */
    int64_t maximum = min64(hard, max64(optimum, min64(optimum * 5, left / 3 + byoyomi_part + inc)));
    b.maximum_ms = max64(1, maximum);
    b.optimum_ms = max64(1, min64(optimum, b.maximum_ms));
    return b;
}

int64_t timeman_update_lag(int64_t previous_lag_ms, int64_t late_ms) {
    int64_t decayed = max64(0, previous_lag_ms) * 3 / 4;
    return max64(decayed, late_ms);
}
