/* commands.h - subcommands of `hayanagi` that live outside main.c. */
#ifndef HAYANAGI_CLI_COMMANDS_H
#define HAYANAGI_CLI_COMMANDS_H

#include <stdbool.h>

#include "book/book.h"
#include "book/open.h"
#include "record/reader.h"

/* `hayanagi csa` (cmd_csa.c): play on a CSA server; argv[0] is "csa". Returns the exit
 * status (0 played, 1 failure, 2 usage error, 130 interrupted). */
int cmd_csa(int argc, char **argv);

/* `hayanagi book <verb> ...`: argv[0] is the verb. Returns the process exit status
 * (0 success, 1 failure, 2 usage error, 3 lookup miss). */
int cmd_book(int argc, char **argv);

/* The book-making verbs (cmd_book_make.c): argv[0] is the verb. Returns -1 when the verb
 * is not one of them, else the exit status as cmd_book(). */
int cmd_book_make(int argc, char **argv);

/* `hayanagi book expand` (cmd_book_expand.c): PV-MCTS book expansion; argv[0] is the verb. Exit status as
 * cmd_book(), 130 when interrupted. */
int cmd_book_expand(int argc, char **argv);

/* `hayanagi book think` (cmd_book_think.c): search the short positions and leaves of a
 * book, in this process or with external USI engines; argv[0] is the verb. Exit status as cmd_book(), 130
 * when interrupted. */
int cmd_book_think(int argc, char **argv);

/* `hayanagi book prune` (cmd_book_prune.c); argv[0] is the verb. Exit status as cmd_book(). */
int cmd_book_prune(int argc, char **argv);

/* `hayanagi book report` (cmd_book_report.c); argv[0] is the verb. Exit status as cmd_book(). */
int cmd_book_report(int argc, char **argv);

/* `hayanagi book learn` (cmd_book_learn.c); argv[0] is the verb. Exit status as cmd_book(). */
int cmd_book_learn(int argc, char **argv);

/* `hayanagi book grow` (cmd_book_grow.c): the book grown by games (bookgen/grow.h);
 * argv[0] is the verb. Exit status as cmd_book(), 130 when interrupted (OUT written). */
int cmd_book_grow(int argc, char **argv);

/* `hayanagi book rival-learn` (cmd_book_rival.c); argv[0] is the verb. Exit status as cmd_book(). */
int cmd_book_rival(int argc, char **argv);

/* Helpers shared by the book-making verbs (cmd_book_make.c). */
/* Parses a decimal integer in [lo, hi]; false for anything else. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);
/* Reads a book of any format (book/open.h: detected by content) with a progress display;
 * NULL (reason on stderr) on failure. The caller owns the book. */
/* The same, keeping the book's comments (think's provenance lines) when keep_comments. */
Book *cli_read_book_ex(const char *path, bool quiet, bool keep_comments);
Book *cli_read_book(const char *path, bool quiet);
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
/* Writes b atomically in the format its name says (.sbk SBK, else DB2016), with a progress
 * display; false (reason on stderr, the old file untouched) on failure. *wr (may be NULL)
 * gets what the writer wrote, for cli_say_wrote(). */
bool cli_write_book(const char *path, const Book *b, bool quiet, BookWriteReport *wr);
/* Starts a verb's closing line, "wrote OUT: N positions, M moves", with the counts the
 * writer reports (not the book's: the writer leaves out positions without moves), on
 * cli_report_file(out), with no newline; returns that stream for the verb's own details. */
FILE *cli_say_wrote(const char *out, const BookWriteReport *wr);
/* Reads every game of the record files[0..n) through on_game(ctx), with one progress
 * display on stderr (none when quiet), bad records warned about and skipped, and a closing
 * line "N games, M moves, K bad records skipped"; stops early once *oom (which on_game
 * sets) is true. *stats (may be NULL) gets the counts. Returns 0, or 1 when a file could
 * not be read or memory ran out. */
int cli_read_records(char **files, int n, RecordGameFn on_game, void *ctx, const bool *oom, bool variations, bool quiet,
                     RecordStats *stats);
/* cli_write_book() with the book's comments as "#" lines (DB2016) or SBK comments. */
bool cli_write_book_with_comments(const char *path, const Book *b, bool quiet, BookWriteReport *wr);

/* `hayanagi match ...` (docs/match.md): plays two USI engines against each other; argv[0]
 * is "match".
 * Returns 0 when the match ran, 1 on failure (an engine did not start, the record could
 * not be written), 2 for a usage error, 130 when interrupted by Ctrl-C. */
int cmd_match(int argc, char **argv);

/* `hayanagi bench [--depth=N | --nodes=N]` (cmd_bench.c): the USI bench with default
 * options, its node-count signature printed last. Returns 0, 1 on failure, 2 for a usage
 * error. */
int cmd_bench(int argc, char **argv);

#endif
