/* long_job.h - what every long job of the command line (book think, book expand, book
 * grow, match, tune label) sets up around its work, in one place.
 *
 * The contract of a long job (docs/architecture.md, "Running jobs"):
 *  - Scope. It runs between long_job_begin() and long_job_end(). Inside, the first Ctrl-C
 *    or SIGTERM sets interrupt_flag() (util/interrupt.h), which the job passes to its
 *    workers as their stop and polls at safe points; a second one ends the process. SIGPIPE
 *    is ignored, so an engine that died shows up as a failed write to its pipe, not as the
 *    death of this process. Both are put back at the end.
 *  - Side files. What lets the same command resume (a journal, a state file) is named after
 *    OUT: long_job_side_path(OUT, ".journal") is OUT.journal. The same OUT finds the same
 *    files; a name too long for the system is refused, never cut short (a cut name would be
 *    another file). The job removes them once OUT is written.
 *  - Interrupted. It keeps what it finished, says which files keep it and that the same
 *    command resumes (long_job_interrupted), and exits with INTERRUPT_EXIT_STATUS.
 *  - Progress. util/progress.h, one Progress per phase (expand has one for its rounds and
 *    one for the positions of each round; reading and writing books have their own), so a
 *    LongJob holds none.
 *
 * A LongJob is a plain value on the caller's stack; scopes do not nest (interrupt.h). */
#ifndef HAYANAGI_UTIL_LONG_JOB_H
#define HAYANAGI_UTIL_LONG_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/interrupt.h"

typedef struct {
    InterruptScope scope;
    struct sigaction old_pipe; /* the SIGPIPE disposition long_job_end() puts back */
} LongJob;

/* Starts the scope above: SIGINT and SIGTERM caught (the flag cleared), SIGPIPE ignored. */
void long_job_begin(LongJob *j);

/* Ends it: the handlers and the SIGPIPE disposition as they were before long_job_begin().
 * interrupt_requested() still tells whether the job was interrupted. */
void long_job_end(LongJob *j);

/* out followed by suffix (".journal") into buf of len bytes. Returns false, with buf
 * holding "" when it does not fit. */
bool long_job_side_path(const char *out, const char *suffix, char *buf, size_t len);

/* Says on stderr "PROG: interrupted after " plus fmt formatted (what was done and which
 * files keep it: "6 positions; thought.db.journal keeps them") plus ", run the same command
 * again to resume", and returns INTERRUPT_EXIT_STATUS, the job's exit status. */
int long_job_interrupted(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
