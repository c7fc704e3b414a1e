/* db2016.h - YaneuraOu's text book format YANEURAOU-DB2016 1.00: reader, writer and an
 * on-the-fly reader that leaves the file on disk.
 *
 *   #YANEURAOU-DB2016 1.00
 *   sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
 *   7g7f 3c3d 50 16 12345
 *   2g2f none 30 14 9876
 *
 * Reading follows YaneuraOu (source/book/book.cpp, BookMove::from_string): a move line is
 * split at runs of spaces into move, ponder, value, depth and count; everything after
 * the move is optional (ponder none, value 0, depth 0, count 1), "none" stands for a
 * missing ponder (and, as ShogiHome writes it, for a missing value or depth), tokens
 * after the fifth are ignored. Lines starting with "#" or "//" are comments; a UTF-8 BOM
 * and CR before LF are accepted; an entry ends at the next "sfen" line or a blank line.
 * A first line "#YANEURAOU-DB2016 <v>" with a version other than 1.00 is refused.
 * docs/formats/db2016.md has the details, limits and deviations.
 *
 * Errors come in two kinds. Fatal ones (cannot open or read, unsupported header, a line
 * longer than the limit, a NUL byte) stop the read: the function returns false with
 * "file:line: reason" in err. Entry errors (an SFEN that does not parse, a malformed move
 * or number, a move line outside an entry, an illegal move when legality is checked) go
 * to the on_error callback with the file and line, are counted, and the entry or line is
 * skipped; with strict set the first one is fatal instead.
 *
 * Memory: reading streams through a fixed buffer (max_line bytes plus 64 KiB), so the
 * reader's own memory is bounded whatever the input; the book grows with what it keeps.
 */
#ifndef HAYANAGI_BOOK_DB2016_H
#define HAYANAGI_BOOK_DB2016_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book/book.h"
#include "util/progress.h"

#define DB2016_HEADER "#YANEURAOU-DB2016 1.00"
enum { DB2016_MAX_LINE_DEFAULT = 64 * 1024 };

typedef void (*Db2016ErrorFn)(void *ctx, const char *file, uint64_t line, const char *reason);

typedef struct {
    bool strict;            /* the first entry error is fatal */
    bool check_legality;    /* drop and report illegal positions, moves and ponders (book check) */
    bool keep_comments;     /* "#" lines after an entry's sfen or move line become its comment */
    bool shogihome_columns; /* read "m p   8" (ShogiHome 1.20 left empty columns) as count 8,
                               not YaneuraOu's value 8; off by default */
    size_t max_line;        /* longest line accepted; 0 means DB2016_MAX_LINE_DEFAULT */
    Db2016ErrorFn on_error; /* may be NULL */
    void *ctx;
    Progress *progress;  /* may be NULL; updated with bytes read */
    bool positions_only; /* move lines are counted (stats moves), not parsed or kept: for a
                            pass that needs only the positions */
    uint64_t first_line; /* the number of the input's first line in messages (0 means 1): for
                            a stretch of a file read with db2016_read_memory() */
} Db2016ReadOptions;

typedef struct {
    uint64_t lines;
    uint64_t positions;           /* sfen lines accepted */
    uint64_t moves;               /* move lines accepted */
    uint64_t errors;              /* entry errors (reported through on_error) */
    uint64_t duplicate_positions; /* sfen lines whose position was already in the book */
    uint64_t duplicate_moves;     /* move lines merged into an existing move */
    uint64_t ambiguous_lines;     /* move lines with empty columns (see shogihome_columns) */
    bool had_header;
    bool sorted; /* every sfen line sorted strictly after the previous one (on-the-fly ready) */
} Db2016Stats;

/* Reads the DB2016 file at path into book (positions and moves are added; duplicates
 * merge as book_add_move() says). opt and stats may be NULL. Returns false on a fatal
 * error with "path:line: reason" in err; the book then holds what was read before it. */
bool db2016_read_file(const char *path, Book *book, const Db2016ReadOptions *opt, Db2016Stats *stats, char *err,
                      size_t err_len);

/* Called with each entry of the file in turn: entry holds that one position (id 0) with
 * its moves merged and its comments, as db2016_read_file() would add them; pos is the
 * position as parsed (board, hands, side and ply; pos->st is NULL: position_from_parts()
 * rebuilds a full position without decoding the key). Both are the reader's, valid only
 * during the call; fn may change entry. Returns false to stop the read. */
