/* tune_label.c - `hayanagi tune label`: another USI engine's score for every position of a
 * training file, so that the evaluation can be fitted to a stronger teacher's judgement
 * (docs/eval.md, round 4: gpsusi).
 *
 *   hayanagi tune label --engine CMD [--option NAME=VALUE ...] [--go TEXT] [--limit MS]
 *                       [--concurrency N] [--skip-above S] IN OUT
 *
 * IN and OUT hold the lines `tune records` writes: "<result> [<score>] <sfen>". Each
 * position is sent as `position sfen ...` + `go TEXT`; the last `info ... score` before
 * `bestmove` becomes the line's score (from black's side, mates as +-(100000 - plies)).
 * Lines are written in the input's order. A position that gets no score in time is left
 * out; so are lines whose existing score exceeds --skip-above in magnitude (decided
 * positions, on which a teacher spends the longest). Malformed lines are reported as
 * file:line and skipped. Ctrl-C stops the engines and writes the lines finished so far.
 */
#include "tune/tune.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match/engine_proc.h"
#include "match/usi_client.h"
#include "match/match.h"
#include "shogi/position.h"
#include "util/atomic_file.h"
#include "util/cli_opts.h"
#include "util/long_job.h"
#include "util/parse.h"
#include "util/progress.h"

enum {
    LABEL_MAX_OPTIONS = 32,
    LABEL_MAX_THREADS = 64,
    LABEL_NO_SCORE = 1 << 30,
    LABEL_SCORE_CAP = 99000, /* centipawn scores beyond this are clamped (a won position) */
    LABEL_LINE_MAX = 512,
};

typedef struct {
    float result;        /* 1, 0.5 or 0 for black */
    char sfen[SFEN_MAX]; /* canonical, with the move number */
    bool white_to_move;
} LabelItem;

typedef struct {
    const char *cmd, *go;
    EngineOption options[LABEL_MAX_OPTIONS]; /* sent where the teacher declares them */
    int n_options;
    int64_t limit_us;
    LabelItem *items;
    int *score; /* per item, LABEL_NO_SCORE until labelled */
    int n;
    atomic_int next, done, failed;
    const volatile sig_atomic_t *stop;
    pthread_mutex_t lock; /* serialises messages */
    atomic_bool error;    /* a worker could not keep its engine running */
    atomic_bool warned;   /* missing options were reported once */
} LabelShared;

static void say(LabelShared *sh, const char *fmt, const char *a, const char *b) {
    pthread_mutex_lock(&sh->lock);
    fprintf(stderr, fmt, a, b);
    pthread_mutex_unlock(&sh->lock);
}

static void missing_option(void *ctx, const char *name) {
    LabelShared *sh = ctx;
    if (!atomic_exchange(&sh->warned, true))
        say(sh, "warning: %s has no option '%s'; not sent\n", sh->cmd, name);
}

/* Starts the teacher: the handshake with the options it declares, then usinewgame. The
 * reason of a failure is reported unless a Ctrl-C cut the handshake short (that is an
 * interrupt, not a failure). */
static bool start_engine(LabelShared *sh, EngineProc *e) {
    char why[256] = "";
    engine_init(e);
    e->abort_flag = sh->stop;
    UsiClientConfig uc = {.cmd = sh->cmd,
                          .stderr_mode = ENGINE_STDERR_NULL,
                          .options = sh->options,
                          .n_options = sh->n_options,
                          .missing_option = missing_option,
                          .ctx = sh};
    if (usi_client_start(e, &uc, NULL, why, sizeof why) && engine_send(e, "usinewgame"))
        return true;
    if (!*sh->stop)
        say(sh, "hayanagi tune label: %s: %s\n", sh->cmd, why[0] ? why : "engine gone");
    engine_close(e, 200);
    return false;
}

/* The engine's score of its own side, turned into black's view; LABEL_NO_SCORE when the
 * search gave none (or only a bound). */
static int black_view(const UsiGoResult *t, bool white_to_move) {
    if (t->status != USI_GO_BESTMOVE || !t->has_score || t->scored.bound != USI_BOUND_EXACT)
        return LABEL_NO_SCORE;
    int v, s = t->scored.score;
    if (t->scored.score_mate)
        v = s == 0 ? 0 : s > 0 ? 100000 - s : -100000 - s;
    else
        v = s > LABEL_SCORE_CAP ? LABEL_SCORE_CAP : s < -LABEL_SCORE_CAP ? -LABEL_SCORE_CAP : s;
    if (v <= -100000 || v >= 100000)
        v = v > 0 ? 99999 : -99999;
    return white_to_move ? -v : v;
}

