/* minimax.c - `hayanagi book minimax`: back the leaves' scores up the book
 * (bookgen/minimax.h, docs/book_making.md). */
#include <stdio.h>
#include <stdlib.h>

#include "book/book.h"
#include "book/extsort.h"
#include "book/open.h"
#include "bookgen/minimax.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/options.h"
#include "cli/book/verbs.h"
#include "match/match.h"
#include "record/reader.h"
#include "util/atomic_file.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/progress.h"

/* ---- minimax ---- */

/* The closing lines every path prints (stdout, or stderr when OUT is stdout). */
static void minimax_say_done(const char *outp, const BookWriteReport *wr, const MinimaxStats *ms, bool flipped) {
    fprintf(cli_say_wrote(outp, wr),
            "; %llu settled without cycles, %llu on perpetual-check loops, %llu converging moves added, %llu "
            "propagation rounds\n",
            (unsigned long long)ms->settled, (unsigned long long)ms->check_loop,
            (unsigned long long)ms->converged_moves, (unsigned long long)ms->rounds);
    if (flipped)
        fprintf(cli_report_file(outp),
                "flipped: %llu positions with their mirror in the book, %llu moves copied from a mirror, %llu moves "
                "into a mirror\n",
                (unsigned long long)ms->flipped_twins, (unsigned long long)ms->flipped_moves,
                (unsigned long long)ms->flipped_edges);
}

/* minimax --memory of a book whose graph does not fit: book_minimax_sweep(), with what
 * the other paths print. */
static int minimax_out_of_core(const char *inp, const char *outp, const MinimaxOptions *opt, uint64_t memory,
                               const char *tmpdir, bool quiet) {
    char *inputs[1] = {(char *)inp};
    if (!cli_check_output("minimax", outp) || !cli_out_of_core_ok("minimax", inputs, 1, outp))
        return 2;
    Progress pr = {.out = stderr, .quiet = quiet};
    MinimaxOptions mo = *opt;
    mo.progress = &pr;
    MinimaxStats ms;
    uint64_t sweeps;
    char err[512];
    /* Ctrl-C stops the passes at the next entry or record: nothing is kept (the scratch
     * files have no name), the old OUT stays */
    InterruptScope scope;
    interrupt_begin(&scope, NULL);
    int done = book_minimax_sweep(inp, outp, &mo, memory, tmpdir, &ms, &sweeps, err, sizeof err);
    interrupt_end(&scope);
    if (done <= 0) {
        cli_say_not_written("hayanagi book minimax", err, outp);
        return interrupt_requested() ? INTERRUPT_EXIT_STATUS : 1;
    }
    BookWriteReport wr = {.positions = ms.written_positions, .moves = ms.written_moves};
    minimax_say_done(outp, &wr, &ms, opt->flipped);
    if (!quiet)
        fprintf(stderr, "minimaxed out of core: %llu sweeps, %llu positions on or above cycles worked in memory\n",
                (unsigned long long)sweeps, (unsigned long long)(ms.positions - ms.settled));
    return 0;
}

static void minimax_usage(FILE *f) {
    fprintf(f, "usage: hayanagi book minimax [--converge] [--flipped] [--threads T] [--in-memory]\n"
               "                            [--memory SIZE [--tmpdir DIR]] [--quiet] IN OUT\n"
               "Back-propagates the book IN's scores over its graph (negamax, transpositions shared) into OUT\n"
               "(IN may be OUT; .sbk SBK, else DB2016, comments kept).\n"
               "  --converge   add the moves that lead between book positions (peta_shock's converging moves)\n"
               "  --flipped    share values with the colour-flipped twins of positions\n"
               "  --threads T  propagate on T threads (1-64)\n"
               "  --in-memory  load the whole book even when IN is a sorted DB2016 book, which is otherwise\n"
               "               streamed through a compact graph (the same output in a third of the memory)\n"
               "  --memory SIZE  work in about SIZE bytes (e.g. 512M, 4G): a sorted DB2016 book whose\n"
               "               graph does not fit is minimaxed out of core, by sweeps over sorted files\n"
               "               (the same output; not with --in-memory)\n"
               "  --tmpdir DIR   where the sorted files go (default: OUT's directory); nothing stays there\n"
               "  --quiet      no progress display\n");
}

