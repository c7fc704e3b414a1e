/* tune.c - training data for the embedded evaluation (the fit is in tune_fit.c).
 *
 *   hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S]
 *                          [--adjudicate V] [--max-score V] OUT
 *       plays N games against itself at K nodes a move (after a few random opening
 *       moves) and writes one line per quiet position: "<result> <sfen>", result being
 *       1, 0.5 or 0 for black. A game ends when one side is V ahead for eight plies; only
 *       positions the search scores within +-V (--max-score) are kept. Ctrl-C stops after
 *       the games in progress are abandoned and writes the finished games' positions.
 *   hayanagi tune records [--scores-of NAME] FILES... OUT
 *       the same kind of data from game records (CSA, KIF, KI2, USI) of finished games,
 *       for instance a stronger engine's games played with `hayanagi match`; from the
 *       CSA records `hayanagi match` writes, each line also carries the engine's score
 *       of the position: "<result> <score> <sfen>" (score from black's side). With
 *       --scores-of, only the scores of the player whose name contains NAME are kept
 *       (a teacher's scores from its games against us; our own positions stay unscored).
 *   hayanagi tune openings [--count N] [--plies A-B] [--nodes K] [--max-score V] [--seed S] OUT
 *       random balanced openings for matches and data generation.
 *   hayanagi tune fit ...
 *       see tune_fit.c.
 *   hayanagi tune label --engine CMD ... IN OUT
 *       another engine's scores for the positions of IN; see tune_label.c.
 */
#include "tune/tune.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/classic.h"
#include "record/reader.h"
#include "search/search.h"
#include "shogi/notation.h"
#include "util/atomic_file.h"
#include "util/cli_opts.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/progress.h"
#include "util/random.h"
#include "match/openings_gen.h"
#include "util/error.h"

_Static_assert(sizeof(ClassicWeights) == CLASSIC_WEIGHT_COUNT * sizeof(int), "ClassicWeights must be all ints");

TuneLineStatus tune_parse_line(char *line, TuneLine *out, char *err, size_t err_len) {
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[strspn(line, " \t")] || line[0] == '#')
        return TUNE_LINE_BLANK;
    char *sp = strchr(line, ' ');
    if (!sp) {
        error_set(err, err_len, "expected \"<result> [<score>] <sfen>\"");
        return TUNE_LINE_BAD;
    }
    *sp = '\0';
    char *end;
    double r = strtod(line, &end);
    if (end == line || *end || !(r == 0 || r == 0.5 || r == 1)) {
        error_set(err, err_len, "result must be 1, 0.5 or 0");
        return TUNE_LINE_BAD;
    }
    out->result = (float)r;
    out->has_score = false;
    out->score = 0;
    out->sfen = sp + 1;
    /* An SFEN never starts with a number followed by a blank (its board does not). */
    long v = strtol(sp + 1, &end, 10);
    if (end != sp + 1 && *end == ' ') {
        if (v <= -100000 || v >= 100000) {
            error_set(err, err_len, "score %ld out of range (|score| < 100000)", v);
            return TUNE_LINE_BAD;
        }
        out->has_score = true;
        out->score = (int)v;
        out->sfen = end + 1;
    }
    return TUNE_LINE_OK;
}

bool tune_next_line(FILE *f, const char *path, long *lineno, char *buf, size_t cap, TuneLine *out, int *bad) {
    while (fgets(buf, (int)cap, f)) {
        ++*lineno;
        if (!strchr(buf, '\n') && !feof(f)) {
            fprintf(stderr, "%s:%ld: line too long (skipped)\n", path, *lineno);
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n') {
            }
            ++*bad;
            continue;
        }
        char why[128];
        TuneLineStatus ls = tune_parse_line(buf, out, why, sizeof why);
        if (ls == TUNE_LINE_OK)
            return true;
        if (ls == TUNE_LINE_BAD) {
            fprintf(stderr, "%s:%ld: %s (skipped)\n", path, *lineno, why);
            ++*bad;
        }
    }
    return false;
}

/* ---- generate ---- */

typedef struct {
    int games, nodes, threads;
    int adjudicate, max_score; /* see the usage: ahead by adjudicate ends a game */
    uint64_t seed;
    atomic_int next_game;
    pthread_mutex_t lock;
    char *out; /* the collected lines */
    size_t out_len, out_cap;
    int finished, positions;
    bool out_of_memory;
    Progress progress; /* a bar on a terminal; otherwise one line per game (see report_game) */
} GenShared;

