/* merge.c - `hayanagi book merge`: several books into one (docs/book_making.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book.h"
#include "book/open.h"
#include "bookgen/make.h"
#include "bookgen/merge_file.h"
#include "bookgen/think.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "shogi/movegen.h"
#include "util/atomic_file.h"
#include "util/parse.h"
#include "util/progress.h"

/* ---- merge ---- */

typedef struct {
    MergePolicy policy;
    const double *weights;
    int nweights;
    bool quiet;
    uint64_t memory;    /* --memory: 0 = in memory */
    const char *tmpdir; /* --tmpdir */
} MergeArgs;

static int merge_books(char **paths, int n, const MergeArgs *a);

static void merge_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book merge A B ... [--weights w1,w2,...] [--policy sum|prefer-deeper|prefer-first]\n"
               "                          [--memory SIZE [--tmpdir DIR]] [--quiet] OUT\n"
               "Merges the books A B ... (any format) into OUT (.sbk SBK, else DB2016).\n"
               "  --weights W,...  multiply each book's counts by its weight (one per book, 0-1000000)\n"
               "  --policy P       sum (default): add the counts of a move found in several books;\n"
               "                   prefer-deeper: keep the move list searched deepest; prefer-first: the earliest\n"
               "  --memory SIZE    work in about SIZE bytes (e.g. 512M, 4G): books that do not fit are\n"
               "                   sorted into runs on disk and merged from there (DB2016 in and out);\n"
               "                   the same output as in memory\n"
               "  --tmpdir DIR     where the runs go (default: OUT's directory); nothing stays there\n"
               "  --quiet          no progress display\n");
}

/* Parses "w1,w2,..." (each 0..1e6) into weights; the count, or -1 when the list is bad. */
static int parse_weights(const char *s, double *weights, int max) {
    int n = 0;
    while (*s) {
        char *e;
        double w = strtod(s, &e);
        if (n == max || e == s || !(w >= 0 && w <= 1e6) || (*e && *e != ','))
            return -1;
        weights[n++] = w;
        s = *e == ',' ? e + 1 : e;
    }
    return n;
}

int book_verb_merge(int argc, char **argv) {
    static const char prog[] = "hayanagi book merge";
    static const struct option longopts[] = {{"policy", required_argument, NULL, 'p'},
                                             {"weights", required_argument, NULL, 'w'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"memory", required_argument, NULL, 'm'},
                                             {"tmpdir", required_argument, NULL, 't'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    MergePolicy policy = MERGE_SUM;
    double weights[256];
    int nweights = 0;
    bool quiet = false;
    uint64_t memory = 0;
    const char *tmpdir = NULL;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'p': {
            static const char *const policies[] = {
                [MERGE_SUM] = "sum", [MERGE_PREFER_DEEPER] = "prefer-deeper", [MERGE_PREFER_FIRST] = "prefer-first"};
            int i = 0;
            if (cli_opts_keyword(prog, longopts, opt, optarg, policies, 3, "sum, prefer-deeper or prefer-first", &i))
                policy = (MergePolicy)i;
            else
                rc = CLI_USAGE_ERROR;
            break;
        }
        case 'w':
            if ((nweights = parse_weights(optarg, weights, 256)) < 0)
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "a comma-separated list of numbers 0-1000000");
            break;
        case 'q': quiet = true; break;
        case 'm':
            if (!parse_size(optarg, EXTSORT_MEMORY_MIN, UINT64_MAX, &memory))
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "a size of at least 256K, e.g. 512M or 4G");
            break;
        case 't': tmpdir = optarg; break;
        case 'h':
            merge_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    char **paths = av + optind;
    int n = argc - optind;
    if (rc < 0 && n < 3) {
        merge_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    if (rc < 0)
        rc = merge_books(paths, n, &(MergeArgs){policy, nweights ? weights : NULL, nweights, quiet, memory, tmpdir});
    free(av);
    return rc;
}

/* Moves whose count sits at BOOK_COUNT_MAX: sums and weights saturate there (book.h). */
static uint64_t saturated_moves(const Book *b) {
    BookMoveList *list = malloc(sizeof *list);
    uint64_t n = 0;
    for (uint32_t id = 0; list && id < book_position_count(b); id++) {
        book_position_moves(b, id, list);
        for (int i = 0; i < list->n; i++)
            n += list->moves[i].count >= BOOK_COUNT_MAX;
    }
    free(list);
    return n;
}

static void warn_saturated(uint64_t capped) {
    if (capped)
        fprintf(stderr,
                "warning: %llu move counts reached the largest count a book keeps (%llu) and stay there: "
                "their order among themselves is lost (use smaller --weights)\n",
                (unsigned long long)capped, (unsigned long long)BOOK_COUNT_MAX);
}

/* merge --memory of books that do not fit: book_merge_files(), with what the in-memory
 * merge prints. */
static int merge_out_of_core(char **paths, int nin, const MergeArgs *a) {
    if (!cli_out_of_core_ok("merge", paths, nin, paths[nin]))
        return 2;
    ErrorPrinter ep = {"warning: ", 0};
    Progress pr;
    pr.out = stderr;
    pr.quiet = a->quiet;
    ExtSortOptions eo = {
        .memory = a->memory, .tmpdir = a->tmpdir, .on_error = cli_print_book_error, .ctx = &ep, .progress = &pr};
    MergeFileStats st;
    char err[512];
    if (!book_merge_files(paths, nin, paths[nin], a->weights, a->policy, &eo, &st, err, sizeof err)) {
        cli_say_not_written("hayanagi book merge", err, paths[nin]);
        return 1;
    }
    warn_saturated(st.saturated);
    BookWriteReport wr = {.positions = st.positions, .moves = st.moves};
    fprintf(cli_say_wrote(paths[nin], &wr), "\n");
    if (!a->quiet)
        fprintf(stderr, "merged from %llu sorted run(s) of at most %llu bytes\n", (unsigned long long)st.runs,
                (unsigned long long)a->memory);
    return 0;
}

/* Merges paths[0..n-2] into paths[n-1]; the exit status. */
static int merge_books(char **paths, int n, const MergeArgs *a) {
    int nin = n - 1;
    const double *weights = a->weights;
    MergePolicy policy = a->policy;
    bool quiet = a->quiet;
    if (a->nweights && a->nweights != nin) {
        fprintf(stderr, "hayanagi book merge: %d weights for %d books\n", a->nweights, nin);
        return 2;
    }
    if (!cli_check_output("merge", paths[nin]))
        return 2;
    if (a->memory && !cli_fits_memory(paths, nin, a->memory))
        return merge_out_of_core(paths, nin, a);
    Book *acc = book_create();
    if (!acc)
        return 1;
    for (int i = 0; i < nin; i++) {
        /* comments kept: a thought position's "#think engine=...; depth=..." provenance is
         * what a later `think --rethink-if` on the merged book decides by */
        Book *b = cli_read_book(paths[i], NULL,
                                &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = quiet}, NULL);
        if (!b) {
            book_free(acc);
            return 1;
        }
        bool ok = book_merge_policy(&acc, b, weights ? weights[i] : 1.0, policy);
        book_free(b);
        if (!ok) {
            fprintf(stderr, "hayanagi book merge: out of memory\n");
            book_free(acc);
            return 1;
        }
    }
    warn_saturated(saturated_moves(acc));
    BookWriteReport wr;
    bool ok = cli_write_book(paths[nin], NULL, acc,
                             &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet}, &wr);
    if (ok)
        fprintf(cli_say_wrote(paths[nin], &wr), "\n");
    book_free(acc);
    return ok ? 0 : 1;
}
