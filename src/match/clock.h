/* clock.h - the match's clock, the one place of its policy for `match` and `book grow`:
 * each engine's time control, how the command line's common clock options and an
 * engine's own combine into it, and, during a game, what `go` tells the engine to move,
 * how long that engine may take, and what its move costs. docs/match.md "Clock".
 *
 * Each engine keeps its own clock (time odds): the two may differ in every part. The
 * `go` line carries both sides' real remaining times; each engine is told the form of its
 * own clock: its own byoyomi ("byoyomi B": USI has one byoyomi value, the mover's), or
 * with an increment of its own both sides' increments ("binc Ib winc Iw", each side's
 * own, 0 for a side without), or nothing more (sudden death). So an engine that takes no
 * increments (gpsusi aborts on binc) is never sent one unless its own clock has one.
 */
#ifndef HAYANAGI_MATCH_CLOCK_H
#define HAYANAGI_MATCH_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/time_control.h"
#include "shogi/types.h"

typedef struct {
    int64_t time_ms;    /* main time (0: none) */
    int64_t inc_ms;     /* Fischer increment, added after each completed move */
    int64_t byoyomi_ms; /* per-move allowance once the main time is used up */
    int64_t nodes;      /* > 0: `go nodes N` and no clock (the other fields then unused) */
} TimeControl;

/* "byoyomi 100 ms", "60000 ms + 1000 ms/move", "nodes 5000" ... into buf. Returns buf. */
char *time_control_describe(const TimeControl *tc, char *buf, size_t len);

/* Both engines' time controls (engine 1's first) as one text: one clock when they are
 * the same ("byoyomi 100 ms"); "byoyomi 60000 ms; engine 1 nodes 20000" when one engine
 * alone plays at fixed nodes; "engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms" when
 * they differ. Returns buf. */
char *time_controls_describe(const TimeControl tc[2], char *buf, size_t len);

/* The clock as a record states it (record/time_control.h): .set false for fixed nodes. */
RecordTimeControl time_control_for_record(const TimeControl *tc);

/* ---- From the command line ---- */

/* One clock option: its value, -1 when not given, and its name for messages ("--inc2"). */
typedef struct {
    long long value;
    const char *flag;
} ClockArg;

typedef struct {
    ClockArg time, inc, byoyomi, nodes;
} ClockArgs;

/* An engine's time control from the common options and its own (who names the engine in
 * messages: "engine 2", "the opponents"). An own option overrides the common one of the
 * same kind. Nodes: the engine's own nodes option puts it on nodes (given with one of its
 * own clock options, refused); the common nodes option applies unless the engine has an
 * own clock option, and is refused with a common clock option. On the clock: an increment
 * needs a main time, an increment and a byoyomi exclude each other, and nothing given
 * means a byoyomi of 1000 ms. Returns false with the reason, naming the options, in why. */
bool time_control_resolve(const ClockArgs *common, const ClockArgs *own, const char *who, TimeControl *out, char *why,
                          size_t why_len);

/* ---- During a game ---- */

typedef struct {
    TimeControl tc[COLOR_NB]; /* by colour */
    int64_t remaining_ms[COLOR_NB];
} MatchClock;

/* A new game's clock: each side's main time in full. */
void match_clock_start(MatchClock *c, const TimeControl *black, const TimeControl *white);

/* True when side plays at fixed nodes (no clock). */
bool match_clock_by_nodes(const MatchClock *c, Color side);

/* The `go` line for side to move: "go nodes N", or "go btime B wtime W" with the mover's
 * "byoyomi Y" or "binc Ib winc Iw" (the header's rule). With swapped, black's and white's
 * times and increments trade places: for an engine that reads them the wrong way round
 * (fairy-stockfish in USI mode, docs/match.md). Returns buf. */
char *match_clock_go(const MatchClock *c, Color side, bool swapped, char *buf, size_t len);

/* How long side may think now before it loses on time (the grace not included): its
 * remaining main time plus its byoyomi. */
int64_t match_clock_allowed_ms(const MatchClock *c, Color side);

/* Charges side's move of used_ms: the main time loses it (not below 0: the byoyomi is
 * never banked), then gains the side's increment. A side on nodes is not charged. */
void match_clock_charge(MatchClock *c, Color side, int64_t used_ms);

#endif
