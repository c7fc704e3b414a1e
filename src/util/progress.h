/* progress.h - progress reporting for long jobs: a redrawn bar on a terminal, plain
 * lines (at most one every few seconds) when stderr is a file or a pipe.
 *
 * The line. By default: "label [bar] 45.0% 3.2s eta 7s" on a terminal, "label: 12/40
 * (30.0%) 3.2s eta 7s" otherwise (without a total: the done count and the time). The time
 * left ("eta 12s", "eta 3m05s", "eta 2.5h") is the rest at the mean rate so far, shown
 * once a second has passed and a unit is done, never on the last line. A job that asks
 * for a rate (progress_set_rate) gets instead the count, what an earlier run did and the
 * units per second, with the same time left:
 *     "thinking [bar] 12/40 (6 before), 2.31 pos/s eta 12s"   (a terminal)
 *     "thinking 12/40 (6 before), 2.31 pos/s eta 12s"         (a file or a pipe)
 * A job that sets a status (progress_set_status) gets its text after " | " on every line,
 * e.g. book think's engines: "... eta 12s | engines #1 6 #2 6 (1 restart)". All of it is
 * computed here, for every job alike. On a terminal a line redrawn in place is cut to the
 * terminal's width less one column, so that it never wraps (a wrapped line leaves its
 * first part on the screen at every redraw); the last line, a report, is drawn whole.
 *
 * Handing a Progress to a job that starts it (book_think, book_minimax, the readers of
 * book/open.h, ...): initialise it as (Progress){.out = stderr, .quiet = quiet}; the job
 * calls progress_start() with those two fields.
 *
 * A Progress owns no heap memory; it is a plain value the caller keeps on its stack. It is
 * not thread-safe: one thread updates it (under the job's lock when the status callback
 * reads shared state). */
#ifndef HAYANAGI_UTIL_PROGRESS_H
#define HAYANAGI_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes the caller's status text (NUL-terminated, at most len - 1 bytes; "" for none)
 * into buf. Called from progress_update(), progress_line() and progress_finish(), in their
 * thread. */
typedef void (*ProgressStatusFn)(void *ctx, char *buf, size_t len);

typedef struct {
    FILE *out;      /* where to draw, usually stderr */
    char label[48]; /* what is being done, e.g. "reading book.db" */
    uint64_t total; /* 0 when unknown: only the done count is shown */
    uint64_t done;
    bool tty;   /* out is a terminal: draw a bar with \r */
    bool quiet; /* draw nothing at all */
    bool drawn; /* tty: the bar is on out's last line, not ended by a newline */
    double start_ms, last_ms;
    int last_permille;
    char unit[16];           /* progress_set_rate: "pos" shows "2.31 pos/s"; "" = no rate */
    uint64_t before;         /* progress_set_rate: units an earlier run did (not in done or total) */
    ProgressStatusFn status; /* progress_set_status; NULL = none */
    void *status_ctx;
} Progress;

/* Starts reporting on out (stderr when NULL). total may be 0 (unknown). With quiet set
 * nothing is ever printed, which lets callers pass one unconditionally. */
void progress_start(Progress *p, FILE *out, const char *label, uint64_t total, bool quiet);

/* After progress_start: shows the rate and the time left (the line above). done and total
 * count this run's units; before (0 for a fresh job) is what an earlier run did, shown as
 * "(N before)" and never counted in the rate. unit is copied (at most 15 bytes). */
void progress_set_rate(Progress *p, const char *unit, uint64_t before);

/* After progress_start: fn(ctx, ...) gives a text shown after " | " on every line. Such a
 * job's final line is always drawn (progress_finish), however short the job: the status is
 * a report (book think's count per engine, restarts and retirements). */
void progress_set_status(Progress *p, ProgressStatusFn fn, void *ctx);

/* Records that done units of total are finished; redraws at most every 100 ms on a TTY and
 * every 5 s otherwise, so calling it in a tight loop is cheap. */
void progress_update(Progress *p, uint64_t done);

/* Prints one line (fmt as printf's; the newline is added) on p->out above the bar: on a
 * terminal with the bar drawn, the bar's line is cleared, the line printed and the bar
 * drawn again below it; otherwise (a file or a pipe, no bar drawn yet, after
 * progress_finish) just the line. Printed when quiet too: a message, not progress. The
 * one way to print while a bar is up (book grow's game lines, handed over by the match
 * runner's MatchConfig.print_line), so that no line of the terminal holds both. Call it
 * under the lock progress_update() is called under. */
void progress_line(Progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the final state and ends the bar's line. A job without a status that ended
 * within a second without drawing anything stays silent. */
void progress_finish(Progress *p);

#endif
