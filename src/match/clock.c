/* clock.c - the match's clock (clock.h). */
#include "match/clock.h"

#include <stdio.h>
#include <string.h>

char *time_control_describe(const TimeControl *tc, char *buf, size_t len) {
    if (tc->nodes > 0)
        snprintf(buf, len, "nodes %lld", (long long)tc->nodes);
    else if (tc->time_ms > 0 && tc->inc_ms > 0)
        snprintf(buf, len, "%lld ms + %lld ms/move", (long long)tc->time_ms, (long long)tc->inc_ms);
    else if (tc->time_ms > 0 && tc->byoyomi_ms > 0)
        snprintf(buf, len, "%lld ms + byoyomi %lld ms", (long long)tc->time_ms, (long long)tc->byoyomi_ms);
    else if (tc->time_ms > 0)
        snprintf(buf, len, "%lld ms sudden death", (long long)tc->time_ms);
    else
        snprintf(buf, len, "byoyomi %lld ms", (long long)tc->byoyomi_ms);
    return buf;
}

static bool same_clock(const TimeControl *a, const TimeControl *b) {
    return a->time_ms == b->time_ms && a->inc_ms == b->inc_ms && a->byoyomi_ms == b->byoyomi_ms;
}

char *time_controls_describe(const TimeControl tc[2], char *buf, size_t len) {
    char one[2][96];
    for (int k = 0; k < 2; k++)
        time_control_describe(&tc[k], one[k], sizeof one[k]);
    bool nodes[2] = {tc[0].nodes > 0, tc[1].nodes > 0};
    if (nodes[0] != nodes[1]) { /* the clock of the one on it, then the other's nodes */
        int k = nodes[0] ? 0 : 1;
        snprintf(buf, len, "%s; engine %d nodes %lld", one[1 - k], k + 1, (long long)tc[k].nodes);
    } else if (nodes[0] ? tc[0].nodes == tc[1].nodes : same_clock(&tc[0], &tc[1])) {
        snprintf(buf, len, "%s", one[0]);
    } else {
        snprintf(buf, len, "engine 1 %s; engine 2 %s", one[0], one[1]);
    }
    return buf;
}

RecordTimeControl time_control_for_record(const TimeControl *tc) {
    if (tc->nodes > 0)
        return (RecordTimeControl){0};
    return (RecordTimeControl){
        .set = true, .total_ms = tc->time_ms, .byoyomi_ms = tc->byoyomi_ms, .increment_ms = tc->inc_ms};
}

/* ---- From the command line ---- */

static bool given(const ClockArg *a) { return a->value >= 0; }

/* The own option when given, else the common one. */
static const ClockArg *pick(const ClockArg *common, const ClockArg *own) { return given(own) ? own : common; }

bool time_control_resolve(const ClockArgs *common, const ClockArgs *own, const char *who, TimeControl *out, char *why,
                          size_t why_len) {
    memset(out, 0, sizeof *out);
    bool own_clock = given(&own->time) || given(&own->inc) || given(&own->byoyomi);
    bool common_clock = given(&common->time) || given(&common->inc) || given(&common->byoyomi);
    if (given(&own->nodes) && own_clock) {
        snprintf(why, why_len, "%s: %s cannot be combined with %s, %s or %s", who, own->nodes.flag, own->byoyomi.flag,
                 own->time.flag, own->inc.flag);
        return false;
    }
    if (!given(&own->nodes) && !own_clock && given(&common->nodes) && common_clock) {
        snprintf(why, why_len, "%s cannot be combined with %s, %s or %s", common->nodes.flag, common->byoyomi.flag,
                 common->time.flag, common->inc.flag);
        return false;
    }
    const ClockArg *t = pick(&common->time, &own->time), *i = pick(&common->inc, &own->inc),
                   *b = pick(&common->byoyomi, &own->byoyomi);
    out->time_ms = given(t) ? t->value : 0;
    out->inc_ms = given(i) ? i->value : 0;
    out->byoyomi_ms = given(b) ? b->value : (given(t) ? 0 : 1000);
    if (given(&own->nodes))
        out->nodes = own->nodes.value;
    else if (!own_clock && given(&common->nodes))
        out->nodes = common->nodes.value;
    if (out->nodes > 0) /* the clock is not this engine's: what it says is not checked */
        return true;
    if (given(i) && !given(t)) {
        snprintf(why, why_len, "%s: %s needs a main time (%s or %s)", who, i->flag, own->time.flag, common->time.flag);
        return false;
    }
    if (given(i) && given(b)) {
        snprintf(why, why_len, "%s: use either %s (Fischer) or %s, not both", who, i->flag, b->flag);
        return false;
    }
    return true;
}

/* ---- During a game ---- */

void match_clock_start(MatchClock *c, const TimeControl *black, const TimeControl *white) {
    c->tc[BLACK] = *black;
    c->tc[WHITE] = *white;
    /* a side on nodes keeps its main time as given: the other side is told it, unused */
    c->remaining_ms[BLACK] = black->time_ms;
    c->remaining_ms[WHITE] = white->time_ms;
}

bool match_clock_by_nodes(const MatchClock *c, Color side) { return c->tc[side].nodes > 0; }

char *match_clock_go(const MatchClock *c, Color side, bool swapped, char *buf, size_t len) {
    const TimeControl *own = &c->tc[side];
    if (own->nodes > 0) {
        snprintf(buf, len, "go nodes %lld", (long long)own->nodes);
        return buf;
    }
    Color b = swapped ? WHITE : BLACK, w = swapped ? BLACK : WHITE; /* whose figures go as btime, wtime */
    int n =
        snprintf(buf, len, "go btime %lld wtime %lld", (long long)c->remaining_ms[b], (long long)c->remaining_ms[w]);
    if (n < 0 || (size_t)n >= len)
        return buf;
    if (own->byoyomi_ms > 0)
        snprintf(buf + n, len - (size_t)n, " byoyomi %lld", (long long)own->byoyomi_ms);
    else if (own->inc_ms > 0) /* each side's own increment */
        snprintf(buf + n, len - (size_t)n, " binc %lld winc %lld", (long long)c->tc[b].inc_ms,
                 (long long)c->tc[w].inc_ms);
    return buf;
}

int64_t match_clock_allowed_ms(const MatchClock *c, Color side) {
    return c->remaining_ms[side] + c->tc[side].byoyomi_ms;
}

void match_clock_charge(MatchClock *c, Color side, int64_t used_ms) {
    if (c->tc[side].nodes > 0)
        return;
    int64_t left = c->remaining_ms[side] - used_ms;
    c->remaining_ms[side] = (left > 0 ? left : 0) + c->tc[side].inc_ms;
}
