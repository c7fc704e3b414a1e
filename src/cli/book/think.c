/* think.c - `hayanagi book think` (bookgen/think.h): search the short positions
 * and leaves of a book with the in-process search or a pool of external USI engines. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookgen/think.h"
#include "cli/book/engines.h"
#include "util/cli_opts.h"
#include "cli/book/io.h"
#include "cli/book/verbs.h"
#include "match/openings.h"
#include "shogi/game.h"
#include "util/atomic_file.h"
#include "util/long_job.h"

/* The start positions of `think --startmoves`: keys and plies, grown one at a time. */
typedef struct {
    BookKey *keys;
    int *plies;
    size_t n;
} Starts;

/* Adds the position of one USI position argument ("startpos moves ...", "sfen ...", with
 * or without "position "); false with the reason in err. */
static bool starts_add(Starts *s, const char *line, const char *where, char *err, size_t err_len) {
    char *norm = NULL, why[256];
    OpeningParse r = opening_parse_line(line, &norm, why, sizeof why);
    if (r != OPENING_OK) {
        snprintf(err, err_len, "%s: %s", where, r == OPENING_SKIP ? "no position" : why);
        free(norm);
        return false;
    }
    Game g;
    game_init(&g);
    bool ok = game_set_from_usi(&g, norm, why, sizeof why);
    free(norm);
    if (!ok)
        snprintf(err, err_len, "%s: %s", where, why);
    BookKey *k = ok ? realloc(s->keys, (s->n + 1) * sizeof *k) : NULL;
    if (k)
        s->keys = k;
    int *p = k ? realloc(s->plies, (s->n + 1) * sizeof *p) : NULL;
    if (p) {
        s->plies = p;
        book_key_from_position(&g.pos, &s->keys[s->n]);
        s->plies[s->n++] = g.pos.ply;
    } else if (ok) {
        snprintf(err, err_len, "out of memory");
        ok = false;
    }
    game_free(&g);
    return ok;
}

static bool starts_add_file(Starts *s, const char *path, char *err, size_t err_len) {
    Openings o = {0};
    if (!openings_load(&o, path, err, err_len))
        return false;
    bool ok = true;
    for (int i = 0; i < o.n && ok; i++)
        ok = starts_add(s, o.lines[i], path, err, err_len);
    openings_free(&o);
    return ok;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: hayanagi book think IN OUT (--depth D | --nodes N | --movetime MS | --go ARGS) --multipv K\n"
            "         [--multipv-margin CP [--multipv-max M]] [--threads T] [--hash MB]\n"
            "         [--engine CMD]... [--engine-file FILE] [--engine-option NAME=VALUE]... [--engine-timeout MS]\n"
            "         [--engine-startup MS] [--engine-newgame]\n"
            "         [--frontier leaves|replies|eval-window|line-replies|predicted [--eval-diff CP]\n"
            "         [--frontier-side root|black|white|both] [--predict K] [--predict-depth D]\n"
            "         [--all-replies-to P2] [--predictions FILE]]\n"
            "         [--max-ply P] [--max-positions N] [--rethink-if COND]... [--startmoves LINE]...\n"
            "         [--startmoves-file FILE] [--journal FILE] [--quiet]\n"
            "Without --engine the search runs in this process (--threads workers). Each --engine CMD is one\n"
            "external USI engine process (run through /bin/sh -c when it holds shell syntax, e.g. ssh).\n"
            "--go passes raw go arguments (external engines only). COND is FIELD OP VALUE with FIELD\n"
            "engine|depth|nodes|date, e.g. \"engine!=YaneuraOu\" or \"depth<20\". --engine-startup: the\n"
            "wait for usiok and for readyok (60000; --engine-timeout is the search's). --engine-newgame: isready\n"
            "and usinewgame before every position, so engines that clear their hash there answer\n"
            "independently of order and split.\n"
            "--frontier predicted follows the frontier side's lines past the book through the other side's\n"
            "listed moves, the moves the book answers and the K moves (%d) Hayanagi's search to depth D (%d)\n"
            "ranks first (up to SFEN move P2: every legal move); it answers the frontier side's positions\n"
            "there, one level more each run. --predictions FILE keeps the predictions for the next run.\n"
            "The run checkpoints into OUT.journal (--journal FILE: there instead; needed when OUT is -, a FIFO\n"
            "or a device, which have no place for one); run the same command again to resume. OUT.sbk writes\n"
            "SBK.\n",
            THINK_PREDICT_DEFAULT, THINK_PREDICT_DEPTH_DEFAULT);
}

