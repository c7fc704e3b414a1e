/* expand.c - `hayanagi book expand`: PV-MCTS book expansion (bookgen/expand.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookgen/expand.h"
#include "cli/book/engines.h"
#include "bookgen/minimax.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/verbs.h"
#include "usi/policybook.h"
#include "mcts/provider_ab.h"
#include "util/atomic_file.h"
#include "util/long_job.h"

static int run(ExpandOptions *po, AbProviderOptions *pab, CliEngines *ce, const char **paths, int n, int limits,
               long alpha, bool book_policy, bool quiet);

typedef struct {
    const char *out;
    const char *state;
    bool quiet;
} Checkpoint;

/* After a round: the book, then the state file naming the round, both atomically. */
static bool write_checkpoint(void *ctx, const Book *b, int round) {
    Checkpoint *c = ctx;
    if (!cli_write_book(c->out, NULL, b, &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = c->quiet},
                        NULL))
        return false;
    AtomicFile af;
    char err[512];
    if (!atomic_file_open(&af, c->state, err, sizeof err)) {
        fprintf(stderr, "hayanagi book expand: %s\n", err);
        return false;
    }
    fprintf(af.f, "hayanagi book expand rounds %d\n", round);
    if (!atomic_file_commit(&af, err, sizeof err)) {
        fprintf(stderr, "hayanagi book expand: %s\n", err);
        return false;
    }
    return true;
}

/* Rounds an earlier run finished, from its state file; 0 when there is none. */
static int rounds_done(const char *state) {
    FILE *f = fopen(state, "r");
    if (!f)
        return 0;
    int r = 0;
    if (fscanf(f, "hayanagi book expand rounds %d", &r) != 1 || r < 0 || r > 1000000)
        r = 0;
    fclose(f);
    return r;
}

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi book expand IN [OUT] [--playouts P] [--top N] [--min-candidates K] [--rounds R]\n"
               "       [--extra-starts M] [--depth D | --nodes N | --movetime MS | --go ARGS] [--threads T]\n"
               "       [--mcts-threads T] [--tree-mb MB] [--hash MB] [--alpha PERCENT] [--no-book-policy]\n"
               "       [--temperature CP] [--sfen SFEN] [--engine CMD]... [--engine-file FILE]\n"
               "       [--engine-option NAME=VALUE]... [--engine-timeout MS] [--engine-startup MS]\n"
               "       [--engine-newgame] [--quiet]\n"
               "Defaults: 200000 playouts, top 1000, 4 candidates, 1 round, depth 8, OUT = IN. The positions chosen\n"
               "are thought in this process, or by the external USI engines given with --engine (see book think).\n"
               "The run checkpoints into OUT after every round and OUT.expand-journal within one; run the same\n"
               "command to resume. OUT must therefore be a file (not -, a FIFO or a device).\n");
}

enum {
    X_PLAYOUTS = 2000,
    X_TOP,
    X_MINC,
    X_ROUNDS,
    X_EXTRA,
    X_DEPTH,
    X_NODES,
    X_MOVETIME,
    X_THREADS,
    X_MTHREADS,
    X_TREE,
    X_HASH,
    X_ALPHA,
    X_TEMP,
    X_SFEN,
    X_NOPOLICY,
    X_QUIET,
    X_HELP
};

