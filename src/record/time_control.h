/* time_control.h - one side's time control as a game record states it.
 *
 * CSA V3.0 states the clock in the record's information lines: "$TIME:" for both sides,
 * "$TIME+:" for black and "$TIME-:" for white (a side's own line wins over "$TIME:"),
 * each "TOTAL+BYOYOMI+INCREMENT" in seconds: "600+10+0" is ten minutes and a byoyomi of
 * ten seconds, "900+0+5" fifteen minutes and five seconds a move (Fischer). Fractions are
 * written as decimals, as V3.0 writes its move times ("0+0.1+0" is a byoyomi of 100 ms);
 * ShogiHome reads them so. docs/match.md "Records".
 */
#ifndef HAYANAGI_RECORD_TIME_CONTROL_H
#define HAYANAGI_RECORD_TIME_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RECORD_TIME_CONTROL_MAX = 64 }; /* the longest text record_time_control_format() writes, with its NUL */

typedef struct {
    bool set;             /* the record states this side's time control */
    int64_t total_ms;     /* main time */
    int64_t byoyomi_ms;   /* per move once the main time is spent */
    int64_t increment_ms; /* Fischer: added after each move */
} RecordTimeControl;

/* True when both are unset, or both set with the same times. */
bool record_time_control_equal(const RecordTimeControl *a, const RecordTimeControl *b);

/* Writes "TOTAL+BYOYOMI+INCREMENT" (seconds; a fraction as up to three decimals without
 * trailing zeros, "0.1" for 100 ms) into buf, of len bytes (RECORD_TIME_CONTROL_MAX is
 * always enough). Negative times are written as 0. Returns buf. */
char *record_time_control_format(const RecordTimeControl *tc, char *buf, size_t len);

/* Reads such a value from s (n bytes, blanks around it allowed) into *out, with set true.
 * Each number is digits with at most 9 before an optional '.' and 1 to 3 after it.
 * Returns false, *out untouched, for anything else. */
bool record_time_control_parse(const char *s, size_t n, RecordTimeControl *out);

#endif
