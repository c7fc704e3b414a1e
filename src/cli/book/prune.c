/* prune.c - `hayanagi book prune` (bookgen/prune.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/prune.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"

static void prune_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book prune [--max-ply N] [--min-share PCT] [--through-legal] [--quiet] IN OUT\n"
               "Keeps the positions a walk from the start position reaches through the book's moves,\n"
               "up to ply N (1 = the start position), following only moves whose count is at least\n"
               "PCT percent of their position's total; moves into positions left out stay as leaves.\n"
               "--through-legal also follows legal moves the book lacks into positions it holds\n"
               "(the opponent's deviations, when the book dropped the moves its owner never plays).\n");
}

int book_verb_prune(int argc, char **argv) {
    static const struct option longopts[] = {
        {"max-ply", required_argument, NULL, 'p'}, {"min-share", required_argument, NULL, 's'},
        {"through-legal", no_argument, NULL, 'l'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    PruneOptions po = {0};
    bool quiet = false;
    long v = 0;
    static const char prog[] = "hayanagi book prune";
    char **av = cli_opts_begin(prog, argc, argv);
    int c, rc = av ? -1 : 1;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        if (c == 'p') {
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 10000, &v))
                rc = 2;
            po.max_ply = (int)v;
        } else if (c == 's') {
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 100, &v))
                rc = 2;
            po.min_share = (int)v;
        } else if (c == 'l')
            po.through_legal = true;
        else if (c == 'q')
            quiet = true;
        else if (c == 'h') {
            prune_usage(stdout);
            rc = 0;
        } else
            rc = cli_opts_unknown(prog);
    }
    if (rc < 0 && argc - optind != 2) {
        prune_usage(stderr);
        rc = 2;
    }
    const char *inp = rc < 0 ? av[optind] : NULL, *outp = rc < 0 ? av[optind + 1] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    Book *in = cli_read_book(inp, NULL, &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = quiet},
                             NULL); /* comments too: think's provenance, learn's evidence */
    if (!in)
        return 1;
    PruneStats st;
    char err[256];
    Book *out = book_prune(in, &po, &st, err, sizeof err);
    book_free(in);
    if (!out) {
        fprintf(stderr, "hayanagi book prune: %s\n", err);
        return 1;
    }
    BookWriteReport wr;
    bool ok = cli_write_book(outp, NULL, out,
                             &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet}, &wr);
    if (ok)
        fprintf(cli_say_wrote(outp, &wr), "; %llu rare moves and %llu positions left out\n",
                (unsigned long long)st.rare_moves, (unsigned long long)st.unreached);
    book_free(out);
    return ok ? 0 : 1;
}
