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

TimeBudget timeman_budget(const TimeControl *tc, const TimeOptions *opt) {
    TimeBudget b = {INT64_MAX, INT64_MAX};
    if (tc->movetime_ms > 0) {
        int64_t hard = tc->movetime_ms - min64(opt->network_delay2_ms, delay2_cap(tc->movetime_ms));
        b.maximum_ms = b.optimum_ms = max64(1, hard);
        return b;
    }
    if (tc->time_left_ms <= 0 && tc->byoyomi_ms <= 0 && tc->increment_ms <= 0)
        return b; /* no clock given: think until told to stop */

    int64_t left = max64(0, tc->time_left_ms);
    /* Everything this move may use before the clock falls. With an increment the clock
     * has already been credited, so only what is left counts. */
    int64_t available = left + tc->byoyomi_ms;
    int64_t cap = delay2_cap(available);
    int64_t margin = max64(10, min64(opt->network_delay2_ms, cap));
    int64_t hard = available - margin;

    /* Spend a little less in the opening, where books and shallow plans suffice. */
    int64_t moves_to_go = tc->ply < 20 ? 40 : 30;
    int64_t share = left / moves_to_go * max64(10, opt->slow_mover) / 100;
    int64_t optimum = share + tc->byoyomi_ms + tc->increment_ms;
    optimum -= min64(opt->network_delay_ms, optimum / 10);
    /* MinimumThinkingTime is honoured up to a quarter of what the move may use. */
    optimum = max64(optimum, min64(opt->minimum_thinking_ms, hard / 4));

    /* The hard limit lets a difficult move take up to five shares (but never more than
     * a third of the clock on top of the byoyomi and increment). */
    int64_t maximum = min64(hard, max64(optimum, min64(share * 5, left / 3) + tc->byoyomi_ms + tc->increment_ms));
    b.maximum_ms = max64(1, maximum);
    b.optimum_ms = max64(1, min64(optimum, b.maximum_ms));
    return b;
}
