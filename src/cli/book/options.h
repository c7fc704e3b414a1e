/* options.h - what the book verbs share to parse their command lines: the READ OPTIONS and
 * --from/--to of info, lookup, sort, check and convert (one table of their options and help
 * texts, FLAG_VERBS in options.c). The numeric options of the other verbs go through
 * cli_opts_int() (util/cli_opts.h), which names the option in its message. A helper of src/cli/book/: includes no verb.
 */
#ifndef HAYANAGI_CLI_BOOK_OPTIONS_H
#define HAYANAGI_CLI_BOOK_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "book/book.h"
#include "book/open.h"

/* A reader's error callback (book/db2016.h, book/extsort.h) printing "PREFIXfile:line: reason"
 * on stderr and counting the lines printed. */
typedef struct {
    const char *prefix;
    uint64_t printed;
} ErrorPrinter;
void cli_print_book_error(void *ctx, const char *file, uint64_t line, const char *reason);

/* The READ OPTIONS (and sort's --memory, --tmpdir) as parsed by cli_parse_flags(). */
typedef struct {
    bool keep_comments;
    bool shogihome_columns;
    bool keep_zero;
    bool quiet;
    int unreg_depth;
    uint64_t memory;    /* --memory of sort, convert, check: 0 = in memory */
    const char *tmpdir; /* --tmpdir */
} LoadOptions;

/* --memory SIZE of merge, convert, prune and check (sort reads first and decides by what
 * it read): true when the inputs' files, n of them, are small enough to be worked in
 * memory within SIZE (4 bytes of memory for each byte of file: the IR, a second book or
 * the writer's sort), so that the verb runs as without the option. */
bool cli_fits_memory(char *const *paths, int n, uint64_t memory);

/* The same rule for `book minimax --memory SIZE IN`: true when IN's streamed graph
 * (bookgen/minimax_file.c: about 62 bytes a position, where a DB2016 entry takes about
 * 150 bytes of text with 3.5 moves) fits within SIZE, taken as half a byte of memory for
 * each byte of file. */
bool cli_minimax_fits_memory(const char *path, uint64_t memory);

/* The conditions of working out of core (docs/book_making.md, "Books larger than
 * memory"): every input a DB2016 book by content, and OUT (NULL: none) a DB2016 name.
 * True when they hold; otherwise false with "hayanagi book VERB: --memory: ..." on
 * stderr saying which does not and what to do (the caller exits 2). */
bool cli_out_of_core_ok(const char *verb, char *const *paths, int n, const char *out);

/* The reader options (book/open.h) that lo asks for, logging on stderr. */
BookReadOptions cli_book_read_options(const LoadOptions *lo);

/* cli_read_book() (io.h) with the options lo asks for: the book (the caller frees it) or NULL
 * with the reason on stderr. */
Book *cli_load_book(const char *path, const BookFormat *fmt, const LoadOptions *lo, BookReadReport *rep);

/* What each of info, lookup, sort, check and convert takes (cli_flag_verb_help()). */
typedef struct {
    const char *verb;
    bool from, to, otf; /* --from FMT, --to FMT, --on-the-fly */
    bool ext;           /* --memory SIZE, --tmpdir DIR */
    const char *synopsis, *what;
} FlagVerb;

/* Prints v's usage and options (the answer to `hayanagi book VERB --help`) on f. */
void cli_flag_verb_help(FILE *f, const FlagVerb *v);

/* Parses the options of v (argv[0] is the verb) with getopt_long. Returns the argument
 * vector (the caller frees the array) with the positional arguments at [*first, argc), or
 * NULL with *status set: 0 after --help, 2 for a usage error, 1 out of memory. */
char **cli_parse_flags(const FlagVerb *v, int argc, char **argv, LoadOptions *lo, const BookFormat **from,
                       const BookFormat **to, bool *otf, int *first, int *status);

/* The entry of verb (one of info, lookup, sort, check, convert) in the table. */
const FlagVerb *cli_flag_verb(const char *verb);

/* The usage error of a verb whose positional arguments are wrong: its usage on stderr, av
 * freed; returns CLI_USAGE_ERROR. */
int cli_positional_error(const FlagVerb *v, char **av);

#endif
