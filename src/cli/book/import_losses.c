/* import_losses.c - `hayanagi book import-losses`: the moves of lost games into a book
 * (docs/book_making.md). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "book/book.h"
#include "book/open.h"
#include "bookgen/make.h"
#include "bookgen/minimax.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "util/atomic_file.h"

/* What the record callback shares with the verb. */
typedef struct {
    bool quiet;
    Book *book;
    const char *opponent;
    int max_ply;
    ImportLossStats is;
    StateInfo *st;
    size_t cap;
    bool oom;
} Ctx;

/* ---- import-losses ---- */

static bool loss_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!book_import_loss(c->book, g, c->opponent, c->max_ply, &c->is, &c->st, &c->cap)) {
        c->oom = true;
        return false;
    }
    return true;
}

static void import_losses_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book import-losses --opponent NAME [--max-ply N] [--quiet] RECORDS... BOOK\n"
               "For every game in RECORDS that NAME (exact) lost, makes the winner's moves the first choices\n"
               "of BOOK (read when it exists, any format, and rewritten in its own format).\n"
               "  --opponent NAME  the player whose losses are imported\n"
               "  --max-ply N      only game plies 1..N (0, the default: all)\n"
               "  --quiet          no progress display\n");
}

int book_verb_import_losses(int argc, char **argv) {
    static const char prog[] = "hayanagi book import-losses";
    static const struct option longopts[] = {{"opponent", required_argument, NULL, 'o'},
                                             {"max-ply", required_argument, NULL, 'p'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    Ctx c = {0};
    long v = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': c.opponent = optarg; break;
        case 'p':
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.max_ply = (int)v;
            break;
        case 'q': c.quiet = true; break;
        case 'h':
            import_losses_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    char **files = av + optind;
    int n = argc - optind;
    if (rc < 0 && (!c.opponent || n < 2)) {
        import_losses_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    if (rc >= 0) {
        free(av);
        return rc;
    }
    const char *bookp = files[--n];
    if (!cli_check_output("import-losses", bookp)) {
        free(av);
        return 2;
    }
    struct stat sb;
    /* The book's comments (think's provenance, learn's evidence) stay: --rethink-if and
     * learn select on them later. */
    c.book = stat(bookp, &sb) == 0
                 ? cli_read_book(bookp, NULL,
                                 &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = c.quiet}, NULL)
                 : book_create();
    rc = 1;
    if (c.book) {
        rc = cli_read_records(files, n, loss_game, &c, &c.oom, false, c.quiet, NULL);
        if (rc || c.oom) { /* a run that failed writes nothing */
            fprintf(stderr, "hayanagi book import-losses: %s not written\n", bookp);
            rc = 1;
        } else if (cli_write_book(bookp, NULL, c.book,
                                  &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = c.quiet}, NULL)) {
            if (!c.is.named)
                fprintf(stderr,
                        "warning: no game was played by '%s' (an exact, case-sensitive player name): "
                        "check the --opponent spelling\n",
                        c.opponent);
            fprintf(cli_report_file(bookp), "%s: %llu lost games of %s imported, %llu positions rewritten\n", bookp,
                    (unsigned long long)c.is.games, c.opponent, (unsigned long long)c.is.positions);
        } else
            rc = 1;
    }
    free(av);
    free(c.st);
    book_free(c.book);
    return rc;
}
