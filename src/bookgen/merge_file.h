/* merge_file.h - `book merge --memory`: several DB2016 books merged into one DB2016 file
 * in bounded memory (docs/book_making.md, "Books larger than memory").
 *
 * Each input is one stream of book/extsort.h: read into sorted runs on disk, then all runs
 * merged k ways, so that each position comes once, in SFEN order, with what each book
 * holds for it (as a whole read of that book would). The books' one-position IRs are
 * merged in input order by book_merge_policy() (bookgen/make.h), which treats positions
 * independently, and the result is written as the DB2016 writer writes a position: the
 * bytes of reading every book, merging and writing, without the books in memory. */
#ifndef HAYANAGI_BOOKGEN_MERGE_FILE_H
#define HAYANAGI_BOOKGEN_MERGE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/extsort.h"
#include "bookgen/make.h"

typedef struct {
    uint64_t positions, moves; /* written */
    uint64_t saturated;        /* moves whose count sits at BOOK_COUNT_MAX */
    uint64_t runs;             /* sorted runs written */
} MergeFileStats;

/* Merges the DB2016 books in[0..n) (weights NULL: 1 each) into the DB2016 file out
 * (atomically, comments kept), sorting through eo (its keep_comments is forced on, as
 * the in-memory merge reads comments). stats may be NULL. Returns false with the reason
 * in err (out untouched, no temporary file left): an input cannot be read, a fatal line,
 * the disk is full, memory runs out, too many runs, or a signal. */
bool book_merge_files(char *const *in, int n, const char *out, const double *weights, MergePolicy policy,
                      const ExtSortOptions *eo, MergeFileStats *stats, char *err, size_t err_len);

#endif