/* --frontier's values, indexed by ThinkFrontier */
static const char *const frontier_names[THINK_FRONTIER_COUNT] = {
    [THINK_FRONTIER_LEAVES] = "leaves",       [THINK_FRONTIER_EVAL_WINDOW] = "eval-window",
    [THINK_FRONTIER_REPLIES] = "replies",     [THINK_FRONTIER_LINE_REPLIES] = "line-replies",
    [THINK_FRONTIER_PREDICTED] = "predicted",
};

enum {
    OPT_DEPTH = 2000,
    OPT_NODES,
    OPT_MOVETIME,
    OPT_MULTIPV,
    OPT_THREADS,
    OPT_HASH,
    OPT_MAXPOS,
    OPT_MAXPLY,
    OPT_FRONTIER,
    OPT_EVALDIFF,
    OPT_FSIDE,
    OPT_PREDICT,
    OPT_PREDICT_DEPTH,
    OPT_ALL_REPLIES,
    OPT_PREDICTIONS,
    OPT_RETHINK,
    OPT_START,
    OPT_STARTFILE,
    OPT_QUIET,
    OPT_JOURNAL,
    OPT_HELP
};

/* The journal's record of the options that change results (think_journal.h): every option
 * given, as --name=value, sorted, except those that change only how the run goes (--quiet,
 * --max-positions, --threads, the engines' timeouts, --journal), so that rerunning with
 * them changed still resumes. */
typedef struct {
    char *text;
    size_t len, cap;
    char **items;
    size_t n;
} OptionsText;

static bool options_add(OptionsText *t, const struct option *longopts, int c, const char *arg) {
    static const char *const skip[] = {"quiet",          "max-positions", "threads",    "engine-timeout",
                                       "engine-startup", "journal",       "predictions"};
    const char *name = NULL;
    for (const struct option *o = longopts; o->name && !name; o++)
        if (o->val == c)
            name = o->name;
    if (!name)
        return true;
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (!strcmp(name, skip[i]))
            return true;
    char **items = realloc(t->items, (t->n + 1) * sizeof *items);
    if (!items)
        return false;
    t->items = items;
    size_t len = strlen(name) + (arg ? strlen(arg) : 0) + 4;
    if (!(t->items[t->n] = malloc(len)))
        return false;
    snprintf(t->items[t->n++], len, "--%s%s%s", name, arg ? "=" : "", arg ? arg : "");
    return true;
}

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Joins the items sorted into t->text (control bytes as '?': the header is one line). */
static bool options_join(OptionsText *t) {
    qsort(t->items, t->n, sizeof *t->items, cmp_text);
    size_t len = 1;
    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->items[i]) + 1;
    if (!(t->text = malloc(len)))
        return false;
    t->text[0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            strcat(t->text, " ");
        strcat(t->text, t->items[i]);
    }
    for (char *p = t->text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return true;
}

static void options_free(OptionsText *t) {
    for (size_t i = 0; i < t->n; i++)
        free(t->items[i]);
    free(t->items);
    free(t->text);
}

