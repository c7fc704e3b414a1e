/* io.h - the files the book verbs read and write: the one book reader and the one book
 * writer every verb uses, the record-file reader, and the checks and report lines of their
 * outputs (docs/book_making.md, "Output files"). A helper of src/cli/book/: includes no verb. */
#ifndef HAYANAGI_CLI_BOOK_IO_H
#define HAYANAGI_CLI_BOOK_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "book/book.h"
#include "book/open.h"
#include "record/reader.h"

/* Reads the book at path in format fmt (NULL: recognised by its content, book/open.h) with
 * the options ro (comments, progress display, the formats' reading options). Prints the
 * reader's note on what it did not read, and on failure the reason (and a hint when path is
 * named like a game record) on stderr, prefixed "hayanagi book: ". *rep (may be NULL) gets
 * the reader's report. Returns the book (the caller frees it) or NULL. */
Book *cli_read_book(const char *path, const BookFormat *fmt, const BookReadOptions *ro, BookReadReport *rep);

/* Writes b atomically to path in format fmt (NULL: the one its name says, .sbk SBK, else
 * DB2016) with the options wo (comments as "#" lines or SBK comments, progress display).
 * *wr (may be NULL) gets what the writer wrote, for cli_say_wrote(). Returns false with
 * cli_say_not_written("hayanagi book", REASON, PATH)'s line on stderr on failure. */
bool cli_write_book(const char *path, const BookFormat *fmt, const Book *b, const BookWriteOptions *wo,
                    BookWriteReport *wr);

/* Reads every game of the record files[0..n) through on_game(ctx), with one progress
 * display on stderr (none when quiet), bad records warned about and skipped, and a closing
 * line "N games, M moves, K bad records skipped"; stops early once *oom (which on_game
 * sets) is true. *stats (may be NULL) gets the counts. Returns 0, or 1 when a file could
 * not be read or memory ran out. */
int cli_read_records(char **files, int n, RecordGameFn on_game, void *ctx, const bool *oom, bool variations, bool quiet,
                     RecordStats *stats);

/* Checks before any work that an output name is one we can write (book_format_for_output())
 * and is not named like a game record, and that the file already there (if any) does not
 * read as game records (record/reader.h's sniffing: a forgotten OUT would replace the last
 * input); false (reason on stderr, for `hayanagi book VERB`) otherwise. */
bool cli_check_output(const char *verb, const char *path);

/* The same rule for a verb that writes game records or a game list (match --out, book
 * openings): false (reason on stderr, prefixed with prog) when the file already at path
 * reads as a book. The content decides (book/open.h's evidence), not the name. */
bool cli_check_record_output(const char *prog, const char *path);

/* Where a verb writing OUT prints its report ("wrote ...", "Unsupported: ..."): stdout,
 * or stderr when OUT is "-" (the standard output then carries the output file alone). */
FILE *cli_report_file(const char *out);

/* After a failed write of out: "PROG: ERR (OUT is untouched)" on stderr when out is replaced
 * atomically, or, when it is streamed (util/atomic_file.h: "-", a FIFO, a character
 * device), "PROG: ERR (OUT is a stream: what was written before the error may have reached
 * its reader)", since a stream cannot be left untouched. */
void cli_say_not_written(const char *prog, const char *err, const char *out);

/* Starts a verb's closing line, "wrote OUT: N positions, M moves", with the counts the
 * writer reports (not the book's: the writer leaves out positions without moves), on
 * cli_report_file(out), with no newline; returns that stream for the verb's own details. */
FILE *cli_say_wrote(const char *out, const BookWriteReport *wr);

#endif
