/* commands.h - subcommands of `hayanagi` that live outside main.c. */
#ifndef HAYANAGI_CLI_COMMANDS_H
#define HAYANAGI_CLI_COMMANDS_H

#include <stdbool.h>

#include "book/book.h"
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

/* Helpers shared by the book-making verbs (cmd_book_make.c). */
/* Parses a decimal integer in [lo, hi]; false for anything else. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);
/* Reads a book of any format (book/open.h: detected by content) with a progress display;
 * NULL (reason on stderr) on failure. The caller owns the book. */
/* The same, keeping the book's comments (think's provenance lines) when keep_comments. */
Book *cli_read_book_ex(const char *path, bool quiet, bool keep_comments);
Book *cli_read_book(const char *path, bool quiet);
/* Checks before any work that an output name is one we can write (book_format_for_output())
 * and is not named like a game record; false (reason on stderr, for `hayanagi book VERB`)
 * otherwise. */
bool cli_check_output(const char *verb, const char *path);
/* Writes b atomically in the format its name says (.sbk SBK, else DB2016), with a progress
 * display; false (reason on stderr, the old file untouched) on failure. */
bool cli_write_book(const char *path, const Book *b, bool quiet);
/* Reads every game of the record files[0..n) through on_game(ctx), with one progress
 * display on stderr (none when quiet), bad records warned about and skipped, and a closing
 * line "N games, M moves, K bad records skipped"; stops early once *oom (which on_game
 * sets) is true. *stats (may be NULL) gets the counts. Returns 0, or 1 when a file could
 * not be read or memory ran out. */
int cli_read_records(char **files, int n, RecordGameFn on_game, void *ctx, const bool *oom, bool variations, bool quiet,
                     RecordStats *stats);
/* cli_write_book() with the book's comments as "#" lines (DB2016) or SBK comments. */
bool cli_write_book_with_comments(const char *path, const Book *b, bool quiet);

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