static bool append(GenShared *g, const char *s) {
    size_t n = strlen(s);
    if (g->out_len + n + 1 > g->out_cap) {
        size_t cap = g->out_cap ? g->out_cap * 2 : 1 << 20;
        while (cap < g->out_len + n + 1)
            cap *= 2;
        char *p = realloc(g->out, cap);
        if (!p)
            return false;
        g->out = p;
        g->out_cap = cap;
    }
    memcpy(g->out + g->out_len, s, n + 1);
    g->out_len += n;
    return true;
}

static bool write_lines(const char *path, const GenShared *g);

enum { GAME_PLY_LIMIT = 300, MAX_SAMPLES = 400, GAME_ABANDONED = -1 };

/* Plays one game; returns black's result (1, 0.5, 0), or GAME_ABANDONED after Ctrl-C,
 * and the sampled quiet positions. */
static double play_game(Search *s, const GenShared *gs_opt, uint64_t seed, char (*samples)[SFEN_MAX], int *nsamples) {
    int nodes = gs_opt->nodes;
    Game g;
    game_init(&g);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = (uint64_t)nodes;
    int random_plies = 6 + (int)(random_xorshift64(&rng) % 5);
    double result = 0.5;
    int decisive = 0;
    *nsamples = 0;
    search_clear(s);
    for (int ply = 0; ply < GAME_PLY_LIMIT; ply++) {
        if (interrupt_requested()) {
            result = GAME_ABANDONED;
            break;
        }
        GameState gs = position_game_state(&g.pos, GAME_PLY_LIMIT);
        Color us = g.pos.side;
        if (gs == GAME_MATED) {
            result = us == BLACK ? 0 : 1;
            break;
        }
        if (gs == GAME_REPETITION || gs == GAME_MAX_MOVES)
            break;
        if (gs == GAME_PERPETUAL_WIN || gs == GAME_PERPETUAL_LOSS) {
            bool us_wins = gs == GAME_PERPETUAL_WIN;
            result = (us == BLACK) == us_wins ? 1 : 0;
            break;
        }
        Move m;
        if (ply < random_plies) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            m = list[random_xorshift64(&rng) % (uint64_t)n].move;
        } else {
            SearchResult r = search_run(s, &g, &lim, &opt, NULL);
            if (r.best == MOVE_WIN) {
                result = us == BLACK ? 1 : 0;
                break;
            }
            if (!move_is_ok(r.best)) {
                result = us == BLACK ? 0 : 1;
                break;
            }
            m = r.best;
            /* Adjudicate clear games: a side far ahead for eight plies in a row wins. */
            int adj = gs_opt->adjudicate, lim_score = gs_opt->max_score;
            decisive = r.score >= adj || r.score <= -adj ? decisive + 1 : 0;
            if (decisive >= 8) {
                bool us_ahead = r.score > 0;
                result = (us == BLACK) == us_ahead ? 1 : 0;
                break;
            }
            bool quiet = !position_is_capture(&g.pos, m);
            if (ply >= 16 && quiet && !position_in_check(&g.pos) && *nsamples < MAX_SAMPLES && r.score > -lim_score &&
                r.score < lim_score)
                position_to_sfen(&g.pos, samples[(*nsamples)++], true);
        }
        if (!game_push(&g, m))
            break;
    }
    game_free(&g);
    return result;
}

/* Reports a finished game (called with g->lock held): the bar on a terminal, else a
 * line per game, which a log keeps and scripts can wait for. */
static void report_game(GenShared *g, double result) {
    if (g->progress.tty) {
        progress_update(&g->progress, (uint64_t)g->finished);
        return;
    }
    fprintf(stderr, "tune: game %d/%d done (%s), %d positions\n", g->finished, g->games,
            result == 1   ? "black wins"
            : result == 0 ? "white wins"
                          : "draw",
            g->positions);
}

