/* clock.c - the server's clock (clock.h). */
#include "csa/clock.h"

#include <stdio.h>
#include <string.h>

void csa_clock_init(CsaClock *c, const CsaSummary *s) {
    memset(c, 0, sizeof *c);
    c->unit_ms = s->time_unit_ms;
    for (int k = 0; k < COLOR_NB; k++) {
        c->time[k] = s->time[k];
        c->remaining_ms[k] = s->time[k].total_ms;
    }
    /* The moves already played were charged by the server; its Remaining_Time, when
     * given, is the result and wins over our replay. */
    Color side;
    StateInfo st;
    Position pos;
    side = position_from_sfen(&pos, &st, s->root_sfen, NULL, 0) ? pos.side : BLACK;
    for (int i = 0; i < s->n_moves; i++) {
        csa_clock_charge(c, side, s->move_units[i]);
        side = (Color)!side;
    }
    for (int k = 0; k < COLOR_NB; k++)
        if (s->time[k].remaining_ms >= 0)
            c->remaining_ms[k] = s->time[k].remaining_ms;
}

void csa_clock_charge(CsaClock *c, Color side, int64_t units) {
    int64_t ms = units < 0 ? 0 : units * c->unit_ms;
    if (ms < c->time[side].least_ms)
        ms = c->time[side].least_ms;
    int64_t r = c->remaining_ms[side] + c->time[side].increment_ms - ms;
    c->remaining_ms[side] = r < 0 ? 0 : r;
}

int64_t csa_clock_budget_ms(const CsaClock *c, Color side, int64_t margin_ms) {
    const CsaSideTime *t = &c->time[side];
    int64_t b = c->remaining_ms[side] + t->byoyomi_ms + t->increment_ms;
    /* Flooring: a move charged k units is in time while k < limit / unit, so the last
     * whole unit below the limit is the most we may use; rounding up takes one more. */
    b -= t->roundup ? c->unit_ms : 0;
    b -= margin_ms;
    return b < 0 ? 0 : b;
}

static int64_t at_least0(int64_t v) { return v < 0 ? 0 : v; }

char *csa_clock_go(const CsaClock *c, Color side, int64_t margin_ms, char *buf, size_t cap) {
    int64_t rem[COLOR_NB] = {c->remaining_ms[BLACK], c->remaining_ms[WHITE]};
    const CsaSideTime *t = &c->time[side];
    if (t->roundup) /* a started unit is charged whole: one less is ours */
        margin_ms += c->unit_ms;
    if (t->increment_ms > 0) {
        /* Fischer: the server lets the move run to remaining + increment, USI engines
         * spend at most btime; the margin comes off btime, never below zero. */
        rem[side] = at_least0(rem[side] - margin_ms);
        snprintf(buf, cap, "btime %lld wtime %lld binc %lld winc %lld", (long long)rem[BLACK], (long long)rem[WHITE],
                 (long long)c->time[BLACK].increment_ms, (long long)c->time[WHITE].increment_ms);
    } else {
        int64_t byo = t->byoyomi_ms;
        if (byo > 0) {
            byo = at_least0(byo - margin_ms);
        } else {
            rem[side] = at_least0(rem[side] - margin_ms); /* sudden death */
        }
        snprintf(buf, cap, "btime %lld wtime %lld byoyomi %lld", (long long)rem[BLACK], (long long)rem[WHITE],
                 (long long)byo);
    }
    return buf;
}