typedef bool (*Db2016EntryFn)(void *ctx, Book *entry, const Position *pos);

/* Streams the DB2016 file at path entry by entry through fn, in file order, in memory
 * bounded by the longest entry (no book is built). A position that appears twice is
 * handed over twice (stats->sorted says there was none). Returns false on a fatal error
 * with "path:line: reason" in err, or with "path:line: stopped" when fn returned false. */
bool db2016_read_entries(const char *path, Db2016EntryFn fn, void *ctx, const Db2016ReadOptions *opt,
                         Db2016Stats *stats, char *err, size_t err_len);

/* The same over len bytes of memory (tests, fuzzing); name is used in messages. */
bool db2016_read_memory(const char *name, const char *data, size_t len, Book *book, const Db2016ReadOptions *opt,
                        Db2016Stats *stats, char *err, size_t err_len);

/* What the writer wrote (positions without moves are left out, so this is not the book's
 * count). */
typedef struct {
    uint64_t positions, moves;
} Db2016WriteCounts;

typedef struct {
    bool write_comments;       /* write position and move comments of the statistics as "#" lines */
    bool as_read;              /* moves in the order added, positions without moves kept: a file that
                                  reads back as the same book (the sorted runs of an external sort) */
    Progress *progress;        /* may be NULL; updated with positions written */
    Db2016WriteCounts *counts; /* may be NULL; set to what was written */
} Db2016WriteOptions;

/* Writes book to f: the header, then positions in byte order of their canonical SFEN
 * (what on-the-fly lookup needs, and YaneuraOu's own order), each as "sfen <sfen> <ply>"
 * (ply 1 when unknown) followed by its moves sorted by count then score, all five fields,
 * "none" for a missing ponder, score or depth. Positions without moves are skipped.
 * Returns false with the reason in err when memory runs out or a position key does not
 * decode. Does not check f for write errors: the caller does (ferror). */
bool db2016_write_stream(FILE *f, const Book *book, const Db2016WriteOptions *opt, char *err, size_t err_len);

/* Writes position id of book to f as db2016_write_stream() writes each position (its sfen
 * line with sfen, or the key's canonical SFEN when sfen is NULL, then its moves sorted,
 * with their comments when comments is set); nothing for a position without moves. With
 * as_read, see Db2016WriteOptions. list is the caller's scratch. For writers that stream
 * positions in SFEN order themselves. Returns false when the key does not decode (nothing
 * written). */
bool db2016_write_entry(FILE *f, const Book *book, uint32_t id, const char *sfen, bool comments, bool as_read,
                        BookMoveList *list);

/* db2016_write_stream() into path, atomically (temporary file, fsync, rename): on any
 * failure the previous file at path is untouched. Returns false with the reason in err. */
bool db2016_write_file(const char *path, const Book *book, const Db2016WriteOptions *opt, char *err, size_t err_len);

/* ---- on the fly ---- */

typedef struct Db2016File Db2016File;

/* Opens a sorted DB2016 file for on-the-fly lookups: maps it read-only and checks a
 * bounded sample (the first and a few evenly spaced stretches of sfen lines) for order, in
 * time and memory independent of the file size. Returns the handle (the caller owns it:
 * db2016_otf_close()), or NULL with the reason in err: cannot open or map, unsupported
 * header, or "not sorted" (sort it with `hayanagi book sort`, or load it in memory). */
Db2016File *db2016_otf_open(const char *path, char *err, size_t err_len);

/* Unmaps and releases the handle. NULL is a no-op. */
void db2016_otf_close(Db2016File *f);

/* Size of the file in bytes. */
uint64_t db2016_otf_size(const Db2016File *f);

/* Looks pos up by binary search over byte offsets. Returns 1 and fills *out (moves in
 * file order, duplicates merged) on a hit, 0 on a miss, and -1 with the reason in err when
 * the search runs into lines out of order (the file is not sorted) or an entry does not
 * parse. Touches O(log size) pages and allocates nothing. */
int db2016_otf_lookup(const Db2016File *f, const Position *pos, BookMoveList *out, char *err, size_t err_len);

/* Parses one move line (without its line end) the way the reader does: returns true and
 * fills *m; false with the reason in err. *ambiguous is set for ShogiHome-style empty
 * columns. Exposed for the fuzz target and the tests. */
bool db2016_parse_move_line(const char *line, size_t len, bool shogihome_columns, BookMove *m, bool *ambiguous,
                            char *err, size_t err_len);

#endif
