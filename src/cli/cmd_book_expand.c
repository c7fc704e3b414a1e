/* cmd_book_expand.c - `hayanagi book expand`: PV-MCTS book expansion (book/expand.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookgen/expand.h"
#include "bookgen/minimax.h"
#include "cli/commands.h"
#include "usi/policybook.h"
#include "mcts/provider_ab.h"
#include "util/atomic_file.h"
#include "util/interrupt.h"

typedef struct {
    const char *out;
    const char *state;
    bool quiet;
} Checkpoint;

/* After a round: the book, then the state file naming the round, both atomically. */
static bool write_checkpoint(void *ctx, const Book *b, int round) {
    Checkpoint *c = ctx;
    if (!cli_write_book(c->out, b, c->quiet))
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

static void usage(void) {
    fprintf(stderr,
            "usage: hayanagi book expand IN [OUT] [--playouts P] [--top N] [--min-candidates K] [--rounds R]\n"
            "       [--extra-starts M] [--depth D | --nodes N | --movetime MS] [--threads T] [--mcts-threads T]\n"
            "       [--tree-mb MB] [--hash MB] [--alpha PERCENT] [--no-book-policy] [--temperature CP]\n"
            "       [--sfen SFEN] [--quiet]\n"
            "Defaults: 200000 playouts, top 1000, 4 candidates, 1 round, depth 8, OUT = IN. The run checkpoints\n"
            "into OUT after every round and OUT.expand-journal within one; run the same command to resume.\n");
}

int cmd_book_expand(int argc, char **argv) {
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
    long v;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if (!strcmp(a, "--playouts") && has && cli_parse_int(argv[i + 1], 1, 2000000000L, &v))
            eo.playouts = (uint64_t)v, i++;
        else if (!strcmp(a, "--top") && has && cli_parse_int(argv[i + 1], 1, 100000000L, &v))
            eo.top = (size_t)v, i++;
        else if (!strcmp(a, "--min-candidates") && has && cli_parse_int(argv[i + 1], 1, 1000, &v))
            eo.min_candidates = (int)v, i++;
        else if (!strcmp(a, "--rounds") && has && cli_parse_int(argv[i + 1], 1, 1000000, &v))
            eo.rounds = (int)v, i++;
        else if (!strcmp(a, "--extra-starts") && has && cli_parse_int(argv[i + 1], 0, 10000, &v))
            eo.extra_starts = (int)v, i++;
        else if (!strcmp(a, "--depth") && has && cli_parse_int(argv[i + 1], 1, 200, &v))
            eo.think.depth = (int)v, i++, limits++;
        else if (!strcmp(a, "--nodes") && has && cli_parse_int(argv[i + 1], 1, 2000000000L, &v))
            eo.think.nodes = (uint64_t)v, i++, limits++;
        else if (!strcmp(a, "--movetime") && has && cli_parse_int(argv[i + 1], 1, 100000000L, &v))
            eo.think.movetime = v, i++, limits++;
        else if (!strcmp(a, "--threads") && has && cli_parse_int(argv[i + 1], 1, 128, &v))
            eo.think.threads = (int)v, i++;
        else if (!strcmp(a, "--mcts-threads") && has && cli_parse_int(argv[i + 1], 1, 128, &v))
            eo.mcts.threads = (int)v, i++;
        else if (!strcmp(a, "--tree-mb") && has && cli_parse_int(argv[i + 1], 1, 1000000, &v))
            eo.mcts.tree_mb = (size_t)v, i++;
        else if (!strcmp(a, "--hash") && has && cli_parse_int(argv[i + 1], 1, 65536, &v))
            eo.think.hash_mb = (size_t)v, i++;
        else if (!strcmp(a, "--alpha") && has && cli_parse_int(argv[i + 1], 0, 100, &v))
            alpha = v, i++;
        else if (!strcmp(a, "--temperature") && has && cli_parse_int(argv[i + 1], 1, 100000, &v))
            ab.temperature_cp = (double)v, i++;
        else if (!strcmp(a, "--sfen") && has)
            eo.root_sfen = argv[++i];
        else if (!strcmp(a, "--no-book-policy"))
            book_policy = false;
        else if (!strcmp(a, "--quiet"))
            quiet = true;
        else if (!strncmp(a, "--", 2) || n == 2) {
            fprintf(stderr, "hayanagi book expand: bad argument %s\n", a);
            usage();
            return 2;
        } else
            paths[n++] = a;
    }
    if (n < 1 || limits > 1) {
        usage();
        return 2;
    }
    if (!limits)
        eo.think.depth = 8;
    const char *out = n == 2 ? paths[1] : paths[0];
    if (!cli_check_output("expand", out))
        return 2;
    char state[4096], journal[4096];
    snprintf(state, sizeof state, "%s.expand-state", out);
    snprintf(journal, sizeof journal, "%s.expand-journal", out);
    int done = rounds_done(state);
    struct stat sb;
    bool resume = done > 0 && stat(out, &sb) == 0;
    if (resume && !quiet)
        fprintf(stderr, "hayanagi book expand: resuming after round %d from %s\n", done, out);
    Book *b = cli_read_book(resume ? out : paths[0], quiet);
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
    Progress think_pr, round_pr;
    think_pr.out = round_pr.out = stderr;
    think_pr.quiet = round_pr.quiet = quiet;
    eo.think.progress = &think_pr;
    eo.progress = &round_pr;
    InterruptScope scope;
    interrupt_begin(&scope, NULL);
    eo.stop = interrupt_flag();
    ExpandStats st;
    char err[512];
    bool ok = eo.rounds <= 0 || book_expand(b, &eo, &st, err, sizeof err);
    if (eo.rounds <= 0)
        memset(&st, 0, sizeof st);
    interrupt_end(&scope);
    int rc = 0;
    if (!ok) {
        fprintf(stderr, "hayanagi book expand: %s\n", err);
        rc = 1;
    } else if (st.interrupted) {
        fprintf(stderr,
                "hayanagi book expand: interrupted after %d rounds; %s and %s keep the work, run the same "
                "command again to resume\n",
                done + st.rounds_done, out, journal);
        rc = 130;
    } else {
        MinimaxOptions mo = {.converge = false, .flipped = false, .threads = eo.think.threads, .progress = NULL};
        MinimaxStats ms;
        Book *mm = b; /* minimax in place: no second copy of the book */
        if (!book_minimax_in_place(mm, &mo, &ms, err, sizeof err)) {
            fprintf(stderr, "hayanagi book expand: minimax: %s\n", err);
            rc = 1;
        } else if (cli_write_book(out, mm, quiet)) {
            unlink(state);
            unlink(journal);
            printf("wrote %s: %zu positions, %zu moves after %d rounds (%llu positions thought, %llu moves "
                   "added); minimax over %llu positions\n",
                   out, book_position_count(mm), book_move_count(mm), done + st.rounds_done,
                   (unsigned long long)st.thought, (unsigned long long)st.moves_added,
                   (unsigned long long)ms.positions);
        } else
            rc = 1;
    }
    book_free(b);
    return rc;
}