static void *label_worker(void *arg) {
    LabelShared *sh = arg;
    EngineProc e;
    if (!start_engine(sh, &e)) {
        if (!*sh->stop) /* a Ctrl-C during the handshake is an interrupt, not a failure */
            sh->error = true;
        return NULL;
    }
    char go[LABEL_LINE_MAX], pos[SFEN_MAX + 16];
    snprintf(go, sizeof go, "go %s", sh->go);
    int restarts = 0;
    while (!*sh->stop) {
        int i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->n)
            break;
        snprintf(pos, sizeof pos, "position sfen %s", sh->items[i].sfen);
        UsiGoResult t;
        UsiGo ask = {.position_line = pos, .go_line = go, .limit_us = sh->limit_us};
        usi_client_go(&e, &ask, &t);
        if (t.status == USI_GO_ABORTED)
            break;
        sh->score[i] = black_view(&t, sh->items[i].white_to_move);
        if (sh->score[i] == LABEL_NO_SCORE)
            atomic_fetch_add(&sh->failed, 1);
        atomic_fetch_add(&sh->done, 1);
        if (t.status == USI_GO_EOF || t.status == USI_GO_JUNK || t.hung) {
            /* A teacher that died or hung is started again, a few times at most. */
            engine_close(&e, 200);
            if (++restarts > 10 || !start_engine(sh, &e)) {
                if (*sh->stop)
                    return NULL;
                say(sh, "hayanagi tune label: %s%s\n", "giving up on the engine after restarts: ", sh->cmd);
                sh->error = true;
                return NULL;
            }
        }
    }
    engine_close(&e, ENGINE_QUIT_WAIT_MS);
    return NULL;
}

/* Reads IN into items; malformed lines are reported and skipped, lines whose score
 * exceeds skip_above are counted and dropped. */
static bool read_items(const char *path, int skip_above, LabelItem **out, int *n_out, int *skipped) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return false;
    }
    LabelItem *items = NULL;
    int n = 0, cap = 0, bad = 0;
    char line[LABEL_LINE_MAX];
    long lineno = 0;
    bool ok = true;
    TuneLine tl;
    while (tune_next_line(f, path, &lineno, line, sizeof line, &tl, &bad)) {
        if (tl.has_score && skip_above >= 0 && (tl.score > skip_above || tl.score < -skip_above)) {
            (*skipped)++;
            continue;
        }
        Position p;
        StateInfo st;
        char err[128];
        if (!position_from_sfen(&p, &st, tl.sfen, err, sizeof err)) {
            fprintf(stderr, "%s:%ld: %s (skipped)\n", path, lineno, err);
            bad++;
            continue;
        }
        if (n == cap) {
            int ncap = cap ? cap * 2 : 4096;
            LabelItem *m = realloc(items, (size_t)ncap * sizeof *m);
            if (!m) {
                fprintf(stderr, "hayanagi tune label: out of memory\n");
                ok = false;
                break;
            }
            items = m;
            cap = ncap;
        }
        items[n].result = tl.result;
        position_to_sfen(&p, items[n].sfen, true);
        items[n].white_to_move = p.side == WHITE;
        n++;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        ok = false;
    }
    fclose(f);
    if (bad)
        fprintf(stderr, "tune label: %d malformed line(s) in %s skipped\n", bad, path);
    if (!ok) {
        free(items);
        return false;
    }
    *out = items;
    *n_out = n;
    return true;
}

static bool write_labelled(const char *path, const LabelShared *sh, int *written) {
    char err[512];
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, sizeof err)) {
        fprintf(stderr, "hayanagi tune label: %s\n", err);
        return false;
    }
    *written = 0;
    for (int i = 0; i < sh->n; i++) {
        if (sh->score[i] == LABEL_NO_SCORE)
            continue;
        fprintf(af.f, "%g %d %s\n", sh->items[i].result, sh->score[i], sh->items[i].sfen);
        (*written)++;
    }
    if (!atomic_file_commit(&af, err, sizeof err)) {
        fprintf(stderr, "hayanagi tune label: %s\n", err);
        return false;
    }
    return true;
}

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi tune label --engine CMD [--option NAME=VALUE ...] [--go TEXT] [--limit MS]\n"
               "                           [--concurrency N] [--skip-above S] IN OUT\n"
               "Scores every position of IN (tune generate or records) with the USI engine CMD into OUT.\n"
               "  --engine CMD     the teacher's command line\n"
               "  --option N=V     setoption for the teacher (repeatable)\n"
               "  --go TEXT        what follows `go` (default \"btime 0 wtime 0 byoyomi 1000\")\n"
               "  --limit MS       give up on a position after MS (default 10000)\n"
               "  --concurrency N  teachers run at once (default 1)\n"
               "  --skip-above S   leave out lines whose score is beyond +-S (default: keep all)\n");
}

