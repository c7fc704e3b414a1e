/* record_file.h - a scratch file of fixed-size binary records, written once and then read
 * from the start (the files the out-of-core minimax passes from one sweep to the next,
 * each already in the order it is read in). The file has no name (util/temp_file.h), so
 * nothing is left however the process ends. */
#ifndef HAYANAGI_UTIL_RECORD_FILE_H
#define HAYANAGI_UTIL_RECORD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/temp_file.h"

typedef struct {
    TempFile t;
    size_t size; /* bytes a record */
    uint64_t n;  /* records written */
} RecordFile;

/* Creates an empty file of records of size bytes in tmpdir (NULL: near's directory).
 * Returns false with the reason in err. A zeroed RecordFile is closed. */
bool record_file_create(RecordFile *r, size_t size, const char *tmpdir, const char *near, char *err, size_t err_len);

/* Appends one record. Returns false with the reason in err (the disk is full). */
bool record_file_put(RecordFile *r, const void *rec, char *err, size_t err_len);

/* Flushes what was written and goes back to the first record (for reading). Returns
 * false with the reason in err (a write failed). */
bool record_file_rewind(RecordFile *r, char *err, size_t err_len);

/* The next record into rec: 1, 0 at the end, -1 with the reason in err. */
int record_file_get(RecordFile *r, void *rec, char *err, size_t err_len);

/* Closes the file, which frees its space; a no-op on a closed one. */
void record_file_close(RecordFile *r);

#endif
