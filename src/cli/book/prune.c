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
#include "util/parse.h"
#include "util/progress.h"

static void prune_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book prune [--max-ply N] [--min-share PCT] [--through-legal]\n"
               "                          [--memory SIZE [--tmpdir DIR]] [--quiet] IN OUT\n"
               "Keeps the positions a walk from the start position reaches through the book's moves,\n"
               "up to ply N (1 = the start position), following only moves whose count is at least\n"
               "PCT percent of their position's total; moves into positions left out stay as leaves.\n"
               "--through-legal also follows legal moves the book lacks into positions it holds\n"
               "(the opponent's deviations, when the book dropped the moves its owner never plays).\n"
               "--memory SIZE (e.g. 512M, 4G): a book that does not fit is sorted on disk and walked by\n"
               "passes over the sorted copy, one per ply (DB2016 in and out); the same output as in memory.\n"
               "--tmpdir DIR: where the sorted data go (default: OUT's directory); nothing stays there.\n");
}

/* prune --memory of a book that does not fit: book_prune_file(), with what the in-memory
 * prune prints. */
static int prune_out_of_core(const char *inp, const char *outp, const PruneOptions *po, uint64_t memory,
                             const char *tmpdir, bool quiet) {
    char *inputs[1] = {(char *)inp};
    if (!cli_check_output("prune", outp) || !cli_out_of_core_ok("prune", inputs, 1, outp))
        return 2;
    ErrorPrinter ep = {"warning: ", 0};
    Progress pr;
    pr.out = stderr;
    pr.quiet = quiet;
    ExtSortOptions eo = {
        .memory = memory, .tmpdir = tmpdir, .on_error = cli_print_book_error, .ctx = &ep, .progress = &pr};
    PruneStats st;
    uint64_t written[2], passes;
    char err[512];
    if (!book_prune_file(inp, outp, po, &eo, &st, written, &passes, err, sizeof err)) {
        cli_say_not_written("hayanagi book prune", err, outp);
        return 1;
    }
    BookWriteReport wr = {.positions = written[0], .moves = written[1]};
    fprintf(cli_say_wrote(outp, &wr), "; %llu rare moves and %llu positions left out\n",
            (unsigned long long)st.rare_moves, (unsigned long long)st.unreached);
    if (!quiet)
        fprintf(stderr, "pruned in %llu passes over the sorted copy\n", (unsigned long long)passes);
    return 0;
}

int book_verb_prune(int argc, char **argv) {
    static const struct option longopts[] = {
        {"max-ply", required_argument, NULL, 'p'}, {"min-share", required_argument, NULL, 's'},
        {"through-legal", no_argument, NULL, 'l'}, {"quiet", no_argument, NULL, 'q'},
        {"memory", required_argument, NULL, 'm'},  {"tmpdir", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    PruneOptions po = {0};
    bool quiet = false;
    long v = 0;
    uint64_t memory = 0;
    const char *tmpdir = NULL;
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
        else if (c == 'm') {
            if (!parse_size(optarg, EXTSORT_MEMORY_MIN, UINT64_MAX, &memory))
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "a size of at least 256K, e.g. 512M or 4G");
        } else if (c == 't')
            tmpdir = optarg;
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
    char *inputs[1] = {(char *)inp};
    if (memory && !cli_fits_memory(inputs, 1, memory))
        return prune_out_of_core(inp, outp, &po, memory, tmpdir, quiet);
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
