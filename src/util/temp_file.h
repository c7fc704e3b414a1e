/* temp_file.h - a scratch file of a long job (the sorted runs of an external sort, a
 * sorted copy of a book read in passes): created with mkstemp in a directory and unlinked
 * at once, with the signals blocked in between, so that it has no name while it is used:
 * however the process ends (an error, Ctrl-C, SIGKILL, a crash) the kernel frees it and
 * nothing is left in the directory. It is read back through its descriptor (pread). */
#ifndef HAYANAGI_UTIL_TEMP_FILE_H
#define HAYANAGI_UTIL_TEMP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *path; /* owned: the name it had, for messages; NULL when no file is open */
    FILE *f;    /* opened "w+" */
} TempFile;

/* Creates a scratch file in dir, or, when dir is NULL, in the directory of near (the
 * output's path; "." when it has none). Returns true with t filled, or false with the
 * reason in err (t is then empty). */
bool temp_file_create(TempFile *t, const char *dir, const char *near, char *err, size_t err_len);

/* Closes the file (which frees its space); a no-op for an empty t. */
void temp_file_remove(TempFile *t);

#endif
