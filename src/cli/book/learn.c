/* learn.c - `hayanagi book learn` (bookgen/learn.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/learn.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "util/cli_opts.h"

static void learn_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book learn --player PATTERN [--max-ply N] [--min-games K] [--prior G] [--quiet]\n"
               "                          RECORDS... OUT\n"
               "Makes a book OUT (.sbk SBK, else DB2016) of the moves that scored best for a player in its\n"
               "own games: in each position the player met within N plies, the move whose games' results\n"
               "beat the player's mean (per record file and colour) by most, shrunk by G prior games.\n"
               "  --player PATTERN  the player's name, a glob pattern ('hayanagi*'); required\n"
               "  --max-ply N       positions before plies 1..N (default 16: the engine's BookMoves)\n"
               "  --min-games K     a move needs K games to be chosen (default 20)\n"
               "  --prior G         shrink each move's lead as if G more games had scored the mean\n"
               "                    (default 100)\n"
               "  --quiet           no progress display\n");
}

typedef struct {
    BookLearn *l;
    bool oom;
} Ctx;

static bool on_game(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    if (!book_learn_add_game(c->l, g)) {
        c->oom = true;
        return false;
    }
    return true;
}

int book_verb_learn(int argc, char **argv) {
    static const char prog[] = "hayanagi book learn";
    static const struct option longopts[] = {{"player", required_argument, NULL, 'p'},
                                             {"max-ply", required_argument, NULL, 'm'},
                                             {"min-games", required_argument, NULL, 'k'},
                                             {"prior", required_argument, NULL, 'g'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    BookLearnOptions o = {.max_ply = 16, .min_games = 20, .prior = 100};
    bool quiet = false;
    long v = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    int c, rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        if (c == 'p')
            o.player = optarg;
        else if (c == 'm' || c == 'k' || c == 'g') {
            if (!cli_opts_int(prog, longopts, c, optarg, c == 'g' ? 0 : 1, 1000000, &v))
                rc = 2;
            else if (c == 'm')
                o.max_ply = (int)v;
            else if (c == 'k')
                o.min_games = (int)v;
            else
                o.prior = (double)v;
        } else if (c == 'q')
            quiet = true;
        else if (c == 'h') {
            learn_usage(stdout);
            rc = 0;
        } else
            rc = cli_opts_unknown(prog);
    }
    int n = rc < 0 ? argc - optind : 0;
    if (rc < 0 && (!o.player || n < 2)) {
        learn_usage(stderr);
        rc = 2;
    }
    if (rc >= 0) {
        free(av);
        return rc;
    }
    char **files = av + optind;
    const char *out = files[--n];
    if (!cli_check_output("learn", out)) {
        free(av);
        return 2;
    }
    Ctx ctx = {.l = book_learn_create(&o)};
    RecordStats rs = {0};
    rc = 1;
    if (!ctx.l)
        fprintf(stderr, "hayanagi book learn: out of memory\n");
    else if (cli_read_records(files, n, on_game, &ctx, &ctx.oom, false, quiet, &rs) == 0) {
        BookLearnStats st;
        BookWriteReport wr;
        Book *b = book_learn_finish(ctx.l, &st);
        if (!b)
            fprintf(stderr, "hayanagi book learn: out of memory\n");
        else if (!st.player_games)
            fprintf(stderr,
                    "hayanagi book learn: no game with a result was played by a player matching '%s' "
                    "(a case-sensitive glob pattern); %s not written\n",
                    o.player, out);
        else if (cli_write_book(out, NULL, b,
                                &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet}, &wr)) {
            fprintf(cli_say_wrote(out, &wr),
                    "; %llu chosen (%llu where the chosen move is not the one played most), from %llu "
                    "sides played by '%s' in %llu games; %llu positions seen, %llu bad records skipped\n",
                    (unsigned long long)st.chosen, (unsigned long long)st.changed, (unsigned long long)st.player_games,
                    o.player, (unsigned long long)st.games, (unsigned long long)st.positions,
                    (unsigned long long)rs.errors);
            rc = 0;
        }
        book_free(b);
    }
    if (rc)
        fprintf(stderr, "hayanagi book learn: %s not written\n", out);
    book_learn_free(ctx.l);
    free(av);
    return rc;
}
