/* tune.c - self-play data and a Texel-style fit of ClassicWeights.
 *
 *   hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] OUT
 *       plays N games against itself at K nodes a move (after a few random opening
 *       moves) and writes one line per quiet position: "<result> <sfen>", result being
 *       1, 0.5 or 0 for black.
 *   hayanagi tune records FILES... OUT
 *       the same kind of data from game records (CSA, KIF, KI2, USI) of finished games,
 *       for instance a stronger engine's games played with `hayanagi match`.
 *   hayanagi tune fit [--seconds S] IN
 *       fits the logistic scale K to the default weights, then improves every weight by
 *       coordinate descent on the mean squared error between the result and
 *       sigmoid(eval / K); prints the loss before and after and the new weights as a C
 *       initializer for src/eval/classic.c.
 */
#include "eval/tune.h"

#include <math.h>
#include <pthread.h>
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

_Static_assert(sizeof(ClassicWeights) == CLASSIC_WEIGHT_COUNT * sizeof(int), "ClassicWeights must be all ints");

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- generate ---- */

typedef struct {
    int games, nodes, threads;
    uint64_t seed;
    atomic_int next_game;
    pthread_mutex_t lock;
    char *out; /* the collected lines */
    size_t out_len, out_cap;
    int finished, positions;
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

static uint64_t next_rand(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

enum { GAME_PLY_LIMIT = 300, MAX_SAMPLES = 400 };

/* Plays one game; returns black's result (1, 0.5, 0) and the sampled quiet positions. */
static double play_game(Search *s, uint64_t seed, int nodes, char (*samples)[SFEN_MAX], int *nsamples) {
    Game g;
    game_init(&g);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = (uint64_t)nodes;
    int random_plies = 6 + (int)(next_rand(&rng) % 5);
    double result = 0.5;
    int decisive = 0;
    *nsamples = 0;
    search_clear(s);
    for (int ply = 0; ply < GAME_PLY_LIMIT; ply++) {
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
            m = list[next_rand(&rng) % (uint64_t)n].move;
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
            /* Adjudicate clear games: a side 2000 ahead for eight plies in a row wins. */
            decisive = r.score >= 2000 || r.score <= -2000 ? decisive + 1 : 0;
            if (decisive >= 8) {
                bool us_ahead = r.score > 0;
                result = (us == BLACK) == us_ahead ? 1 : 0;
                break;
            }
            bool quiet = move_is_drop(m) || g.pos.board[move_to(m)] == NO_PIECE;
            if (ply >= 16 && quiet && !position_in_check(&g.pos) && *nsamples < MAX_SAMPLES && r.score > -3000 &&
                r.score < 3000)
                position_to_sfen(&g.pos, samples[(*nsamples)++], true);
        }
        if (!game_push(&g, m))
            break;
    }
    game_free(&g);
    return result;
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
        double r = play_game(s, g->seed + (uint64_t)i, g->nodes, samples, &n);
        pthread_mutex_lock(&g->lock);
        char line[SFEN_MAX + 16];
        for (int k = 0; k < n; k++) {
            snprintf(line, sizeof line, "%s %s\n", r == 1 ? "1" : r == 0 ? "0" : "0.5", samples[k]);
            append(g, line);
        }
        g->finished++;
        g->positions += n;
        fprintf(stderr, "tune: game %d/%d done (%s), %d positions\n", g->finished, g->games,
                r == 1   ? "black wins"
                : r == 0 ? "white wins"
                         : "draw",
                g->positions);
        pthread_mutex_unlock(&g->lock);
    }
    search_destroy(s);
    free(samples);
    return NULL;
}

static int cmd_generate(int argc, char **argv) {
    GenShared g;
    memset(&g, 0, sizeof g);
    g.games = 200;
    g.nodes = 20000;
    g.threads = 1;
    g.seed = 1;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
            g.games = atoi(argv[++i]);
        else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            g.nodes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            g.threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            g.seed = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !out)
            out = argv[i];
        else {
            fprintf(stderr, "usage: hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] OUT\n");
            return 2;
        }
    }
    if (!out || g.games < 1 || g.nodes < 1 || g.threads < 1 || g.threads > 64) {
        fprintf(stderr, "usage: hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] OUT\n");
        return 2;
    }
    pthread_mutex_init(&g.lock, NULL);
    pthread_t t[64];
    for (int i = 0; i < g.threads; i++)
        pthread_create(&t[i], NULL, gen_worker, &g);
    for (int i = 0; i < g.threads; i++)
        pthread_join(t[i], NULL);
    bool ok = write_lines(out, &g);
    if (ok)
        fprintf(stderr, "tune: wrote %d positions from %d games to %s\n", g.positions, g.finished, out);
    free(g.out);
    pthread_mutex_destroy(&g.lock);
    return ok ? 0 : 1;
}

