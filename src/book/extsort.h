/* extsort.h - sorting a DB2016 book larger than memory: sorted runs on disk, then a k-way
 * merge (the external merge sort of every textbook; Knuth, TAOCP vol. 3, 5.4).
 *
 * The input is read in stretches that end at an entry's sfen line, each into one book IR
 * with the DB2016 reader (db2016_read_memory()), so that positions seen twice in a
 * stretch merge exactly as a whole read merges them. When the IR (with what the writer
 * needs to sort it) reaches the memory limit it is written, sorted by SFEN, as one run
 * (Db2016WriteOptions.as_read: moves in reading order, positions without moves kept, so a
 * run reads back as the same book). The merge reads the runs side by side; the entries of
 * one position from several runs are read, in input order, into a one-position IR (book
 * add and merge rules are associative, and the comments read back line by line), which
 * is written as db2016_write_stream() writes a position. The output is byte for byte
 * what reading the whole input and writing it sorted gives.
 *
 * Temporary data. All runs go into one file in tmpdir, listed with interrupt_track_file()
 * so that a signal removes it, and removed on return; the output is written through
 * util/atomic_file.h. Memory: about `memory` for the IR and the run writer, plus a
 * constant (the input stretch buffer, one read buffer per run, a few MiB of the reader's
 * batches). */
#ifndef HAYANAGI_BOOK_EXTSORT_H
#define HAYANAGI_BOOK_EXTSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/db2016.h"
#include "util/progress.h"

enum { EXTSORT_MAX_RUNS = 4096 };

typedef struct {
    uint64_t memory;        /* bytes the IR of a run may take (EXTSORT_MEMORY_MIN at least) */
    const char *tmpdir;     /* where the runs go; NULL: the output's directory */
    bool keep_comments;     /* read and write comments (Db2016ReadOptions) */
    bool shogihome_columns; /* Db2016ReadOptions */
    Db2016ErrorFn on_error; /* entry errors of the input (may be NULL) */
    void *ctx;
    Progress *progress; /* may be NULL */
} ExtSortOptions;

#define EXTSORT_MEMORY_MIN (256u * 1024u)

typedef struct {
    uint64_t positions; /* in the output, positions without moves included (book_position_count) */
    uint64_t moves;     /* book_move_count() of the output */
    uint64_t runs;      /* 0 when the whole book fitted (written straight from memory) */
    uint64_t errors;    /* entry errors of the input */
    bool had_header;
    bool has_stats; /* some position or move carries a comment (book_has_stats()) */
} ExtSortStats;

/* Sorts the DB2016 book at in into out as `book sort` does in memory (reading with the
 * options above and writing with comments when keep_comments), in bounded memory. stats
 * may be NULL. Returns false with the reason in err (out is then untouched and no
 * temporary file is left): the input cannot be read (file:line: reason), a fatal line,
 * the disk is full, memory runs out, or more than EXTSORT_MAX_RUNS runs would be needed
 * (raise the memory). */
bool book_extsort_db2016(const char *in, const char *out, const ExtSortOptions *opt, ExtSortStats *stats, char *err,
                         size_t err_len);

#endif
