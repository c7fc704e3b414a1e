/* atomic_file.h - replace a file atomically: write a temporary file in the target's
 * directory, fsync it, rename it over the target, fsync the directory.
 *
 * Until atomic_file_commit() succeeds the target is untouched, so an error, a crash or a
 * Ctrl-C during a long write never leaves a half-written output behind. The temporary
 * name is "<target>.tmp.<pid>.<n>"; atomic_file_abort() (or a failed commit) removes it.
 *
 * Signals. Every open temporary file is listed with util/interrupt.h
 * (interrupt_track_file()), whose handler removes the listed files when a signal ends the
 * process; so a Ctrl-C at any moment leaves the target as it was and no temporary file
 * behind. */
#ifndef HAYANAGI_UTIL_ATOMIC_FILE_H
#define HAYANAGI_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;        /* the temporary file, open for writing; write to it freely */
    char *path;     /* target path (owned) */
    char *tmp_path; /* temporary path (owned) */
    bool listed;    /* tmp_path is listed for removal on a signal (util/interrupt.h) */
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

#endif