/* ---- records ---- */

typedef struct {
    GenShared *out;
    uint64_t games;
} RecordCtx;

/* Keeps the quiet positions (not in check, the move played not a capture) after ply 16
 * of every decided or drawn game. */
static bool on_record(void *ctx, const RecordGame *rg) {
    RecordCtx *rc = ctx;
    if (rg->result == REC_RESULT_UNKNOWN || rg->variation)
        return true;
    const char *res = rg->result == REC_BLACK_WIN ? "1" : rg->result == REC_WHITE_WIN ? "0" : "0.5";
    Game g;
    game_init(&g);
    if (!game_set_sfen(&g, rg->root_sfen, NULL, 0)) {
        game_free(&g);
        return true;
    }
    char line[SFEN_MAX + 8], sfen[SFEN_MAX];
    for (int i = 0; i < rg->n_moves; i++) {
        Move m = rg->moves[i];
        bool quiet = move_is_drop(m) || g.pos.board[move_to(m)] == NO_PIECE;
        if (i >= 16 && quiet && !position_in_check(&g.pos)) {
            snprintf(line, sizeof line, "%s %s\n", res, position_to_sfen(&g.pos, sfen, true));
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
    if (argc < 2) {
        fprintf(stderr, "usage: hayanagi tune records FILES... OUT\n");
        return 2;
    }
    GenShared g;
    memset(&g, 0, sizeof g);
    RecordCtx rc = {&g, 0};
    RecordReadOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.on_game = on_record;
    ro.ctx = &rc;
    for (int i = 0; i < argc - 1; i++) {
        char err[512];
        if (!record_read_file(argv[i], REC_FMT_AUTO, &ro, NULL, err, sizeof err)) {
            fprintf(stderr, "hayanagi tune: %s\n", err);
            free(g.out);
            return 1;
        }
    }
    bool ok = write_lines(argv[argc - 1], &g);
    if (ok)
        fprintf(stderr, "tune: wrote %d positions from %llu games to %s\n", g.positions, (unsigned long long)rc.games,
                argv[argc - 1]);
    free(g.out);
    return ok ? 0 : 1;
}

/* ---- fit ---- */

typedef struct {
    Position *pos;
    float *result;
    int n;
} Data;

typedef struct {
    const Data *d;
    const ClassicWeights *w;
    double k;
    int from, to;
    double sum;
} LossJob;

static void *loss_worker(void *arg) {
    LossJob *j = arg;
    double sum = 0;
    for (int i = j->from; i < j->to; i++) {
        const Position *p = &j->d->pos[i];
        double v = classic_evaluate_with(j->w, p);
        if (p->side == WHITE)
            v = -v;
        double q = 1.0 / (1.0 + exp(-v / j->k));
        double e = j->d->result[i] - q;
        sum += e * e;
    }
    j->sum = sum;
    return NULL;
}

static double loss(const Data *d, const ClassicWeights *w, double k) {
    enum { THREADS = 2 };
    LossJob jobs[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (LossJob){d, w, k, d->n * i / THREADS, d->n * (i + 1) / THREADS, 0};
        pthread_create(&t[i], NULL, loss_worker, &jobs[i]);
    }
    double sum = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        sum += jobs[i].sum;
    }
    return sum / d->n;
}

static bool load_data(const char *path, Data *d) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hayanagi tune: cannot open %s\n", path);
        return false;
    }
    int cap = 1 << 16;
    d->pos = malloc((size_t)cap * sizeof *d->pos);
    d->result = malloc((size_t)cap * sizeof *d->result);
    d->n = 0;
    char line[512];
    long lineno = 0;
    bool oom = !d->pos || !d->result;
    while (!oom && fgets(line, sizeof line, f)) {
        lineno++;
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        sp[1 + strcspn(sp + 1, "\n")] = '\0';
        if (d->n == cap) {
            cap *= 2;
            Position *p = realloc(d->pos, (size_t)cap * sizeof *p);
            if (p)
                d->pos = p;
            float *r = realloc(d->result, (size_t)cap * sizeof *r);
            if (r)
                d->result = r;
            if (!p || !r) {
                oom = true;
                break;
            }
        }
        StateInfo st;
        char err[128];
        if (!position_from_sfen(&d->pos[d->n], &st, sp + 1, err, sizeof err)) {
            fprintf(stderr, "%s:%ld: %s (skipped)\n", path, lineno, err);
            continue;
        }
        d->pos[d->n].st = NULL; /* the classical evaluation reads no state */
        d->result[d->n++] = (float)atof(line);
    }
    fclose(f);
    if (oom) {
        fprintf(stderr, "hayanagi tune: out of memory\n");
        free(d->pos);
        free(d->result);
        return false;
    }
    return d->n > 0;
}

