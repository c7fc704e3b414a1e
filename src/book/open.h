/* open.h - the one way in and out of book files: which format a file is, reading it into
 * the book IR or opening it for lookups, and writing a book in the format its name says.
 * The engine and every `hayanagi book` verb go through here, so every verb reads every
 * format we read (YaneuraOu DB2016, ShogiGUI/ShogiHome SBK, YBB, Apery book.bin, OSL's
 * WeightedBook as GPS Shogi's joseki.dat).
 *
 * Detection is by content and positive: each format has its own evidence (the DB2016
 * header or a first "sfen" line in text, the YBB magic, a walk over SBK's top-level
 * protocol buffer fields that fits the file, Apery's 16-byte entries sorted by key with
 * moves on the board). A file nobody recognises is refused ("not a book we know"); the
 * extension only breaks a tie between two formats whose evidence is present. An empty
 * result from a file that had content is an error, never an empty book.
 *
 * The formats live in one table in open.c: a new format is one row there (its id, name,
 * extensions, evidence, reader, and optionally prober and writer).
 *
 * Errors: every function returning false or NULL writes "path: reason" to err. Warnings
 * (lines or records skipped, numbers clamped) are counted in the report and, when
 * BookReadOptions.log is set, printed there as "warning: file:line: reason" (the first
 * few, then a count).
 */
#ifndef HAYANAGI_BOOK_OPEN_H
#define HAYANAGI_BOOK_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book/book.h"
#include "book/db2016.h"
#include "book/select.h"

/* One row of the format table; opaque, static, never freed. */
typedef struct BookFormat BookFormat;

typedef struct {
    bool keep_comments;     /* DB2016: "#" lines in entries become comments */
    bool shogihome_columns; /* DB2016: read "m p   n" as ShogiHome does (db2016.h) */
    int unreg_depth;        /* Apery: plies the walk may go outside the book (0 means 1) */
    bool keep_zero;         /* OSL: keep weight-0 moves (count 0) and positions without moves */
    FILE *log;              /* warnings and the progress bar go here; NULL: silent */
    bool quiet;             /* no progress bar even when log is set */
} BookReadOptions;

typedef struct {
    const BookFormat *format; /* the format read */
    uint64_t warnings;        /* lines, records or moves skipped or changed */
    Db2016Stats db;           /* DB2016 only (zero otherwise) */
    char note[256];           /* one line on what was not read, "" when nothing */
} BookReadReport;

/* The format named by a --from/--to word: db (db2016), sbk, ybb, apery (bin); NULL when
 * none. */
const BookFormat *book_format_by_id(const char *id);

/* Writes the ids of every format ("ybb, db, sbk, apery") into buf (len bytes, truncated)
 * for usage messages; returns buf. */
const char *book_format_ids(char *buf, size_t len);

/* A format's name for people ("YaneuraOu DB2016 (text)") and its id ("db"). */
const char *book_format_name(const BookFormat *f);
const char *book_format_id(const BookFormat *f);

/* True when f is the named format (id or alias): lets callers ask "is this DB2016?". */
bool book_format_is(const BookFormat *f, const char *id);

/* Decides the format of the file at path from its content. Returns the format, or NULL
 * with the reason in err (cannot open, empty, or no format's evidence is present). */
const BookFormat *book_format_detect(const char *path, char *err, size_t err_len);

/* The same over the first len bytes of a file of file_size bytes (len <= file_size);
 * name is used in messages. */
const BookFormat *book_format_detect_memory(const char *name, const void *head, size_t len, uint64_t file_size,
                                            char *err, size_t err_len);

/* Reads the book at path into a new book (the caller owns it: book_free()). fmt NULL
 * detects the format; a given fmt is used as is. opt and rep may be NULL. Returns NULL
 * with the reason in err: not a book we know, a fatal read error, or nothing read from a
 * file that had content. */
Book *book_open_read(const char *path, const BookFormat *fmt, const BookReadOptions *opt, BookReadReport *rep,
                     char *err, size_t err_len);

/* A book opened for lookups: on the fly where the format allows it (a sorted DB2016, SBK,
 * Apery, whose hashed keys make lookups find more than a read), else in memory. */
typedef struct BookProber BookProber;

/* Opens path for lookups. fmt NULL detects. With on_the_fly set the file stays on disk
 * when its format can be probed there (an unsorted DB2016 falls back to memory and says
 * so in rep->note); Apery is always probed on disk. Returns the prober (the caller owns
 * it: book_prober_close()) or NULL with the reason in err. */
BookProber *book_prober_open(const char *path, const BookFormat *fmt, bool on_the_fly, const BookReadOptions *opt,
                             BookReadReport *rep, char *err, size_t err_len);

/* The lookup source (valid until book_prober_close()). */
BookSource book_prober_source(const BookProber *p);

/* The book in memory, or NULL when the prober works on disk. Owned by the prober. */
const Book *book_prober_memory(const BookProber *p);

/* True when lookups go to the file on disk. */
bool book_prober_on_disk(const BookProber *p);

/* Positions in memory, or on disk the number the format can tell (Apery keys, SBK
 * states, 0 for DB2016 on the fly). */
size_t book_prober_positions(const BookProber *p);

/* Bytes of the file. */
uint64_t book_prober_file_size(const BookProber *p);

/* Releases the prober and what it holds. NULL is a no-op. */
void book_prober_close(BookProber *p);

typedef struct {
    bool write_comments;     /* DB2016: comments as "#" lines */
    const char *author;      /* SBK header, NULL: none */
    const char *description; /* SBK header, NULL: none */
    FILE *log;               /* the progress bar goes here; NULL: silent */
    bool quiet;              /* no progress bar even when log is set */
} BookWriteOptions;

typedef struct {
    const BookFormat *format; /* the format written */
    /* What the file holds: positions and moves actually written (a writer leaves out
     * positions without moves, SBK illegal moves), the one source of "wrote N positions". */
    uint64_t positions, moves;
    /* What the format could not carry (SBK): moves with a ponder, a depth, a score, a
     * count that differs from the weight, illegal moves not written, counts clamped. */
    uint64_t ponders, depths, scores, counts, illegal_moves, clamped;
} BookWriteReport;

/* The format an output name asks for: ".sbk" SBK, ".db" (and any other or no extension)
 * DB2016. NULL with the reason in err when the extension names a format we cannot write
 * (".ybb", ".bin"). */
const BookFormat *book_format_for_output(const char *path, char *err, size_t err_len);

/* Writes b to path atomically (util/atomic_file.h: the old file is untouched on any
 * failure or signal). fmt NULL picks it from the name (book_format_for_output()). opt and
 * rep may be NULL. Returns false with the reason in err. */
bool book_write(const char *path, const BookFormat *fmt, const Book *b, const BookWriteOptions *opt,
                BookWriteReport *rep, char *err, size_t err_len);

#endif
