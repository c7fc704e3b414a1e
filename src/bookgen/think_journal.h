/* think_journal.h - the checkpoint file of `book think` (OUT.journal): its format, its
 * reader (which treats every byte as hostile) and its writer, under an exclusive lock.
 *
 * Format (docs/book_making.md, "Checkpoints"): text made of blocks, each closed by an end
 * line "#end CRC LEN", where CRC and LEN are what POSIX `cksum` prints for the block's
 * bytes (every line from the block's first up to the end line, line ends included). The
 * first block is the header:
 *     #hayanagi think journal 1
 *     #input-name base.db            (said in messages, never compared)
 *     #input positions=34 moves=39 hash=0123456789abcdef
 *     #options budget=nodes 1000; multipv=2; ...
 *     #end 1234567890 140
 * and each further block is one thought position:
 *     sfen lnsgkgsnl/... b - 1
 *     #think engine=...; budget=...; depth=D; nodes=N; date=...
 *     7g7f 3c3d 50 12 1           (move, ponder or none, score or none, depth or none, count 1)
 *     #end 2233445566 96
 * so the journal stays a DB2016 file whose "#" lines are comments. A block without its end
 * line, or whose end line does not match its bytes, was cut by a kill or a full disk (or
 * damaged): it is dropped with a warning naming the journal and the byte offset, and its
 * position is searched again; a cut tail is truncated away before anything is appended.
 * A whole block is still checked like any hostile input (a legal SFEN, legal moves and
 * ponders, numbers in range, the provenance line, a position of this run not journaled
 * before); a bad one is reported as journal:line with the reason and dropped.
 *
 * Locking: the journal is held with an exclusive fcntl() write lock from
 * think_journal_open() to think_journal_close(), so a second run on the same journal (the
 * same OUT, or the same --journal) is refused, naming the journal, the process that holds
 * it and what to do, before it changes anything. */
#ifndef HAYANAGI_BOOKGEN_THINK_JOURNAL_H
#define HAYANAGI_BOOKGEN_THINK_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book/book.h"

/* Warnings shown at most (the rest are counted). */
enum { THINK_JOURNAL_SHOWN_WARNINGS = 10 };

/* What binds a journal to one run: the input book's identity and the options that change
 * the results. Texts are single lines. */
typedef struct {
    const char *input_name; /* IN's path as given (messages only) */
    char input[128];        /* think_journal_book_identity() */
    const char *options;    /* the options that change results, as text */
} ThinkJournalId;

/* What reading a journal found. */
typedef struct {
    size_t entries;  /* whole, valid positions added to done */
    size_t dropped;  /* blocks or entries ignored (cut, damaged or invalid) */
    size_t good_end; /* byte offset where the next block may start (0: rewrite the header) */
    bool has_header; /* a whole header that matches was read */
    bool cut_tail;   /* bytes after good_end belong to no whole block */
} ThinkJournalScan;

/* The identity of book b as one line ("positions=N moves=M hash=H"): a hash over every
 * position's key, ply, moves and comment in key order, so the same book read from any file
 * or format gives the same text. Returns false when memory runs out. */
bool think_journal_book_identity(const Book *b, char *buf, size_t len);

/* Reads the journal text (len bytes, any bytes at all) named name: checks its header
 * against id and adds each whole, valid entry to done (positions, moves, the provenance as
 * the position's comment). Entries whose position is not in allowed (when non-NULL) are
 * dropped as foreign. Warnings (at most THINK_JOURNAL_SHOWN_WARNINGS, then a count) go to
 * warn when non-NULL. Returns false, with the reason in err, when the text is no journal
 * of this version or its header is of another input or other options (nothing is then
 * added), or memory runs out. An empty text, or a lone cut header, is a new journal. */
bool think_journal_parse(const char *text, size_t len, const char *name, const ThinkJournalId *id, Book *done,
                         const Book *allowed, FILE *warn, ThinkJournalScan *scan, char *err, size_t err_len);

typedef struct ThinkJournal ThinkJournal;

/* Opens (creating) the journal at path and locks it; reads it back as
 * think_journal_parse() does; truncates a cut tail and writes the header when the file is
 * new. Returns NULL with the reason in err when another process holds the lock (its pid
 * is named), the file is foreign or unreadable; the file is then unchanged. The caller owns
 * the result (think_journal_close). */
ThinkJournal *think_journal_open(const char *path, const ThinkJournalId *id, Book *done, const Book *allowed,
                                 FILE *warn, ThinkJournalScan *scan, char *err, size_t err_len);

/* Appends one entry (its text: the sfen line, the provenance line, the move lines, each
 * ending in '\n') with its end line, then flushes it to the disk (fsync). Returns false
 * with the reason in err when writing fails. */
bool think_journal_append(ThinkJournal *j, const char *entry, size_t len, char *err, size_t err_len);

/* Releases the lock and the file. NULL is fine. */
void think_journal_close(ThinkJournal *j);

/* The POSIX cksum CRC of len bytes (the number `cksum` prints first). */
uint32_t think_journal_cksum(const char *data, size_t len);

#endif
