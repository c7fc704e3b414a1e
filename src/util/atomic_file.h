/* atomic_file.h - write an output file without ever leaving half of it, and without
 * destroying what sits at the output path. What is there decides how it is written (the
 * rule of docs/book_making.md, "Output files"):
 *
 *   nothing, or a regular file  replaced atomically: a temporary file in the same directory,
 *                               fsync'ed, given a name and renamed over the target at once,
 *                               then the directory fsync'ed. The replaced file's mode is kept, and its owner
 *                               and group when we may set them (as root); a new file is
 *                               created 0644 (less the umask).
 *   a symbolic link             followed to the file it names (a chain of links, relative
 *                               ones from their own directory; a missing target is
 *                               created); that file is replaced as above, with the temporary
 *                               file in the target's directory, and the link stays a link.
 *   a FIFO, a character device  streamed into (opened for writing, no temporary file, no
 *   (/dev/null, /dev/stdout's   rename): a reader gets the bytes and the node stays.
 *   terminal), or "-"           "-" is the standard output.
 *   anything else               refused: a directory, a socket, a block device.
 *
 * In the replace cases, until atomic_file_commit() succeeds the target is untouched, so an
 * error, a crash or a Ctrl-C during a long write never leaves a half-written output. The
 * temporary file has no name while it is written (Linux's O_TMPFILE): however the process
 * ends, SIGKILL and crashes included, nothing is left. The commit links it as
 * "<target>.tmp.<pid>.<n>" and renames that over the target straight away; only a SIGKILL
 * in that instant leaves the name. Where the filesystem has no unnamed files (NFS, FAT,
 * older overlayfs and FUSE; ext4, xfs, btrfs and tmpfs have them) or /proc is missing,
 * the temporary file is created under that name from the start, as before: after SIGKILL
 * it stays. atomic_file_abort() (or a failed commit) removes it. A stream cannot be taken
 * back: what was written before an error has been read already.
 *
 * Signals. A named temporary file is listed with util/interrupt.h (interrupt_track_file()),
 * whose handler removes the listed files when a signal ends the process; an unnamed one
 * needs no listing, and the same handlers are installed (interrupt_install_handlers()). So
 * a Ctrl-C at any moment leaves the target as it was and no temporary file behind. The
 * commit holds SIGINT, SIGTERM and SIGHUP across the naming and the rename: a signal comes
 * either before them (nothing replaced) or after, when the target is noted as written
 * (interrupt_note_written()) and a signal that then ends the process says so. */
#ifndef HAYANAGI_UTIL_ATOMIC_FILE_H
#define HAYANAGI_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;        /* open for writing (the temporary file, or the stream); write to it freely */
    char *name;     /* the path as the caller gave it, for messages (owned) */
    char *path;     /* the file replaced: name, or the end of its symbolic links (owned) */
    char *tmp_path; /* temporary path (owned); NULL when streaming */
    bool listed;    /* tmp_path is listed for removal on a signal (util/interrupt.h) */
    bool unnamed;   /* the temporary file has no name (O_TMPFILE): tmp_path is the name the
                       commit links it under */
} AtomicFile;

/* Opens path for writing by the rule above. Returns true and fills *af (the caller owns
 * it and must end it with atomic_file_commit() or atomic_file_abort()); on failure (a
 * directory, socket or block device at path, a loop of symbolic links, no permission,
 * ...) returns false with "path: reason" in err and *af needs no cleanup. A FIFO blocks
 * here until it has a reader. */
bool atomic_file_open(AtomicFile *af, const char *path, char *err, size_t err_len);

/* Whether atomic_file_open() would stream into path rather than replace it: true for "-"
 * and for a path whose chain of symbolic links ends at a FIFO or a character device. A
 * streamed output is not "untouched" after a failure (what was written is gone to its
 * reader), so messages ask this before saying so. No state; the answer holds while nothing
 * changes at path. */
bool atomic_file_streams(const char *path);

/* Flushes, fsyncs and closes the temporary file, renames it over the target and fsyncs
 * the directory (a stream: flushes and closes it). Returns true on success. On failure (a
 * write error seen by ferror(), a full disk, ...) removes the temporary file, leaves the
 * target as it was and writes the reason to err. Either way *af is released. */
bool atomic_file_commit(AtomicFile *af, char *err, size_t err_len);

/* Closes and removes the temporary file; the target is untouched (a stream is closed).
 * Releases *af. */
void atomic_file_abort(AtomicFile *af);

#endif