static void *gen_worker(void *arg) {
    GenShared *g = arg;
    Search *s = search_create(16);
    char(*samples)[SFEN_MAX] = malloc(sizeof(char[MAX_SAMPLES][SFEN_MAX]));
    if (!s || !samples) {
        search_destroy(s);
        free(samples);
        return NULL;
    }
    for (;;) {
        int i = atomic_fetch_add(&g->next_game, 1);
        if (i >= g->games)
            break;
        int n = 0;
        double r = play_game(s, g, g->seed + (uint64_t)i, samples, &n);
        if (r == GAME_ABANDONED)
            break;
        pthread_mutex_lock(&g->lock);
        char line[SFEN_MAX + 16];
        for (int k = 0; k < n; k++) {
            snprintf(line, sizeof line, "%s %s\n", r == 1 ? "1" : r == 0 ? "0" : "0.5", samples[k]);
            if (!append(g, line)) {
                g->out_of_memory = true;
                break;
            }
        }
        bool give_up = g->out_of_memory;
        g->finished++;
        g->positions += n;
        report_game(g, r);
        pthread_mutex_unlock(&g->lock);
        if (give_up)
            break;
    }
    search_destroy(s);
    free(samples);
    return NULL;
}

static void generate_usage(FILE *f) {
    fprintf(f, "usage: hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] [--adjudicate V] "
               "[--max-score V] OUT\n"
               "Plays N games (default 200) of the engine against itself at K nodes a move (default 20000) on T\n"
               "threads, adjudicated at |score| >= V (default 2000), and writes the positions scored below\n"
               "--max-score (default 3000) with the games' results to OUT.\n");
}

static int cmd_generate(int argc, char **argv) {
    static const char prog[] = "hayanagi tune generate";
    static const struct option longopts[] = {{"games", required_argument, NULL, 'g'},
                                             {"nodes", required_argument, NULL, 'n'},
                                             {"threads", required_argument, NULL, 't'},
                                             {"adjudicate", required_argument, NULL, 'a'},
                                             {"max-score", required_argument, NULL, 'm'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    GenShared g;
    memset(&g, 0, sizeof g);
    g.games = 200;
    g.nodes = 20000;
    g.threads = 1;
    g.seed = 1;
    g.adjudicate = 2000;
    g.max_score = 3000;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, rc = -1;
    long v = 0;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'g':
        case 'n':
        case 't':
        case 'a':
        case 'm': {
            int *target = c == 'g'   ? &g.games
                          : c == 'n' ? &g.nodes
                          : c == 't' ? &g.threads
                          : c == 'a' ? &g.adjudicate
                                     : &g.max_score;
            long hi = c == 'g' ? 100000000 : c == 'n' ? 1000000000 : c == 't' ? 64 : VALUE_KNOWN_WIN;
            if (cli_opts_int(prog, longopts, c, optarg, 1, hi, &v))
                *target = (int)v;
            else
                rc = CLI_USAGE_ERROR;
            break;
        }
        case 's':
            if (!parse_unsigned(optarg, &g.seed))
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "a non-negative integer");
            break;
        case 'h':
            generate_usage(stdout);
            rc = 0;
            break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc < 0 && argc - optind != 1) {
        generate_usage(stderr);
        rc = CLI_USAGE_ERROR;
    }
    const char *out = rc < 0 ? av[optind] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    pthread_mutex_init(&g.lock, NULL);
    /* Ctrl-C (or SIGTERM) abandons the games in progress and keeps the finished ones; a
     * second one ends the process (util/interrupt.h). */
    InterruptScope scope;
    interrupt_begin(&scope, NULL);
    progress_start(&g.progress, stderr, "generating games", (uint64_t)g.games, false);
    pthread_t t[64];
    int started = 0;
    for (int i = 0; i < g.threads; i++)
        if (pthread_create(&t[started], NULL, gen_worker, &g) == 0)
            started++;
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    interrupt_end(&scope);
    if (g.progress.tty)
        progress_finish(&g.progress);
    bool interrupted = interrupt_requested();
    bool ok = started > 0 && !g.out_of_memory && write_lines(out, &g);
    if (!started)
        fprintf(stderr, "hayanagi tune: cannot start a thread\n");
    else if (g.out_of_memory)
        fprintf(stderr, "hayanagi tune: out of memory\n");
    else if (ok)
        fprintf(stderr, "tune: wrote %d positions from %d games to %s%s\n", g.positions, g.finished, out,
                interrupted ? " (interrupted)" : "");
    free(g.out);
    pthread_mutex_destroy(&g.lock);
    return !ok ? 1 : interrupted ? INTERRUPT_EXIT_STATUS : 0;
}

/* ---- records ---- */

/* The engines' scores in a CSA record written by `hayanagi match`: "'** N" after a move
 * is the mover's score of the position before it, from black's side. Per game, one entry
 * per move (SCORE_UNKNOWN when none); games in file order. */
enum { SCORE_UNKNOWN = INT32_MIN, SCORE_LIMIT = 30000 };

