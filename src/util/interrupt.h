/* interrupt.h - the one Ctrl-C handler of every long job: SIGINT and SIGTERM alike.
 *
 * Between interrupt_begin() and interrupt_end() the first SIGINT or SIGTERM sets a flag
 * (interrupt_flag()) that the job polls: it stops at its next safe point, keeps what it
 * finished, leaves no temporary file and exits with status 130. A second SIGINT or SIGTERM
 * ends the process at once (removing the tracked files below).
 *
 * For a job that cannot poll (one long write through a temporary file), pass that file as
 * remove_on_signal: the handler then unlinks it and ends the process by the signal, so the
 * existing output is never touched and no temporary file is left.
 *
 * Temporary files. interrupt_track_file() lists a file to remove whenever a signal ends
 * the process (util/atomic_file.h lists every temporary file it writes): the remove-and-
 * die mode above, a second signal during a scope, and, outside any scope, SIGINT, SIGTERM
 * or SIGHUP themselves. For the last, tracking a file installs the handler for each of
 * those signals whose disposition is the default one (SIGINT and SIGTERM also when
 * ignored, as a shell leaves them for background jobs; an ignored SIGHUP, nohup, stays
 * ignored); it removes the listed files and dies of the signal as before.
 *
 * Outputs already written. atomic_file_commit() notes each output it has renamed into
 * place (interrupt_note_written()); a signal that ends the process afterwards (the cases
 * above) says on stderr that those files were written and are complete, so a Ctrl-C that
 * lands just after the rename is never mistaken for one that stopped the write. It is
 * the one message this module writes (with write(2), from the handler).
 *
 * The flag, the path and the lists are this module's singleton (a handler can reach
 * nothing else); scopes do not nest. */
#ifndef HAYANAGI_UTIL_INTERRUPT_H
#define HAYANAGI_UTIL_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* The exit status of a job stopped by the flag (128 + SIGINT, what a shell reports for a
 * process Ctrl-C killed). */
#define INTERRUPT_EXIT_STATUS 130

typedef struct {
    struct sigaction old_int, old_term; /* the handlers interrupt_end() puts back */
} InterruptScope;

/* Installs the handler for SIGINT and SIGTERM and clears the flag. remove_on_signal (may
 * be NULL; copied, at most 4095 bytes) switches to the remove-and-die mode above. */
void interrupt_begin(InterruptScope *scope, const char *remove_on_signal);

/* Restores the handlers interrupt_begin() replaced and forgets remove_on_signal. The flag
 * keeps its value, so the job can still ask interrupt_requested(). When the restored
 * handlers are the defaults and an output was noted written (or a file is listed), the
 * handler of the cases below takes their place, so a signal after the scope still names
 * the written outputs. */
void interrupt_end(InterruptScope *scope);

/* True once a signal arrived since interrupt_begin(). */
bool interrupt_requested(void);

/* The flag itself, for the stop fields of search, think, expand and match options (it
 * stays valid for the life of the process). */
volatile sig_atomic_t *interrupt_flag(void);

/* Lists path (copied; at most 4095 bytes) for removal when a signal ends the process, and
 * installs the handler where the default would kill (above). Returns false when the list
 * is full (16 files) or the path too long: the file is then not removed on a signal.
 * Thread-safe. */
bool interrupt_track_file(const char *path);

/* Installs the handler where the default would kill, as interrupt_track_file() does, but
 * lists nothing: for a writer whose temporary file has no name yet (util/atomic_file.h
 * with O_TMPFILE), so that SIGINT, SIGTERM and SIGHUP end the process as they would with a
 * listed file, and say which outputs were written. Thread-safe. */
void interrupt_install_handlers(void);

/* Notes path (copied; at most 4095 bytes; the newest 4 are kept) as an output written
 * and complete, named on stderr if a signal later ends the process. Thread-safe. */
void interrupt_note_written(const char *path);

/* Takes path off the list (a no-op when it is not there). Thread-safe. */
void interrupt_untrack_file(const char *path);

/* How many files are listed (for tests). */
int interrupt_tracked_count(void);

/* Blocks SIGINT, SIGTERM and SIGHUP in the calling thread, saving the mask in *old, and
 * puts it back: for creating a file and listing it with no signal in between. */
void interrupt_block(sigset_t *old);
void interrupt_unblock(const sigset_t *old);

#endif
