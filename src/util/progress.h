/* progress.h - progress reporting for long jobs: a redrawn bar on a terminal, plain
 * lines (at most one every few seconds) when stderr is a file or a pipe.
 *
 * A Progress owns no heap memory; it is a plain value the caller keeps on its stack. */
#ifndef HAYANAGI_UTIL_PROGRESS_H
#define HAYANAGI_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;      /* where to draw, usually stderr */
    char label[48]; /* what is being done, e.g. "reading book.db" */
    uint64_t total; /* 0 when unknown: only the done count is shown */
    uint64_t done;
    bool tty;   /* out is a terminal: draw a bar with \r */
    bool quiet; /* draw nothing at all */
    double start_ms, last_ms;
    int last_permille;
} Progress;

/* Starts reporting on out (stderr when NULL). total may be 0 (unknown). With quiet set
 * nothing is ever printed, which lets callers pass one unconditionally. */
void progress_start(Progress *p, FILE *out, const char *label, uint64_t total, bool quiet);

/* Records that done units of total are finished; redraws at most every 100 ms on a TTY and
 * every 5 s otherwise, so calling it in a tight loop is cheap. */
void progress_update(Progress *p, uint64_t done);

/* Prints the final state ("label: done N in T s") and ends the bar's line. */
void progress_finish(Progress *p);

#endif