typedef struct {
    int *score; /* all games' moves, concatenated */
    size_t n, cap;
    size_t *first; /* game i: score[first[i] .. first[i + 1]) */
    int games, games_cap;
} CsaScores;

static bool push_int(int **a, size_t *n, size_t *cap, int v) {
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        int *p = realloc(*a, c * sizeof *p);
        if (!p)
            return false;
        *a = p;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return true;
}

static bool start_game(CsaScores *cs) {
    if (cs->games + 2 > cs->games_cap) {
        int c = cs->games_cap ? cs->games_cap * 2 : 256;
        size_t *p = realloc(cs->first, (size_t)c * sizeof *p);
        if (!p)
            return false;
        cs->first = p;
        cs->games_cap = c;
    }
    cs->first[cs->games] = cs->n;
    cs->first[cs->games + 1] = cs->n;
    return true;
}

/* Reads the scores; false (nothing to use) when the file cannot be read. With only_of
 * (not NULL), a score is kept only where the mover's name ("N+" / "N-") contains it. */
static bool read_csa_scores(const char *path, const char *only_of, CsaScores *cs) {
    memset(cs, 0, sizeof *cs);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    bool ok = start_game(cs), in_game = false;
    bool wanted[2] = {!only_of, !only_of}; /* the scores of black's / white's moves are kept */
    bool mover_wanted = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (line[0] == '/') {
            cs->first[++cs->games] = cs->n;
            ok = start_game(cs);
            in_game = false;
            wanted[0] = wanted[1] = !only_of;
        } else if ((line[0] == '+' || line[0] == '-') && line[1] >= '0' && line[1] <= '9') {
            ok = push_int(&cs->score, &cs->n, &cs->cap, SCORE_UNKNOWN);
            cs->first[cs->games + 1] = cs->n;
            in_game = true;
            mover_wanted = !only_of || wanted[line[0] == '-'];
        } else if (line[0] == 'N' && (line[1] == '+' || line[1] == '-')) {
            in_game = true;
            wanted[line[1] == '-'] = !only_of || strstr(line + 2, only_of) != NULL;
        } else if (strncmp(line, "'** ", 4) == 0 && in_game && mover_wanted && cs->n > cs->first[cs->games]) {
            char *end;
            long v = strtol(line + 4, &end, 10);
            if (end != line + 4 && v > -SCORE_LIMIT && v < SCORE_LIMIT)
                cs->score[cs->n - 1] = (int)v;
        } else if (line[0] == 'N' || line[0] == 'V' || line[0] == '$') {
            in_game = true; /* a header: the game has started even before its first move */
        }
    }
    if (ok && in_game)
        cs->first[++cs->games] = cs->n;
    fclose(f);
    if (!ok) {
        free(cs->score);
        free(cs->first);
        memset(cs, 0, sizeof *cs);
    }
    return ok;
}

typedef struct {
    GenShared *out;
    uint64_t games;
    const CsaScores *scores; /* of the file being read, or NULL */
    int game_index;          /* games seen in that file */
    int mismatches;
} RecordCtx;

/* Keeps the quiet positions (not in check, the move played not a capture) after ply 16
 * of every decided or drawn game. */
static bool on_record(void *ctx, const RecordGame *rg) {
    RecordCtx *rc = ctx;
    if (rg->variation)
        return true;
    const int *scores = NULL; /* per move, when the record has them and they line up */
    if (rc->scores) {
        int gi = rc->game_index++;
        if (gi < rc->scores->games && rc->scores->first[gi + 1] - rc->scores->first[gi] == (size_t)rg->n_moves)
            scores = rc->scores->score + rc->scores->first[gi];
        else
            rc->mismatches++;
    }
    if (rg->result == REC_RESULT_UNKNOWN)
        return true;
    const char *res = rg->result == REC_BLACK_WIN ? "1" : rg->result == REC_WHITE_WIN ? "0" : "0.5";
    Game g;
    game_init(&g);
    if (!game_set_sfen(&g, rg->root_sfen, NULL, 0)) {
        game_free(&g);
        return true;
    }
    char line[SFEN_MAX + 24], sfen[SFEN_MAX];
    for (int i = 0; i < rg->n_moves; i++) {
        Move m = rg->moves[i];
        bool quiet = !position_is_capture(&g.pos, m);
        if (i >= 16 && quiet && !position_in_check(&g.pos)) {
            position_to_sfen(&g.pos, sfen, true);
            if (scores && scores[i] != SCORE_UNKNOWN)
                snprintf(line, sizeof line, "%s %d %s\n", res, scores[i], sfen);
            else
                snprintf(line, sizeof line, "%s %s\n", res, sfen);
            append(rc->out, line);
            rc->out->positions++;
        }
        if (!game_push(&g, m))
            break;
    }
    game_free(&g);
    rc->games++;
    return true;
}

