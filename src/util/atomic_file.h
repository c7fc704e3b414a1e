/* atomic_file.h - replace a file atomically: write a temporary file in the target's
 * directory, fsync it, rename it over the target, fsync the directory.
 *
 * Until atomic_file_commit() succeeds the target is untouched, so an error, a crash or a
 * Ctrl-C during a long write never leaves a half-written output behind. The temporary
 * name is "<target>.tmp.<pid>.<n>"; atomic_file_abort() (or a failed commit) removes it.
 *
 * Signals. Every open temporary file is listed in a process-wide registry (the one
 * singleton here: a signal handler can reach nothing else). When SIGINT, SIGTERM or SIGHUP
 * would kill the process (its disposition is the default one when a temporary file is
 * opened; SIGINT and SIGTERM also when ignored, as a shell leaves them for background
 * jobs; an ignored SIGHUP stays ignored), a handler is installed that removes every listed temporary file and
 * then dies of the signal as before. A program that installs its own handler (to stop a
 * long job cleanly) keeps it: it then ends its writes with commit or abort itself. So a
 * Ctrl-C at any moment leaves the target as it was and no temporary file behind. */
#ifndef HAYANAGI_UTIL_ATOMIC_FILE_H
#define HAYANAGI_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;        /* the temporary file, open for writing; write to it freely */
    char *path;     /* target path (owned) */
    char *tmp_path; /* temporary path (owned) */
} AtomicFile;

/* Creates the temporary file next to path. Returns true and fills *af (the caller owns it
 * and must end it with atomic_file_commit() or atomic_file_abort()); on failure returns
 * false with the reason in err and *af needs no cleanup. */
bool atomic_file_open(AtomicFile *af, const char *path, char *err, size_t err_len);

/* Flushes, fsyncs and closes the temporary file, renames it over the target and fsyncs
 * the directory. Returns true on success. On failure (a write error seen by ferror(), a
 * full disk, ...) removes the temporary file, leaves the target as it was and writes the
 * reason to err. Either way *af is released. */
bool atomic_file_commit(AtomicFile *af, char *err, size_t err_len);

/* Closes and removes the temporary file; the target is untouched. Releases *af. */
void atomic_file_abort(AtomicFile *af);

/* The number of temporary files currently open (listed in the registry): for tests. */
int atomic_file_open_count(void);

#endif