static void print_weights(const ClassicWeights *w) {
    const int *v = (const int *)w;
    printf("/* %d weights in ClassicWeights order */\n", CLASSIC_WEIGHT_COUNT);
    for (int i = 0; i < CLASSIC_WEIGHT_COUNT; i++)
        printf("%d,%s", v[i], i % 15 == 14 ? "\n" : " ");
    printf("\n");
}

static int cmd_fit(int argc, char **argv) {
    double seconds = 600;
    const char *in = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else {
            fprintf(stderr, "usage: hayanagi tune fit [--seconds S] IN\n");
            return 2;
        }
    }
    if (!in) {
        fprintf(stderr, "usage: hayanagi tune fit [--seconds S] IN\n");
        return 2;
    }
    Data d;
    if (!load_data(in, &d))
        return 1;
    ClassicWeights w = classic_default_weights;
    /* The scale K by golden-section search on the default weights. */
    double lo = 50, hi = 3000;
    for (int it = 0; it < 40; it++) {
        double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
        if (loss(&d, &w, a) < loss(&d, &w, b))
            hi = b;
        else
            lo = a;
    }
    double k = (lo + hi) / 2;
    double best = loss(&d, &w, k);
    fprintf(stderr, "tune: %d positions, K %.1f, loss %.6f\n", d.n, k, best);
    double start = now_s();
    int *v = (int *)&w;
    /* The king's board value and the unused rows stay fixed at zero. */
    bool fixed[CLASSIC_WEIGHT_COUNT] = {false};
    fixed[KING] = true;
    for (int step = 16; step >= 1 && now_s() - start < seconds; step /= 2) {
        bool improved = true;
        for (int pass = 0; improved && pass < 4 && now_s() - start < seconds; pass++) {
            improved = false;
            for (int i = 0; i < CLASSIC_WEIGHT_COUNT && now_s() - start < seconds; i++) {
                if (fixed[i])
                    continue;
                for (int dir = -1; dir <= 1; dir += 2) {
                    v[i] += dir * step;
                    double l = loss(&d, &w, k);
                    if (l < best - 1e-9) {
                        best = l;
                        improved = true;
                        break;
                    }
                    v[i] -= dir * step;
                }
            }
            fprintf(stderr, "tune: step %d pass %d loss %.6f (%.0f s)\n", step, pass + 1, best, now_s() - start);
        }
    }
    print_weights(&w);
    fprintf(stderr, "tune: final loss %.6f\n", best);
    free(d.pos);
    free(d.result);
    return 0;
}

int tune_main(int argc, char **argv) {
    shogi_init();
    if (argc >= 1 && strcmp(argv[0], "generate") == 0)
        return cmd_generate(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "records") == 0)
        return cmd_records(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "fit") == 0)
        return cmd_fit(argc - 1, argv + 1);
    fprintf(stderr, "usage: hayanagi tune generate [--games N] [--nodes K] [--threads T] [--seed S] OUT\n"
                    "       hayanagi tune records FILES... OUT\n"
                    "       hayanagi tune fit [--seconds S] IN\n");
    return 2;
}