static bool write_lines(const char *path, const GenShared *g) {
    char err[512];
    AtomicFile af;
    bool ok = atomic_file_open(&af, path, err, sizeof err);
    if (ok) {
        if (g->out_len)
            fwrite(g->out, 1, g->out_len, af.f);
        ok = atomic_file_commit(&af, err, sizeof err);
    }
    if (!ok)
        fprintf(stderr, "hayanagi tune: %s\n", err);
    return ok;
}

static int cmd_records(int argc, char **argv) {
    static const char prog[] = "hayanagi tune records";
    static const struct option longopts[] = {
        {"scores-of", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *scores_of = NULL;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, st = -1;
    while (st < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        if (c == 's')
            scores_of = optarg;
        else if (c == 'h')
            st = 0;
        else
            st = cli_opts_unknown(prog);
    }
    if (st == 0 || (st < 0 && argc - optind < 2)) {
        fprintf(st == 0 ? stdout : stderr,
                "usage: hayanagi tune records [--scores-of NAME] FILES... OUT\n"
                "Writes the positions of the game records FILES with the games' results (and, with --scores-of,\n"
                "the evaluations NAME's CSA comments give) to OUT.\n");
        st = st == 0 ? 0 : CLI_USAGE_ERROR;
    }
    if (st >= 0) {
        free(av);
        return st;
    }
    /* the files and OUT, after the options */
    memmove(av, av + optind, (size_t)(argc - optind) * sizeof *av);
    argc -= optind;
    argv = av;
    GenShared g;
    memset(&g, 0, sizeof g);
    RecordCtx rc = {&g, 0, NULL, 0, 0};
    RecordReadOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.on_game = on_record;
    ro.ctx = &rc;
    for (int i = 0; i < argc - 1; i++) {
        char err[512];
        size_t len = strlen(argv[i]);
        CsaScores cs;
        bool csa = len > 4 && strcmp(argv[i] + len - 4, ".csa") == 0 && read_csa_scores(argv[i], scores_of, &cs);
        rc.scores = csa ? &cs : NULL;
        rc.game_index = 0;
        bool ok = record_read_file(argv[i], REC_FMT_AUTO, &ro, NULL, err, sizeof err);
        if (csa) {
            free(cs.score);
            free(cs.first);
        }
        if (!ok) {
            fprintf(stderr, "hayanagi tune: %s\n", err);
            free(g.out);
            free(av);
            return 1;
        }
    }
    if (rc.mismatches)
        fprintf(stderr, "tune: %d games whose scores did not line up with their moves were kept without scores\n",
                rc.mismatches);
    bool ok = write_lines(argv[argc - 1], &g);
    if (ok)
        fprintf(stderr, "tune: wrote %d positions from %llu games to %s\n", g.positions, (unsigned long long)rc.games,
                argv[argc - 1]);
    free(g.out);
    free(av);
    return ok ? 0 : 1;
}

/* ---- openings ---- */

/* What keeps an opening for `tune openings`: a K-node search scores it within
 * +-max_score, so both sides get a playable game. */
typedef struct {
    Search *search;
    SearchOptions opt;
    SearchLimits lim;
    int max_score;
} OpeningsBalance;

static bool balanced(void *ctx, const Game *g) {
    OpeningsBalance *b = ctx;
    search_clear(b->search);
    SearchResult r = search_run(b->search, g, &b->lim, &b->opt, NULL);
    return r.score >= -b->max_score && r.score <= b->max_score;
}

/* Random openings for matches and data: A..B random legal plies from the start
 * position, kept when balanced(). One "startpos moves ..." line each. */
static int cmd_openings(int argc, char **argv) {
    static const char prog[] = "hayanagi tune openings";
    static const struct option longopts[] = {{"count", required_argument, NULL, 'c'},
                                             {"plies", required_argument, NULL, 'p'},
                                             {"nodes", required_argument, NULL, 'n'},
                                             {"max-score", required_argument, NULL, 'm'},
                                             {"seed", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int count = 500, min_plies = 4, max_plies = 8, nodes = 20000, max_score = 150;
    uint64_t seed = 1;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, rc = -1;
    long v = 0;
    long long lo, hi;
    while (rc < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 10000000, &v))
                rc = CLI_USAGE_ERROR;
            count = (int)v;
            break;
        case 'p':
            if (parse_range(optarg, 0, 60, &lo, &hi))
                min_plies = (int)lo, max_plies = (int)hi;
            else
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "A-B with 0 <= A <= B <= 60");
            break;
        case 'n':
            if (!cli_opts_int(prog, longopts, c, optarg, 1, 1000000000, &v))
                rc = CLI_USAGE_ERROR;
            nodes = (int)v;
            break;
        case 'm':
            if (!cli_opts_int(prog, longopts, c, optarg, 0, VALUE_KNOWN_WIN, &v))
                rc = CLI_USAGE_ERROR;
            max_score = (int)v;
            break;
        case 's':
            if (!parse_unsigned(optarg, &seed))
                rc = cli_opts_bad_value(prog, longopts, c, optarg, "a non-negative integer");
            break;
        case 'h': rc = 0; break;
        default: rc = cli_opts_unknown(prog); break;
        }
    }
    if (rc == 0 || (rc < 0 && argc - optind != 1)) {
        fprintf(rc == 0 ? stdout : stderr,
                "usage: hayanagi tune openings [--count N] [--plies A-B] [--nodes K] [--max-score V] [--seed S] OUT\n"
                "Writes N (default 500) random start lines of A-B plies (default 4-8), kept when a K-node search\n"
                "(default 20000) scores them within V (default 150).\n");
        rc = rc == 0 ? 0 : CLI_USAGE_ERROR;
    }
    const char *out = rc < 0 ? av[optind] : NULL;
    free(av);
    if (rc >= 0)
        return rc;
    Search *s = search_create(16);
    if (!s)
        return 1;
    OpeningsBalance bal = {s, {0}, {0}, max_score};
    search_options_default(&bal.opt);
    bal.lim.nodes = (uint64_t)nodes;
    Progress bar;
    progress_start(&bar, stderr, "openings", (uint64_t)count, false);
    /* The generator shared with `book openings` (match/openings_gen.h); kept lines are
     * distinct and balanced. */
    OpeningsGenOptions go = {.count = count,
                             .min_plies = min_plies,
                             .max_plies = max_plies,
                             .seed = seed,
                             .tries_per_line = 50,
                             .keep = balanced,
                             .ctx = &bal,
                             .progress = &bar};
    Openings lines;
    int tries = 0;
    bool ok = openings_generate(&go, &lines, &tries);
    progress_finish(&bar);
    search_destroy(s);
    if (!ok) {
        fprintf(stderr, "hayanagi tune openings: out of memory\n");
        return 1;
    }
    GenShared g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < lines.n && !g.out_of_memory; i++)
        g.out_of_memory = !append(&g, lines.lines[i]) || !append(&g, "\n");
    g.positions = lines.n;
    openings_free(&lines);
    ok = !g.out_of_memory && write_lines(out, &g);
    if (ok)
        fprintf(stderr, "tune: wrote %d openings (%d tried) to %s\n", g.positions, tries, out);
    free(g.out);
    return ok ? 0 : 1;
}