int book_verb_expand(int argc, char **argv) {
    ExpandOptions eo;
    memset(&eo, 0, sizeof eo);
    eo.playouts = 200000;
    eo.top = 1000;
    eo.min_candidates = 4;
    eo.rounds = 1;
    mcts_options_default(&eo.mcts);
    eo.mcts.tree_mb = 1024;
    eo.think.threads = 1;
    eo.think.hash_mb = 16;
    AbProviderOptions ab;
    ab_provider_defaults(&ab);
    long alpha = 50;
    bool book_policy = true, quiet = false;
    const char *paths[2] = {NULL, NULL};
    int n = 0, limits = 0;
    long v = 0;
    CliEngines ce;
    memset(&ce, 0, sizeof ce);
    static const struct option longopts[] = {CLI_ENGINE_LONGOPTS,
                                             {"playouts", required_argument, NULL, X_PLAYOUTS},
                                             {"top", required_argument, NULL, X_TOP},
                                             {"min-candidates", required_argument, NULL, X_MINC},
                                             {"rounds", required_argument, NULL, X_ROUNDS},
                                             {"extra-starts", required_argument, NULL, X_EXTRA},
                                             {"depth", required_argument, NULL, X_DEPTH},
                                             {"nodes", required_argument, NULL, X_NODES},
                                             {"movetime", required_argument, NULL, X_MOVETIME},
                                             {"threads", required_argument, NULL, X_THREADS},
                                             {"mcts-threads", required_argument, NULL, X_MTHREADS},
                                             {"tree-mb", required_argument, NULL, X_TREE},
                                             {"hash", required_argument, NULL, X_HASH},
                                             {"alpha", required_argument, NULL, X_ALPHA},
                                             {"temperature", required_argument, NULL, X_TEMP},
                                             {"sfen", required_argument, NULL, X_SFEN},
                                             {"no-book-policy", no_argument, NULL, X_NOPOLICY},
                                             {"quiet", no_argument, NULL, X_QUIET},
                                             {"help", no_argument, NULL, X_HELP},
                                             {NULL, 0, NULL, 0}};
    char **av = cli_opts_begin("hayanagi book expand", argc, argv);
    if (!av)
        return 1;
    int ac = argc, c, rc = 0;
    while ((c = getopt_long(ac, av, "", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case X_PLAYOUTS:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 2000000000L, &v), eo.playouts = (uint64_t)v;
            break;
        case X_TOP: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000000L, &v), eo.top = (size_t)v; break;
        case X_MINC: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 1000, &v), eo.min_candidates = (int)v; break;
        case X_ROUNDS: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 1000000, &v), eo.rounds = (int)v; break;
        case X_EXTRA: ok = cli_opts_int(av[0], longopts, c, optarg, 0, 10000, &v), eo.extra_starts = (int)v; break;
        case X_DEPTH:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 200, &v), eo.think.depth = (int)v, limits++;
            break;
        case X_NODES:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 2000000000L, &v), eo.think.nodes = (uint64_t)v, limits++;
            break;
        case X_MOVETIME:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000000L, &v), eo.think.movetime = v, limits++;
            break;
        case X_THREADS: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 128, &v), eo.think.threads = (int)v; break;
        case X_MTHREADS: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 128, &v), eo.mcts.threads = (int)v; break;
        case X_TREE: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 1000000, &v), eo.mcts.tree_mb = (size_t)v; break;
        case X_HASH: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 65536, &v), eo.think.hash_mb = (size_t)v; break;
        case X_ALPHA: ok = cli_opts_int(av[0], longopts, c, optarg, 0, 100, &v), alpha = v; break;
        case X_TEMP: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000, &v), ab.temperature_cp = (double)v; break;
        case X_SFEN: eo.root_sfen = optarg; break;
        case X_NOPOLICY: book_policy = false; break;
        case X_QUIET: quiet = true; break;
        case X_HELP: usage(stdout); goto done;
        case '?': ok = false; break;
        default:
            if (c == OPT_GO)
                limits++;
            if (!cli_engines_option(&ce, c, optarg, "expand")) { /* it said why, with the hint */
                rc = CLI_USAGE_ERROR;
                goto done;
            }
            break;
        }
        if (!ok) { /* the bad value is named (util/cli_opts.h); getopt named the unknown option */
            rc = c == '?' ? cli_opts_unknown(av[0]) : CLI_USAGE_ERROR;
            goto done;
        }
    }
    for (int i = optind; i < ac; i++) {
        if (n == 2) {
            fprintf(stderr, "hayanagi book expand: bad argument %s\n", av[i]);
            usage(stderr);
            rc = 2;
            goto done;
        }
        paths[n++] = av[i];
    }
    if (n < 1 || limits > 1 || (ce.go_raw && !ce.n_cmds)) {
        if (ce.go_raw && !ce.n_cmds)
            fprintf(stderr, "hayanagi book expand: --go is for external engines (--engine)\n");
        usage(stderr);
        rc = 2;
        goto done;
    }
    rc = run(&eo, &ab, &ce, paths, n, limits, alpha, book_policy, quiet);
done:
    cli_engines_free(&ce);
    free(av);
    return rc;
}

