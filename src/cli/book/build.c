/* build.c - `hayanagi book build`: a book from game records (bookgen/make.h,
 * docs/book_making.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/book.h"
#include "book/open.h"
#include "bookgen/make.h"
#include "bookgen/minimax.h"
#include "bookgen/think.h"
#include "cli/book/engines.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"
#include "util/progress.h"
#include "util/random.h"
#include "util/interrupt.h"
#include "util/parse.h"

/* What the record callback shares with the verb. */
typedef struct {
    bool quiet;
    Book *book;
    BookBuildOptions bo;
    BookBuildStats bs;
    StateInfo *st;
    size_t cap;
    bool oom;
} Ctx;

/* ---- build ---- */

static bool build_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!book_build_add_game(c->book, g, &c->bo, &c->bs, &c->st, &c->cap)) {
        c->oom = true;
        return false;
    }
    return true;
}

static void build_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book build --from FILES... [--max-ply N] [--min-count K] [--side black|white|both]\n"
               "                          [--winner-only] [--min-rating R] [--player NAME] [--scores-from-comments]\n"
               "                          [--variations] [--quiet] OUT\n"
               "Counts the moves the game records FILES play into a book OUT (.sbk SBK, else DB2016);\n"
               "--from=FILE names one record, --from alone says the records follow.\n"
               "  --max-ply N             count game plies 1..N only (0, the default: all)\n"
               "  --min-count K           drop moves counted fewer than K times\n"
               "  --side S                count the moves of black, white or both (default)\n"
               "  --winner-only           count only the winner's moves\n"
               "  --min-rating R          count only movers rated R or more\n"
               "  --player NAME           count only the moves of the player NAME (exact)\n"
               "  --scores-from-comments  score moves with the evaluations in the records' comments\n"
               "  --variations            read KIF/KI2 variations as games too\n"
               "  --quiet                 no progress display\n");
}

int book_verb_build(int argc, char **argv) {
    static const char prog[] = "hayanagi book build";
    enum {
        B_FROM = 1,
        B_MAXPLY,
        B_MINCOUNT,
        B_SIDE,
        B_WINNER,
        B_VARIATIONS,
        B_QUIET,
        B_RATING,
        B_PLAYER,
        B_SCORES,
        B_HELP
    };
    static const struct option longopts[] = {{"from", optional_argument, NULL, B_FROM},
                                             {"max-ply", required_argument, NULL, B_MAXPLY},
                                             {"min-count", required_argument, NULL, B_MINCOUNT},
                                             {"side", required_argument, NULL, B_SIDE},
                                             {"winner-only", no_argument, NULL, B_WINNER},
                                             {"variations", no_argument, NULL, B_VARIATIONS},
                                             {"quiet", no_argument, NULL, B_QUIET},
                                             {"min-rating", required_argument, NULL, B_RATING},
                                             {"player", required_argument, NULL, B_PLAYER},
                                             {"scores-from-comments", no_argument, NULL, B_SCORES},
                                             {"help", no_argument, NULL, B_HELP},
                                             {NULL, 0, NULL, 0}};
    Ctx c = {0};
    c.bo.min_rating = REC_NO_RATING;
    long min_count = 1, v = 0;
    bool variations = false, from = false;
    const char *out = NULL;
    char **files = malloc(sizeof(char *) * (size_t)(argc + 1));
    char **av = cli_opts_begin(prog, argc, argv);
    int nfiles = 0, rc = -1, opt;
    if (!files || !av) {
        free(files);
        free(av);
        return 1;
    }
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case B_FROM:
            from = true;
            if (optarg)
                files[nfiles++] = optarg;
            break;
        case B_MAXPLY:
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.bo.max_ply = (int)v;
            break;
        case B_MINCOUNT:
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 1L << 30, &min_count))
                rc = CLI_USAGE_ERROR;
            break;
        case B_SIDE: {
            static const char *const sides[] = {
                [BUILD_SIDE_BOTH] = "both", [BUILD_SIDE_BLACK] = "black", [BUILD_SIDE_WHITE] = "white"};
            int i = 0;
            if (cli_opts_keyword(prog, longopts, opt, optarg, sides, 3, "black, white or both", &i))
                c.bo.side = (BuildSide)i;
            else
                rc = CLI_USAGE_ERROR;
            break;
        }
        case B_WINNER: c.bo.winner_only = true; break;
        case B_VARIATIONS: variations = true; break;
        case B_QUIET: c.quiet = true; break;
        case B_RATING:
            if (!cli_opts_int(prog, longopts, opt, optarg, -100000, 100000, &v))
                rc = CLI_USAGE_ERROR;
            c.bo.min_rating = (int32_t)v;
            break;
        case B_PLAYER: c.bo.player = optarg; break;
        case B_SCORES:
            if (!c.bo.scores && !(c.bo.scores = build_scores_create()))
                rc = 1;
            break;
        case B_HELP:
            build_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc >= 0)
        goto done;
    rc = CLI_USAGE_ERROR;
    for (int i = optind; i < argc; i++)
        files[nfiles++] = av[i];
    if (!from) {
        fprintf(stderr, "%s: name the records with --from FILES...\n", prog);
        build_usage(stderr);
        goto done;
    }
    if (nfiles < 2) {
        build_usage(stderr);
        goto done;
    }
    out = files[--nfiles];
    if (!cli_check_output("build", out))
        goto done;
    c.book = book_create();
    if (!c.book) {
        rc = 1;
        goto done;
    }
    rc = cli_read_records(files, nfiles, build_game, &c, &c.oom, variations, c.quiet, NULL);
    if (rc || c.oom) { /* a run that failed writes nothing */
        fprintf(stderr, "hayanagi book build: %s not written\n", out);
        rc = 1;
        goto done;
    }
    uint64_t scored = 0, samples = 0;
    if (c.bo.scores && !build_scores_apply(c.bo.scores, c.book, &scored, &samples)) {
        fprintf(stderr, "hayanagi book build: out of memory\n");
        rc = 1;
        goto done;
    }
    if (min_count > 1) {
        Book *f = book_filter_min_count(c.book, (uint64_t)min_count);
        if (!f) {
            fprintf(stderr, "hayanagi book build: out of memory\n");
            rc = 1;
            goto done;
        }
        book_free(c.book);
        c.book = f;
    }
    BookWriteReport wr;
    if (!(c.bo.scores
              ? cli_write_book(out, NULL, c.book,
                               &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = c.quiet}, &wr)
              : cli_write_book(out, NULL, c.book, &(BookWriteOptions){.log = stderr, .quiet = c.quiet}, &wr))) {
        rc = 1;
        goto done;
    }
    fprintf(cli_say_wrote(out, &wr), " from %llu games (%llu used, %llu moves counted)\n",
            (unsigned long long)c.bs.games, (unsigned long long)c.bs.games_used,
            (unsigned long long)c.bs.moves_counted);
    if (c.bo.scores)
        fprintf(cli_report_file(out), "scores from comments: %llu moves scored from %llu samples\n",
                (unsigned long long)scored, (unsigned long long)samples);
done:
    free(av);
    free(files);
    free(c.st);
    book_free(c.book);
    build_scores_free(c.bo.scores);
    return rc;
}