int tune_main(int argc, char **argv) {
    shogi_init();
    if (argc >= 1 && strcmp(argv[0], "generate") == 0)
        return cmd_generate(argc, argv);
    if (argc >= 1 && strcmp(argv[0], "records") == 0)
        return cmd_records(argc, argv);
    if (argc >= 1 && strcmp(argv[0], "fit") == 0)
        return tune_fit_main(argc, argv);
    if (argc >= 1 && strcmp(argv[0], "openings") == 0)
        return cmd_openings(argc, argv);
    if (argc >= 1 && strcmp(argv[0], "label") == 0)
        return tune_label_main(argc, argv);
    bool help = argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "help") == 0);
    fprintf(help ? stdout : stderr,
            "usage: hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] [--adjudicate V] "
            "[--max-score V] OUT\n"
            "       hayanagi tune records [--scores-of NAME] FILES... OUT\n"
            "       hayanagi tune fit [--epochs E] [--lr R] [--k K] [--ks S] ... [--out FILE] IN...\n"
            "       hayanagi tune openings [--count N] [--plies A-B] [--nodes K] [--max-score V] [--seed S] OUT\n"
            "       hayanagi tune label --engine CMD [--option NAME=VALUE ...] [--go TEXT] [--concurrency N] IN OUT\n");
    return help ? 0 : 2;
}