/* The run proper, once the options are read. */
static int run(ExpandOptions *po, AbProviderOptions *pab, CliEngines *ce, const char **paths, int n, int limits,
               long alpha, bool book_policy, bool quiet) {
    ExpandOptions eo = *po;
    AbProviderOptions ab = *pab;
    if (!limits)
        eo.think.depth = SEARCH_DEFAULT_DEPTH;
    const char *out = n == 2 ? paths[1] : paths[0];
    if (!cli_check_output("expand", out))
        return 2;
    /* OUT is the checkpoint after every round and what a rerun resumes from: a stream can be
     * neither (and every round's book would follow the last on it) */
    if (atomic_file_streams(out)) {
        fprintf(stderr,
                "hayanagi book expand: OUT %s is %s, but expand checkpoints the book into OUT after every round and "
                "resumes from it: give a file (then `hayanagi book convert FILE -`)\n",
                out, strcmp(out, "-") ? "a stream (a FIFO or a device)" : "the standard output");
        return 2;
    }
    char state[4096], journal[4096];
    if (!long_job_side_path(out, ".expand-state", state, sizeof state) ||
        !long_job_side_path(out, ".expand-journal", journal, sizeof journal)) {
        fprintf(stderr, "hayanagi book expand: %s: the name is too long for its state and journal\n", out);
        return 1;
    }
    int done = rounds_done(state);
    struct stat sb;
    bool resume = done > 0 && stat(out, &sb) == 0;
    if (resume && !quiet)
        fprintf(stderr, "hayanagi book expand: resuming after round %d from %s\n", done, out);
    Book *b = cli_read_book(resume ? out : paths[0], NULL,
                            &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = quiet}, NULL);
    if (!b)
        return 1;
    if (!resume)
        done = 0;
    eo.rounds -= done;
    PolicyBookProvider pb = {ab_provider(&ab), b, (double)alpha / 100.0};
    eo.provider = book_policy ? policybook_provider(&pb) : ab_provider(&ab);
    Checkpoint cp = {out, state, quiet};
    eo.checkpoint = write_checkpoint;
    eo.ctx = &cp;
    eo.think.journal = journal;
    eo.think.go_raw = ce->go_raw;
    bool none;
    Searcher *pool = cli_engines_pool(ce, quiet, "expand", &none);
    if (!pool && !none) {
        book_free(b);
        return 1;
    }
    eo.think.searcher = pool;
    Progress think_pr = {.out = stderr, .quiet = quiet}, round_pr = {.out = stderr, .quiet = quiet};
    eo.think.progress = &think_pr;
    eo.progress = &round_pr;
    LongJob job;
    long_job_begin(&job);
    eo.stop = interrupt_flag();
    ExpandStats st;
    char err[4096];
    bool ok = eo.rounds <= 0 || book_expand(b, &eo, &st, err, sizeof err);
    searcher_destroy(pool); /* quit every engine before anything else is said */
    long_job_end(&job);
    if (eo.rounds <= 0)
        memset(&st, 0, sizeof st);
    int rc = 0;
    if (!ok) {
        fprintf(stderr, "hayanagi book expand: %s\n", err);
        rc = 1;
    } else if (st.interrupted) {
        rc = long_job_interrupted("hayanagi book expand", "%d rounds; %s and %s keep the work", done + st.rounds_done,
                                  out, journal);
    } else {
        MinimaxOptions mo = {.converge = false, .flipped = false, .threads = eo.think.threads, .progress = NULL};
        MinimaxStats ms;
        BookWriteReport wr;
        Book *mm = b; /* minimax in place: no second copy of the book */
        if (!book_minimax_in_place(mm, &mo, &ms, err, sizeof err)) {
            fprintf(stderr, "hayanagi book expand: minimax: %s\n", err);
            rc = 1;
        } else if (cli_write_book(out, NULL, mm,
                                  &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet}, &wr)) {
            unlink(state);
            unlink(journal);
            fprintf(cli_say_wrote(out, &wr),
                    " after %d rounds (%llu positions thought, %llu moves added); minimax over %llu positions\n",
                    done + st.rounds_done, (unsigned long long)st.thought, (unsigned long long)st.moves_added,
                    (unsigned long long)ms.positions);
        } else
            rc = 1;
    }
    book_free(b);
    return rc;
}
