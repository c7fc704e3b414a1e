/* options.c - see options.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book/extsort.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "util/cli_opts.h"
#include "util/parse.h"

void cli_print_book_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    ErrorPrinter *p = ctx;
    p->printed++;
    fprintf(stderr, "%s%s:%llu: %s\n", p->prefix, file, (unsigned long long)line, reason);
}

BookReadOptions cli_book_read_options(const LoadOptions *lo) {
    return (BookReadOptions){.keep_comments = lo->keep_comments,
                             .shogihome_columns = lo->shogihome_columns,
                             .unreg_depth = lo->unreg_depth,
                             .keep_zero = lo->keep_zero,
                             .log = stderr,
                             .quiet = lo->quiet};
}

Book *cli_load_book(const char *path, const BookFormat *fmt, const LoadOptions *lo, BookReadReport *rep) {
    BookReadOptions ro = cli_book_read_options(lo);
    return cli_read_book(path, fmt, &ro, rep);
}

static const FlagVerb FLAG_VERBS[] = {
    {"info", true, false, false, false, "[--from FMT] [READ OPTIONS] FILE",
     "Prints a book's format, size, ply range and scores (moves per score range)."},
    {"lookup", true, false, true, false,
     "[--from FMT] [--on-the-fly] [READ OPTIONS] FILE (startpos | sfen <SFEN>) [moves <m>...]",
     "Prints the book's moves at a position and the move the engine would play from it; the options come\n"
     "before FILE (exit 3: the position is not in the book). --on-the-fly looks a sorted DB2016 book up on disk."},
    {"sort", false, false, false, true, "[--memory SIZE [--tmpdir DIR]] [READ OPTIONS] IN OUT",
     "Writes the book IN as a DB2016 book OUT sorted by SFEN (on-the-fly ready)."},
    {"check", false, false, false, true, "[--memory SIZE] [--shogihome-columns] FILE",
     "Reads a book checking every move's legality; lists each problem (DB2016: file:line: reason; other\n"
     "formats: what the reader skipped, SBK's graph problems, then each illegal move by position)."},
    {"convert", true, true, false, true,
     "[--from FMT] [--to db|sbk] [--no-comments] [--keep-zero] [--memory SIZE [--tmpdir DIR]] [READ OPTIONS] IN OUT",
     "Converts the book IN (any format) to OUT (--to, else by its name: .sbk SBK, else DB2016), saying what\n"
     "the output format cannot hold."},
};

void cli_flag_verb_help(FILE *f, const FlagVerb *v) {
    char ids[128];
    fprintf(f, "usage: hayanagi book %s %s\n%s\n", v->verb, v->synopsis, v->what);
    if (v->from)
        fprintf(f, "  --from FMT            read the input as FMT (%s; default: recognised by content)\n",
                book_format_ids(ids, sizeof ids));
    if (v->to)
        fprintf(f, "  --to FMT              write OUT as FMT (db or sbk; default: by OUT's name)\n");
    if (v->otf)
        fprintf(f, "  --on-the-fly          look a sorted DB2016 book up on disk instead of loading it\n");
    if (v->ext)
        fprintf(f,
                "  --memory SIZE         work in about SIZE bytes (e.g. 512M, 4G); the same output as in memory:\n"
                "                        %s\n",
                strcmp(v->verb, "check") == 0
                    ? "a DB2016 book is read entry by entry, nothing kept; another format must fit"
                    : "a book that does not fit is sorted in runs on disk, then merged (DB2016 only)");
    if (v->ext && strcmp(v->verb, "check") != 0)
        fprintf(f, "  --tmpdir DIR          where the runs go (default: OUT's directory); nothing stays there\n");
    fprintf(f, "READ OPTIONS (every one of info, lookup, sort, check and convert takes them):\n"
               "  --keep-comments       keep the books' comments (the default of sort and convert)\n"
               "  --no-comments         drop them\n"
               "  --shogihome-columns   read DB2016 lines \"m p   n\" ShogiHome's way (n is the count)\n"
               "  --keep-zero           keep joseki.dat's weight-0 moves as count 0\n"
               "  --unreg-depth N       Apery: plies the walk from the start may go outside the book (0-1000)\n"
               "  --quiet               no progress display\n");
}

/* Parses the options of v (argv[0] is the verb) with getopt_long. Returns the argument
 * vector (the caller frees the array) with the positional arguments at [*first, argc), or
 * NULL with *status set: 0 after --help, 2 for a usage error, 1 out of memory. */
