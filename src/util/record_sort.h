/* record_sort.h - an external merge sort of fixed-size binary records (Knuth, TAOCP vol. 3,
 * 5.4): records are collected in a buffer of about `memory` bytes, each full buffer is
 * sorted and written as a run into one scratch file (util/temp_file.h: it has no name, so
 * nothing is left however the process ends), and the runs are merged k ways, each read
 * through a buffer of an equal share of `memory` (at least 4 KiB). A sort whose records
 * all fit is handed out from memory. The out-of-core minimax's joins are built on it
 * (bookgen/minimax_sweep.c); book/extsort.h is the sort of DB2016 books.
 *
 * Memory: at most `memory` bytes (RECORD_SORT_MEMORY_MIN at least) plus a constant, while
 * collecting and while merging alike. Records that compare equal come out in no set order:
 * callers give a total order. */
#ifndef HAYANAGI_UTIL_RECORD_SORT_H
#define HAYANAGI_UTIL_RECORD_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_SORT_MEMORY_MIN (64u * 1024u)

/* Returns <0, 0 or >0 when record a sorts before, with or after record b. */
typedef int (*RecordCompare)(const void *a, const void *b);

typedef struct {
    size_t size;        /* bytes a record (1 to 4096) */
    RecordCompare cmp;  /* the order */
    uint64_t memory;    /* bytes for the records (RECORD_SORT_MEMORY_MIN at least) */
    const char *tmpdir; /* where the runs go; NULL: the directory of near */
    const char *near;   /* the output's path (used while the sort is open) */
} RecordSortOptions;

typedef struct RecordSort RecordSort;

/* A new sort (the caller owns it: record_sort_close()), or NULL when memory runs out or
 * opt is invalid. opt is copied. */
RecordSort *record_sort_open(const RecordSortOptions *opt);

/* Adds one record (size bytes, copied). Returns false with the reason in err (the disk is
 * full, the scratch file cannot be made, memory). */
bool record_sort_add(RecordSort *rs, const void *rec, char *err, size_t err_len);

/* Ends the input and starts handing out the records in order. Returns false with the
 * reason in err. */
bool record_sort_finish(RecordSort *rs, char *err, size_t err_len);

/* The next record (after record_sort_finish()): 1 with *rec pointing to it (valid until the
 * next call), 0 at the end, -1 with the reason in err (a read error). */
int record_sort_next(RecordSort *rs, const void **rec, char *err, size_t err_len);

/* Records added; runs written (0 when everything fitted in memory). */
uint64_t record_sort_count(const RecordSort *rs);
uint64_t record_sort_runs(const RecordSort *rs);

/* Frees the sort and its scratch file. NULL is a no-op. */
void record_sort_close(RecordSort *rs);

#endif