/* Whether a and b name one file: the same text, or the same existing inode. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return !strcmp(a, b) ||
           (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

int book_verb_think(int argc, char **argv) {
    ThinkOptions to = {.multipv = 0, .threads = 1, .hash_mb = 16, .frontier_side = THINK_SIDE_ROOT};
    CliEngines ce;
    memset(&ce, 0, sizeof ce);
    ThinkRethink *rethink = NULL;
    size_t n_rethink = 0;
    bool quiet = false;
    int limits = 0, rc = 0;
    long v = 0;
    Starts starts = {0};
    Searcher *pool = NULL;
    OptionsText otext = {0};
    ThinkJournal *held = NULL;
    const char *journal_opt = NULL;
    static const struct option longopts[] = {CLI_ENGINE_LONGOPTS,
                                             {"depth", required_argument, NULL, OPT_DEPTH},
                                             {"nodes", required_argument, NULL, OPT_NODES},
                                             {"movetime", required_argument, NULL, OPT_MOVETIME},
                                             {"multipv", required_argument, NULL, OPT_MULTIPV},
                                             {"threads", required_argument, NULL, OPT_THREADS},
                                             {"hash", required_argument, NULL, OPT_HASH},
                                             {"max-positions", required_argument, NULL, OPT_MAXPOS},
                                             {"max-ply", required_argument, NULL, OPT_MAXPLY},
                                             {"frontier", required_argument, NULL, OPT_FRONTIER},
                                             {"eval-diff", required_argument, NULL, OPT_EVALDIFF},
                                             {"frontier-side", required_argument, NULL, OPT_FSIDE},
                                             {"predict", required_argument, NULL, OPT_PREDICT},
                                             {"predict-depth", required_argument, NULL, OPT_PREDICT_DEPTH},
                                             {"all-replies-to", required_argument, NULL, OPT_ALL_REPLIES},
                                             {"predictions", required_argument, NULL, OPT_PREDICTIONS},
                                             {"rethink-if", required_argument, NULL, OPT_RETHINK},
                                             {"startmoves", required_argument, NULL, OPT_START},
                                             {"startmoves-file", required_argument, NULL, OPT_STARTFILE},
                                             {"quiet", no_argument, NULL, OPT_QUIET},
                                             {"journal", required_argument, NULL, OPT_JOURNAL},
                                             {"help", no_argument, NULL, OPT_HELP},
                                             {NULL, 0, NULL, 0}};
    char **av = cli_opts_begin("hayanagi book think", argc, argv);
    if (!av)
        return 1;
    int ac = argc, c;
    bool eval_diff_set = false, predict_set = false;
    while ((c = getopt_long(ac, av, "", longopts, NULL)) != -1) {
        bool ok = true;
        char serr[512];
        if (!options_add(&otext, longopts, c, optarg)) {
            fprintf(stderr, "hayanagi book think: out of memory\n");
            rc = 1;
            goto done;
        }
        switch (c) {
        case OPT_DEPTH: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 200, &v), to.depth = (int)v, limits++; break;
        case OPT_NODES:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 2000000000L, &v), to.nodes = (uint64_t)v, limits++;
            break;
        case OPT_MOVETIME:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000000L, &v), to.movetime = v, limits++;
            break;
        case OPT_GO:
            limits++;
            if (!cli_engines_option(&ce, c, optarg, "think")) { /* it said why, with the hint */
                rc = CLI_USAGE_ERROR;
                goto done;
            }
            break;
        case OPT_MULTIPV:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, SEARCHER_MAX_PV, &v), to.multipv = (int)v;
            break;
        case OPT_THREADS: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 128, &v), to.threads = (int)v; break;
        case OPT_HASH: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 65536, &v), to.hash_mb = (size_t)v; break;
        case OPT_MAXPOS:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 2000000000L, &v), to.max_positions = (uint64_t)v;
            break;
        case OPT_MAXPLY: ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000, &v), to.max_ply = (int)v; break;
        case OPT_FRONTIER: {
            int i = 0;
            ok = cli_opts_keyword(av[0], longopts, c, optarg, frontier_names, THINK_FRONTIER_COUNT,
                                  "leaves, replies, eval-window, line-replies or predicted", &i);
            to.frontier = (ThinkFrontier)i;
            break;
        }
        case OPT_EVALDIFF:
            ok = cli_opts_int(av[0], longopts, c, optarg, 0, 100000, &v), to.eval_diff = (int)v, eval_diff_set = true;
            break;
        case OPT_FSIDE: {
            /* indexed by ThinkFrontierSide + 1 (THINK_SIDE_ROOT is -1) */
            static const char *const sides[] = {"root", "black", "white", "both"};
            int i = 0;
            ok = cli_opts_keyword(av[0], longopts, c, optarg, sides, 4, "root, black, white or both", &i);
            to.frontier_side = (ThinkFrontierSide)(i - 1);
            break;
        }
        case OPT_PREDICT:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, SEARCHER_MAX_PV, &v), to.predict = (int)v;
            predict_set = true;
            break;
        case OPT_PREDICT_DEPTH:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100, &v), to.predict_depth = (int)v;
            predict_set = true;
            break;
        case OPT_ALL_REPLIES:
            ok = cli_opts_int(av[0], longopts, c, optarg, 1, 100000, &v), to.all_replies_to = (int)v;
            predict_set = true;
            break;
        case OPT_PREDICTIONS:
            to.predictions = optarg;
            predict_set = true;
            break;
        case OPT_RETHINK: {
            ThinkRethink *r = realloc(rethink, (n_rethink + 1) * sizeof *r);
            if (!r) {
                fprintf(stderr, "hayanagi book think: out of memory\n");
                rc = 1;
                goto done;
            }
            rethink = r;
            if (!think_rethink_parse(optarg, &rethink[n_rethink], serr, sizeof serr)) {
                fprintf(stderr, "hayanagi book think: %s\n", serr);
                rc = 2;
                goto done;
            }
            n_rethink++;
            break;
        }
        case OPT_START:
        case OPT_STARTFILE:
            if (!(c == OPT_STARTFILE ? starts_add_file(&starts, optarg, serr, sizeof serr)
                                     : starts_add(&starts, optarg, "--startmoves", serr, sizeof serr))) {
                fprintf(stderr, "hayanagi book think: %s\n", serr);
                rc = 2;
                goto done;
            }
            break;
        case OPT_QUIET: quiet = true; break;
        case OPT_JOURNAL: journal_opt = optarg; break;
        case OPT_HELP: usage(stdout); goto done;
        case '?': ok = false; break;
        default:
            if (!cli_engines_option(&ce, c, optarg, "think")) { /* it said why, with the hint */
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
    bool predicted = to.frontier == THINK_FRONTIER_PREDICTED;
    bool walks = to.frontier == THINK_FRONTIER_EVAL_WINDOW || to.frontier == THINK_FRONTIER_LINE_REPLIES || predicted;
    bool all_replies = to.frontier == THINK_FRONTIER_REPLIES || to.frontier == THINK_FRONTIER_LINE_REPLIES || predicted;
    if (ac - optind != 2 || limits != 1 || !to.multipv || (ce.go_raw && !ce.n_cmds) || (walks && !eval_diff_set) ||
        (all_replies && !to.max_ply) || (ce.multipv_max && !ce.multipv_margin) || (predict_set && !predicted)) {
        if (ce.go_raw && !ce.n_cmds)
            fprintf(stderr, "hayanagi book think: --go is for external engines (--engine)\n");
        if (predict_set && !predicted)
            fprintf(stderr,
                    "hayanagi book think: --predict, --predict-depth, --all-replies-to and --predictions are for "
                    "--frontier predicted\n");
        if (walks && !eval_diff_set)
            fprintf(stderr, "hayanagi book think: --frontier %s needs --eval-diff CP\n", frontier_names[to.frontier]);
        if (all_replies && !to.max_ply)
            fprintf(stderr,
                    "hayanagi book think: --frontier %s needs --max-ply P (a book's children are some "
                    "80 times its size)\n",
                    frontier_names[to.frontier]);
        usage(stderr);
        rc = 2;
        goto done;
    }
    const char *in = av[optind], *outp = av[optind + 1];
    if (!cli_check_output("think", outp)) {
        rc = 2;
        goto done;
    }
    /* OUT.journal beside a stream would be "-.journal" in the working directory or a file in
     * /dev: a journal a later run could not be expected to find, so it must be named */
    if (!journal_opt && atomic_file_streams(outp)) {
        fprintf(stderr,
                "hayanagi book think: OUT %s is %s, which has no place for the checkpoint journal "
                "(OUT.journal): give --journal FILE\n",
                outp, strcmp(outp, "-") ? "a stream (a FIFO or a device)" : "the standard output");
        rc = 2;
        goto done;
    }
    if (journal_opt && (same_file(journal_opt, in) || same_file(journal_opt, outp))) {
        fprintf(stderr, "hayanagi book think: --journal %s names IN or OUT: the journal is removed at the end\n",
                journal_opt);
        rc = 2;
        goto done;
    }
    to.go_raw = ce.go_raw;
    to.multipv_margin = ce.multipv_margin;
    to.multipv_max = ce.multipv_max ? ce.multipv_max : ce.multipv_margin ? SEARCHER_MAX_PV : to.multipv;
    to.rethink = rethink;
    to.n_rethink = n_rethink;
    to.starts = starts.keys;
    to.start_plies = starts.plies;
    to.n_starts = starts.n;
    Book *b = cli_read_book(in, NULL, &(BookReadOptions){.keep_comments = true, .log = stderr, .quiet = quiet}, NULL);
    if (!b) {
        rc = 1;
        goto done;
    }
    bool none;
    pool = cli_engines_pool(&ce, quiet, "think", &none);
    if (!pool && !none) {
        book_free(b);
        rc = 1;
        goto done;
    }
    to.searcher = pool;
    char journal[4096];
    if (!long_job_side_path(journal_opt ? journal_opt : outp, journal_opt ? "" : ".journal", journal, sizeof journal)) {
        fprintf(stderr, "hayanagi book think: %s: the name is too long for its journal\n", outp);
        book_free(b);
        rc = 1;
        goto done;
    }
    to.journal = journal;
    to.input_name = in;
    if (!options_join(&otext)) {
        book_free(b);
        rc = 1;
        goto done;
    }
    to.journal_options = otext.text;
    to.keep_journal = &held;
    Progress pr = {.out = stderr, .quiet = quiet};
    to.progress = &pr;
    LongJob job;
    long_job_begin(&job);
    to.stop = interrupt_flag();
    ThinkStats ts;
    BookWriteReport wr;
    char err[4096];
    bool ok = book_think(b, &to, &ts, err, sizeof err);
    searcher_destroy(pool); /* quit every engine before anything else is said */
    pool = NULL;
    long_job_end(&job);
    if (!ok) {
        fprintf(stderr, "hayanagi book think: %s\n", err);
        rc = 1;
    } else if (ts.interrupted) {
        if (to.predictions)
            rc = long_job_interrupted("hayanagi book think", "%llu positions; %s keeps them, %s %llu predictions",
                                      (unsigned long long)(ts.resumed + ts.searched), journal, to.predictions,
                                      (unsigned long long)(ts.predictions_read + ts.predictions_searched));
        else
            rc = long_job_interrupted("hayanagi book think", "%llu positions; %s keeps them",
                                      (unsigned long long)(ts.resumed + ts.searched), journal);
    } else if (cli_write_book(outp, NULL, b, &(BookWriteOptions){.write_comments = true, .log = stderr, .quiet = quiet},
                              &wr)) {
        unlink(journal); /* still locked: no other run on OUT starts from it meanwhile */
        FILE *say = cli_say_wrote(outp, &wr);
        fprintf(say, "; %llu positions needed a search (%llu done before, %llu searched now, %llu moves added)",
                (unsigned long long)ts.targets, (unsigned long long)ts.resumed, (unsigned long long)ts.searched,
                (unsigned long long)ts.moves_added);
        if (ts.retries || ts.warnings)
            fprintf(say, "; %llu positions re-queued after engine failures, %llu bad engine lines ignored",
                    (unsigned long long)ts.retries, (unsigned long long)ts.warnings);
        if (to.frontier == THINK_FRONTIER_PREDICTED)
            fprintf(say, "; predictions: %llu positions searched, %llu read from %s",
                    (unsigned long long)ts.predictions_searched, (unsigned long long)ts.predictions_read,
                    to.predictions ? to.predictions : "no file");
        if (ts.skipped)
            fprintf(say, "; %llu positions skipped (engines failed on each %d times; run again to retry them)",
                    (unsigned long long)ts.skipped, THINK_POSITION_FAILS);
        fprintf(say, "\n");
        if (ts.unscored)
            fprintf(stderr,
                    "hayanagi book think: %llu positions were answered with a bare bestmove and no score: is the "
                    "engine's own book on? (USI_OwnBook=false, BookFile=no_book)\n",
                    (unsigned long long)ts.unscored);
    } else
        rc = 1;
    book_free(b);
    think_journal_close(held);
    held = NULL;
done:
    think_journal_close(held);
    options_free(&otext);
    searcher_destroy(pool);
    cli_engines_free(&ce);
    free(rethink);
    free(starts.keys);
    free(starts.plies);
    free(av);
    return rc;
}
