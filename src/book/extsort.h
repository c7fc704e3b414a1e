/* extsort.h - DB2016 books larger than memory: sorted runs on disk, then a k-way merge (the
 * external merge sort of every textbook; Knuth, TAOCP vol. 3, 5.4), handed out one
 * position at a time in SFEN order, for `book sort`, `merge`, `convert` and `prune`
 * under --memory (docs/book_making.md, "Books larger than memory").
 *
 * An ExtSort takes one or more inputs (streams): DB2016 files, or positions added one by
 * one. A file is read in stretches that end at an entry's sfen line, each into one book IR
 * with the DB2016 reader (db2016_read_memory()), so that positions seen twice in a
 * stretch merge exactly as a whole read merges them. When the IR (with what the writer
 * needs to sort it) reaches the memory limit it is written, sorted by SFEN, as one run
 * (Db2016WriteOptions.as_read: moves in reading order, positions without moves kept, so a
 * run reads back as the same book); a stream's last IR is a run too, unless the sort has
 * one stream that fitted whole, which is then handed out from memory. The merge reads the
 * runs side by side; the entries of one position in the runs of one stream are read, in
 * input order, into a one-position IR (book add and merge rules are associative, and the
 * comments read back line by line): what reading that whole input would hold for the
 * position. Several streams give one such IR per stream that holds the position.
 *
 * Temporary data. All runs go into one file (util/temp_file.h: it has no name, so nothing
 * is left however the process ends) in tmpdir, freed by extsort_close(). Memory: about `memory` for the IR and the run
 * writer, a quarter of it (4 KiB to 1 MiB a run) for the merge's read buffers, plus a
 * constant (the input stretch buffer, a few MiB of the reader's batches). */
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
    const char *tmpdir;     /* where the runs go; NULL: the directory of the output (near) */
    bool keep_comments;     /* read and write comments (Db2016ReadOptions) */
    bool shogihome_columns; /* Db2016ReadOptions */
    Db2016ErrorFn on_error; /* entry errors of the input (may be NULL) */
    void *ctx;
    Progress *progress; /* may be NULL */
    const char *label;  /* what the progress lines say before ": runs" and ": merge"; NULL: "sort" */
} ExtSortOptions;

#define EXTSORT_MEMORY_MIN (256u * 1024u)

typedef struct {
    uint64_t positions; /* positions written (with moves), as the writer counts them */
    uint64_t moves;     /* moves written */
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

/* ---- the sorter as a stream ---- */

typedef struct ExtSort ExtSort;

/* A new sorter (the caller owns it: extsort_close()); near is the output's path, whose
 * directory takes the runs when opt->tmpdir is NULL (opt and near are used until
 * extsort_close()). NULL when memory runs out. */
ExtSort *extsort_open(const ExtSortOptions *opt, const char *near);

/* Reads the DB2016 file at path as the next stream. Returns false with the reason in err:
 * the file cannot be read, a fatal line, the disk is full, too many runs. */
bool extsort_add_file(ExtSort *es, const char *path, char *err, size_t err_len);

/* Adds key (a position without moves, at ply) to the last stream (the first when there is
 * none). Returns false with the reason in err (disk full, memory, too many runs). */
bool extsort_add_position(ExtSort *es, const BookKey *key, int ply, char *err, size_t err_len);

/* Ends the input and starts handing out positions. Returns false with the reason in err. */
bool extsort_finish(ExtSort *es, char *err, size_t err_len);

typedef struct {
    const Book *book; /* NULL: this stream does not hold the position */
    uint32_t id;
} ExtSortEntry;

/* The next position in SFEN order (after extsort_finish()): returns 1 with *key its
 * canonical SFEN without the move number (the writer's sort key and its sfen text) and
 * *entries an array of one entry per stream, the position as that stream holds it, every
 * one of its moves in reading order and positions without moves included; 0 at the end;
 * -1 with the reason in err (a run does not read back, memory). Both stay valid until
 * the next call; entries' books may be changed by the caller (book_clear() aside). */
int extsort_next(ExtSort *es, const char **key, const ExtSortEntry **entries, char *err, size_t err_len);

/* The whole book when one stream fitted in memory (after extsort_finish()), else NULL.
 * Owned by the sorter. */
const Book *extsort_memory_book(const ExtSort *es);

/* Runs written so far; entry errors and headers of the inputs (ExtSortStats' fields). */
uint64_t extsort_runs(const ExtSort *es);
uint64_t extsort_errors(const ExtSort *es);
bool extsort_had_header(const ExtSort *es);

/* Frees the sorter and removes its temporary file. NULL is a no-op. */
void extsort_close(ExtSort *es);

/* ---- a sorted file read back entry by entry, as text ---- */

/* For verbs that read a sorted book in several passes (prune: a pass per ply) and parse
 * only the entries they need: the entries of a DB2016 file (a header and comments before
 * the first sfen line skipped), each with its key as extsort_next() gives it. */
typedef struct ExtSortReader ExtSortReader;

/* Reads the file open on fd (from its start, with pread: fd stays the caller's and is not
 * moved; path names it in messages) with a buffer of bufsize bytes (at least 4 KiB; it
 * grows for a longer entry). Returns the reader (the caller owns it:
 * extsort_reader_close()) or NULL with the reason in err. */
ExtSortReader *extsort_reader_open(int fd, const char *path, size_t bufsize, char *err, size_t err_len);

/* The next entry: 1 with *key (canonical SFEN without the move number) and the entry's
 * text (its sfen line, move lines and comments) in *text, *len, valid until the next
 * call; 0 at the end; -1 with the reason in err (a read error, an sfen line without a
 * move number, memory). */
int extsort_reader_next(ExtSortReader *r, const char **key, const char **text, size_t *len, char *err, size_t err_len);

/* Bytes consumed so far (for progress). */
uint64_t extsort_reader_offset(const ExtSortReader *r);

/* Frees the reader (fd stays open). NULL is a no-op. */
void extsort_reader_close(ExtSortReader *r);

#endif