int book_verb_minimax(int argc, char **argv) {
    static const char prog[] = "hayanagi book minimax";
    static const struct option longopts[] = {{"converge", no_argument, NULL, 'c'},
                                             {"flipped", no_argument, NULL, 'f'},
                                             {"threads", required_argument, NULL, 't'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"in-memory", no_argument, NULL, 'm'},
                                             {"memory", required_argument, NULL, 'M'},
                                             {"tmpdir", required_argument, NULL, 'T'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    MinimaxOptions mo = {0};
    bool quiet = false, in_memory = false;
    long v = 0;
    uint64_t memory = 0;
    const char *tmpdir = NULL;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int opt, rc = -1;
    while (rc < 0 && (opt = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c': mo.converge = true; break;
        case 'f': mo.flipped = true; break;
        case 't':
            if (!cli_opts_int(prog, longopts, opt, optarg, 1, 64, &v))
                rc = CLI_USAGE_ERROR;
            mo.threads = (int)v;
            break;
        case 'q': quiet = true; break;
        case 'm': in_memory = true; break;
        case 'M':
            if (!parse_size(optarg, EXTSORT_MEMORY_MIN, UINT64_MAX, &memory))
                rc = cli_opts_bad_value(prog, longopts, opt, optarg, "a size of at least 256K, e.g. 512M or 4G");
            break;
        case 'T': tmpdir = optarg; break;
        case 'h':
            minimax_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && argc - optind != 2) {
        minimax_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    const char *paths[2] = {rc < 0 ? av[optind] : NULL, rc < 0 ? av[optind + 1] : NULL};
    free(av);
    if (rc >= 0)
        return rc;
    if (memory && in_memory) {
        fprintf(stderr, "%s: --in-memory and --memory exclude each other\n", prog);
        return CLI_USAGE_ERROR;
    }
    if (memory && !cli_minimax_fits_memory(paths[0], memory))
        return minimax_out_of_core(paths[0], paths[1], &mo, memory, tmpdir, quiet);
    if (!cli_check_output("minimax", paths[1]))
        return 2;
    Progress pr = {.out = stderr, .quiet = quiet};
    mo.progress = &pr;
    MinimaxStats ms = {0};
    char err[512];
    /* DB2016 to DB2016 streams the file through a compact graph (no IR); other formats,
     * unsorted files and books with colour-flipped twins go through the IR */
    const BookFormat *fin = book_format_detect(paths[0], err, sizeof err);
    const BookFormat *fout = book_format_for_output(paths[1], err, sizeof err);
    int streamed = 0;
    if (!in_memory && fin && fout && book_format_is(fin, "db") && book_format_is(fout, "db")) {
        streamed = book_minimax_file(paths[0], paths[1], &mo, &ms, err, sizeof err);
        if (streamed < 0) {
            cli_say_not_written("hayanagi book minimax", err, paths[1]);
            return 1;
        }
        /* twins are joined through the IR, or out of core when the memory is bounded */
        if (!streamed && memory && ms.flipped_twins) {
            if (!quiet)
                fprintf(stderr, "hayanagi book minimax: %s: minimaxed out of core\n", err);
            return minimax_out_of_core(paths[0], paths[1], &mo, memory, tmpdir, quiet);
        }
        if (!streamed && !quiet)
            fprintf(stderr, "hayanagi book minimax: %s: the book is loaded in memory\n", err);
    }
    Book *out = NULL;
    bool ok = streamed > 0;
    BookWriteReport wr = {.positions = ms.written_positions, .moves = ms.written_moves};
    if (!streamed) {
        /* comments in and out: the provenance `think` writes survives the usual think-minimax round */
        out = cli_read_book(paths[0], NULL, &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = quiet},
                            NULL);
        if (!out)
            return 1;
        /* the result is written back into the book read: no second copy */
        if (!book_minimax_in_place(out, &mo, &ms, err, sizeof err)) {
            fprintf(stderr, "hayanagi book minimax: %s\n", err);
            book_free(out);
            return 1;
        }
        ok = cli_write_book(paths[1], NULL, out,
                            &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet}, &wr);
    }
    if (ok)
        minimax_say_done(paths[1], &wr, &ms, mo.flipped);
    book_free(out);
    return ok ? 0 : 1;
}