int tune_label_main(int argc, char **argv) {
    static const char prog[] = "hayanagi tune label";
    static const struct option longopts[] = {{"engine", required_argument, NULL, 'e'},
                                             {"go", required_argument, NULL, 'g'},
                                             {"limit", required_argument, NULL, 'l'},
                                             {"concurrency", required_argument, NULL, 'c'},
                                             {"skip-above", required_argument, NULL, 's'},
                                             {"option", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    LabelShared sh;
    memset(&sh, 0, sizeof sh);
    sh.go = "btime 0 wtime 0 byoyomi 1000";
    long limit_ms = 10000, threads = 1, skip_above = -1;
    const char *in = NULL, *out = NULL;
    char *opt_copy[LABEL_MAX_OPTIONS] = {0};
    int status = 1, c;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        goto done;
    status = -1;
    while (status < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'e': sh.cmd = optarg; break;
        case 'g': sh.go = optarg; break;
        case 'l':
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 3600000, &limit_ms))
                status = CLI_USAGE_ERROR;
            break;
        case 'c':
            if (!cli_opts_int(prog, longopts, c, optarg, 1, LABEL_MAX_THREADS, &threads))
                status = CLI_USAGE_ERROR;
            break;
        case 's':
            if (!cli_opts_int(prog, longopts, c, optarg, 0, 1000000, &skip_above))
                status = CLI_USAGE_ERROR;
            break;
        case 'o': {
            const char *why;
            if (sh.n_options == LABEL_MAX_OPTIONS) {
                fprintf(stderr, "%s: at most %d --option\n", prog, LABEL_MAX_OPTIONS);
                status = CLI_USAGE_ERROR;
            } else if (!engine_option_from_arg(optarg, &sh.options[sh.n_options], &opt_copy[sh.n_options], &why)) {
                fprintf(stderr, "hayanagi tune label: --option %s\n", why);
                status = CLI_USAGE_ERROR;
            } else
                sh.n_options++;
            break;
        }
        case 'h':
            usage(stdout);
            status = 0;
            break;
        default: status = cli_opts_unknown(prog); break;
        }
    }
    if (status < 0 && argc - optind == 2)
        in = av[optind], out = av[optind + 1];
    else if (status < 0 && argc - optind > 2)
        fprintf(stderr, "hayanagi tune label: bad argument '%s'\n", av[optind + 2]);
    free(av);
    if (status >= 0)
        goto done;
    status = 1;
    if (!sh.cmd || !in || !out || strlen(sh.go) > LABEL_LINE_MAX - 8) {
        usage(stderr);
        status = CLI_USAGE_ERROR;
        goto done;
    }
    int skipped = 0;
    if (!read_items(in, (int)skip_above, &sh.items, &sh.n, &skipped))
        goto done;
    sh.score = malloc((size_t)(sh.n ? sh.n : 1) * sizeof *sh.score);
    if (!sh.score) {
        fprintf(stderr, "hayanagi tune label: out of memory\n");
        goto done;
    }
    for (int i = 0; i < sh.n; i++)
        sh.score[i] = LABEL_NO_SCORE;
    sh.limit_us = limit_ms * 1000;
    sh.stop = interrupt_flag(); /* set by Ctrl-C: workers finish their position and stop */
    pthread_mutex_init(&sh.lock, NULL);

    /* Ctrl-C (or SIGTERM) stops cleanly, a second one ends the process at once; a dead
     * engine shows up as a failed write (util/long_job.h). */
    LongJob job;
    long_job_begin(&job);
    char skip_text[64] = "";
    if (skip_above >= 0)
        snprintf(skip_text, sizeof skip_text, " (%d more beyond +-%ld left out)", skipped, skip_above);
    fprintf(stderr, "tune label: %d positions from %s%s, %ld engine(s): %s, go %s\n", sh.n, in, skip_text, threads,
            sh.cmd, sh.go);

    pthread_t tid[LABEL_MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, label_worker, &sh) != 0) {
            fprintf(stderr, "hayanagi tune label: cannot start a thread\n");
            sh.error = true; /* the loop below then waits for nothing */
            break;
        }
        started++;
    }
    Progress pr;
    progress_start(&pr, stderr, "labelling", (uint64_t)sh.n, false);
    while (atomic_load(&sh.done) < sh.n && !interrupt_requested() && !sh.error) {
        progress_update(&pr, (uint64_t)atomic_load(&sh.done));
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (sh.error)
        *interrupt_flag() = 1; /* the other workers stop too */
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    progress_update(&pr, (uint64_t)atomic_load(&sh.done));
    progress_finish(&pr);
    long_job_end(&job);

    bool interrupted = atomic_load(&sh.done) < sh.n;
    int written = 0;
    /* After a failure or a Ctrl-C the finished lines are still worth keeping, but a run
     * that labelled nothing leaves OUT as it was. */
    bool nothing = atomic_load(&sh.done) == 0 && (sh.error || interrupted);
    if (nothing && !sh.error) {
        fprintf(stderr, "tune label: interrupted before any position was labelled; %s not written\n", out);
        status = INTERRUPT_EXIT_STATUS;
    } else if (!nothing && write_labelled(out, &sh, &written)) {
        fprintf(stderr, "tune label: wrote %d positions to %s (%d without a score left out%s)\n", written, out,
                atomic_load(&sh.failed), interrupted ? "; interrupted before the end" : "");
        status = sh.error ? 1 : interrupted ? INTERRUPT_EXIT_STATUS : 0;
    }
    pthread_mutex_destroy(&sh.lock);
done:
    free(sh.items);
    free(sh.score);
    for (int k = 0; k < sh.n_options; k++)
        free(opt_copy[k]);
    return status;
}
