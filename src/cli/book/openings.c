/* openings.c - `hayanagi book openings`: random short start lines for `hayanagi match`
 * (match/openings_gen.h). */
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "util/atomic_file.h"
#include "util/progress.h"
#include "util/parse.h"
#include "match/openings_gen.h"

/* ---- openings: random short start lines for `hayanagi match` ---- */

static void openings_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book openings --count N [--plies MIN-MAX] [--seed S] OUT\n"
               "Writes N distinct random start lines (startpos moves ...) for `hayanagi match --openings`.\n"
               "  --count N          how many lines (1-1000000)\n"
               "  --plies MIN-MAX    random legal plies per line (1-40, default 2-4)\n"
               "  --seed S           random seed (0-2000000000, default 0): the same seed, the same lines\n");
}

int book_verb_openings(int argc, char **argv) {
    static const char prog[] = "hayanagi book openings";
    static const struct option longopts[] = {{"count", required_argument, NULL, 'c'},
                                             {"plies", required_argument, NULL, 'p'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    long count = 0, v = 0;
    long long lo = 2, hi = 4;
    uint64_t seed = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 1000000, &count))
                rc = CLI_USAGE_ERROR;
            break;
        case 'p':
            if (!parse_range(optarg, 1, 40, &lo, &hi))
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "MIN-MAX with 1 <= MIN <= MAX <= 40");
            break;
        case 's':
            if (!cli_opts_int(prog, longopts, opt, optarg, 0, 2000000000L, &v))
                rc = CLI_USAGE_ERROR;
            seed = (uint64_t)v;
            break;
        case 'h':
            openings_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && (!count || argc - optind != 1)) {
        openings_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    const char *out = rc < 0 ? av[optind] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    if (!cli_check_record_output("hayanagi book openings", out))
        return 1;
    /* The generator shared with `tune openings` (match/openings_gen.h): distinct lines. */
    OpeningsGenOptions go = {
        .count = (int)count, .min_plies = (int)lo, .max_plies = (int)hi, .seed = seed, .tries_per_line = 100};
    Openings lines;
    char err[512];
    AtomicFile af;
    if (!openings_generate(&go, &lines, NULL)) {
        fprintf(stderr, "hayanagi book openings: out of memory\n");
        return 1;
    }
    if (!atomic_file_open(&af, out, err, sizeof err)) {
        fprintf(stderr, "hayanagi book openings: %s\n", err);
        openings_free(&lines);
        return 1;
    }
    fprintf(af.f, "# %ld random openings of %lld-%lld plies, seed %llu (hayanagi book openings)\n", count, lo, hi,
            (unsigned long long)seed);
    for (int i = 0; i < lines.n; i++)
        fprintf(af.f, "%s\n", lines.lines[i]);
    int written = lines.n;
    openings_free(&lines);
    if (!atomic_file_commit(&af, err, sizeof err)) {
        fprintf(stderr, "hayanagi book openings: %s\n", err);
        return 1;
    }
    fprintf(cli_report_file(out), "wrote %s: %d openings\n", out, written);
    return 0;
}