char **cli_parse_flags(const FlagVerb *v, int argc, char **argv, LoadOptions *lo, const BookFormat **from,
                       const BookFormat **to, bool *otf, int *first, int *status) {
    enum {
        F_KEEP = 1,
        F_NOCOMMENTS,
        F_SHOGIHOME,
        F_KEEPZERO,
        F_QUIET,
        F_OTF,
        F_FROM,
        F_TO,
        F_UNREG,
        F_HELP,
        F_MEMORY,
        F_TMPDIR
    };
    const struct option all[] = {{"keep-comments", no_argument, NULL, F_KEEP},
                                 {"no-comments", no_argument, NULL, F_NOCOMMENTS},
                                 {"shogihome-columns", no_argument, NULL, F_SHOGIHOME},
                                 {"keep-zero", no_argument, NULL, F_KEEPZERO},
                                 {"quiet", no_argument, NULL, F_QUIET},
                                 {"unreg-depth", required_argument, NULL, F_UNREG},
                                 {"help", no_argument, NULL, F_HELP},
                                 {"on-the-fly", no_argument, NULL, F_OTF},
                                 {"from", required_argument, NULL, F_FROM},
                                 {"to", required_argument, NULL, F_TO},
                                 {"memory", required_argument, NULL, F_MEMORY},
                                 {"tmpdir", required_argument, NULL, F_TMPDIR}};
    struct option opts[sizeof all / sizeof all[0] + 1];
    int n = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if ((all[k].val != F_OTF || v->otf) && (all[k].val != F_FROM || v->from) && (all[k].val != F_TO || v->to) &&
            (all[k].val != F_MEMORY || v->ext) && (all[k].val != F_TMPDIR || (v->ext && strcmp(v->verb, "check") != 0)))
            opts[n++] = all[k];
    opts[n] = (struct option){NULL, 0, NULL, 0};
    char prog[64];
    snprintf(prog, sizeof prog, "hayanagi book %s", v->verb);
    char **av = cli_opts_begin(prog, argc, argv);
    *status = 1;
    if (!av)
        return NULL;
    /* lookup: the position text after FILE is no option ("+": stop at the first argument) */
    const char *optstring = v->otf ? "+" : "";
    int c;
    long depth;
    *status = -1;
    while (*status < 0 && (c = getopt_long(argc, av, optstring, opts, NULL)) != -1) {
        switch (c) {
        case F_KEEP: lo->keep_comments = true; break;
        case F_NOCOMMENTS: lo->keep_comments = false; break;
        case F_SHOGIHOME: lo->shogihome_columns = true; break;
        case F_KEEPZERO: lo->keep_zero = true; break;
        case F_QUIET: lo->quiet = true; break;
        case F_OTF: *otf = true; break;
        case F_FROM:
        case F_TO: {
            const BookFormat *f = book_format_by_id(optarg);
            char ids[128];
            if (!f)
                *status = cli_opts_bad_value(prog, opts, c, optarg, book_format_ids(ids, sizeof ids));
            else
                *(c == F_FROM ? from : to) = f;
            break;
        }
        case F_UNREG:
            if (cli_opts_int(prog, opts, c, optarg, 0, 1000, &depth))
                lo->unreg_depth = (int)depth;
            else
                *status = CLI_USAGE_ERROR;
            break;
        case F_MEMORY:
            if (!parse_size(optarg, EXTSORT_MEMORY_MIN, UINT64_MAX, &lo->memory))
                *status = cli_opts_bad_value(prog, opts, c, optarg, "a size of at least 256K, e.g. 512M or 4G");
            break;
        case F_TMPDIR: lo->tmpdir = optarg; break;
        case F_HELP:
            cli_flag_verb_help(stdout, v);
            *status = 0;
            break;
        default: *status = cli_opts_unknown(prog); break;
        }
    }
    if (*status >= 0) {
        free(av);
        return NULL;
    }
    *first = optind;
    return av;
}

/* The entry of verb in FLAG_VERBS (one of them). */
const FlagVerb *cli_flag_verb(const char *verb) {
    size_t k = 0;
    while (k + 1 < sizeof FLAG_VERBS / sizeof FLAG_VERBS[0] && strcmp(FLAG_VERBS[k].verb, verb))
        k++;
    return &FLAG_VERBS[k];
}

/* The usage error of a verb whose positional arguments are wrong: its usage on stderr. */
int cli_positional_error(const FlagVerb *v, char **av) {
    cli_flag_verb_help(stderr, v);
    free(av);
    return CLI_USAGE_ERROR;
}

bool cli_fits_memory(char *const *paths, int n, uint64_t memory) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) == 0 && sb.st_size > 0)
            total += (uint64_t)sb.st_size;
    }
    return total <= memory / 4;
}

bool cli_minimax_fits_memory(const char *path, uint64_t memory) {
    struct stat sb;
    uint64_t size = stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    return size / 2 <= memory;
}

bool cli_out_of_core_ok(const char *verb, char *const *paths, int n, const char *out) {
    char err[512];
    for (int i = 0; i < n; i++) {
        const BookFormat *f = book_format_detect(paths[i], err, sizeof err);
        if (!f) {
            fprintf(stderr, "hayanagi book %s: %s\n", verb, err);
            return false;
        }
        if (!book_format_is(f, "db")) {
            fprintf(stderr,
                    "hayanagi book %s: --memory: %s is %s, and a book larger than the memory is worked out of core "
                    "from DB2016 only: convert it first (book convert IN OUT.db) or drop --memory\n",
                    verb, paths[i], book_format_name(f));
            return false;
        }
    }
    const BookFormat *fo = out ? book_format_for_output(out, err, sizeof err) : NULL;
    if (out && (!fo || !book_format_is(fo, "db"))) {
        fprintf(stderr,
                "hayanagi book %s: --memory: %s would be %s, which is written from a whole book in memory; out of "
                "core the output is DB2016 (name it .db, then convert it)\n",
                verb, out, fo ? book_format_name(fo) : "no format we write");
        return false;
    }
    return true;
}
