/* clock.h - the game clock as the server keeps it. The server is the only judge of time:
 * each move line it sends carries the time it charged (",T<n>" in Time_Unit), and that,
 * not our own stopwatch, is what the remaining time is computed from.
 *
 * The server's arithmetic (shogi-server shogi_server/time_clock.rb, floodgate's rules):
 * a move is charged max(T, Least_Time_Per_Move); the side's remaining time gets the
 * Increment and loses the charge, and is floored at 0 (the byoyomi is per move, never
 * banked). A move is in time while the charge is below remaining + byoyomi + increment.
 *
 * What the engine is told (`go btime wtime byoyomi|binc winc`) follows USI's meaning:
 * btime is the time before this move, binc arrives after it, the byoyomi starts when
 * btime is spent. The network margin is taken off the part the engine spends last: the
 * byoyomi, or with a Fischer clock the main time. docs/csa.md "Clocks".
 */
#ifndef HAYANAGI_CSA_CLOCK_H
#define HAYANAGI_CSA_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "csa/message.h"

typedef struct {
    int64_t unit_ms;
    int64_t remaining_ms[COLOR_NB];
    CsaSideTime time[COLOR_NB];
} CsaClock;

/* The clock at the start of the game's first move to be played: each side's Total_Time
 * (or Remaining_Time when the server gave it) with the moves already played in the
 * summary charged as the server charged them. */
void csa_clock_init(CsaClock *c, const CsaSummary *s);

/* Charges side for one move the server reported as taking units (-1: the server said
 * nothing, the least time is charged). */
void csa_clock_charge(CsaClock *c, Color side, int64_t units);

/* The longest the side to move may think now, in milliseconds, before the server calls
 * its time up: remaining + byoyomi + increment, less one unit when the server floors the
 * charge (a charge of a whole unit below the limit) and less margin_ms. At least 0. */
int64_t csa_clock_budget_ms(const CsaClock *c, Color side, int64_t margin_ms);

/* Writes the time part of a USI `go` ("btime B wtime W byoyomi Y", or "btime B wtime W
 * binc I winc I" for a Fischer clock) for `side` to move, margin_ms taken off as said
 * above. Returns buf. */
char *csa_clock_go(const CsaClock *c, Color side, int64_t margin_ms, char *buf, size_t cap);

#endif
