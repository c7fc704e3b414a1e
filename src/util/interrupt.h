/* interrupt.h - the one Ctrl-C handler of every long job: SIGINT and SIGTERM alike.
 *
 * Between interrupt_begin() and interrupt_end() the first SIGINT or SIGTERM sets a flag
 * (interrupt_flag()) that the job polls: it stops at its next safe point, keeps what it
 * finished, leaves no temporary file and exits with status 130. A second
 * signal of the kind already received ends the process at once (SA_RESETHAND restores the
 * default action after the first).
 *
 * For a job that cannot poll (one long write through a temporary file), pass that file as
 * remove_on_signal: the handler then unlinks it and ends the process by the signal, so the
 * existing output is never touched and no temporary file is left.
 *
 * The flag and the path are this module's singleton (a handler can reach nothing else);
 * scopes do not nest. */
#ifndef HAYANAGI_UTIL_INTERRUPT_H
#define HAYANAGI_UTIL_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

typedef struct {
    struct sigaction old_int, old_term; /* the handlers interrupt_end() puts back */
} InterruptScope;

/* Installs the handler for SIGINT and SIGTERM and clears the flag. remove_on_signal (may
 * be NULL; copied, at most 4095 bytes) switches to the remove-and-die mode above. */
void interrupt_begin(InterruptScope *scope, const char *remove_on_signal);

/* Restores the handlers interrupt_begin() replaced and forgets remove_on_signal. The flag
 * keeps its value, so the job can still ask interrupt_requested(). */
void interrupt_end(InterruptScope *scope);

/* True once a signal arrived since interrupt_begin(). */
bool interrupt_requested(void);

/* The flag itself, for the stop fields of search, think, expand and match options (it
 * stays valid for the life of the process). */
volatile sig_atomic_t *interrupt_flag(void);

#endif
