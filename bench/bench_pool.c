/* bench_pool.c - the engine pool's coordinator overhead: two external engine
 * processes (build/hayanagi) at a fixed node budget think the same positions
 *   (a) driven directly, one thread per engine writing `position` / `go nodes N` and
 *       reading up to `bestmove`, nothing else: the engines' own rate;
 *   (b) through `book think`'s machinery (book_think over engine_pool: info parsing and
 *       PV validation, the job queue, the journal with its fsync per position).
 * It prints positions per second for both and the ratio (b)/(a); the target is >= 95%.
 * The runs alternate a, b, a, b, a, b and the medians are compared, so that the load
 * of the machine hits both alike (after one uncounted warm-up run). As the wall clock is
 * noise on a loaded machine, it also prints CPU time: the engines' per position and the
 * coordinator's own, which bound the pool's rate on free cores.
 *
 * POOL_BENCH_ENGINE (default build/hayanagi), POOL_BENCH_NODES (default 20000),
 * POOL_BENCH_POSITIONS (default 64: positions of book/standard_book.db).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "book/db2016.h"
#include "bookgen/engine_pool.h"
#include "bookgen/think.h"
#include "common.h"
#include "match/engine_proc.h"
#include "shogi/movegen.h"

typedef struct {
    const char *engine;
    char (*sfens)[SFEN_MAX];
    int n;
    uint64_t nodes;
    atomic_int next;
    bool failed;
} Direct;

static void *direct_worker(void *arg) {
    Direct *d = arg;
    EngineProc e;
    engine_init(&e);
    char err[256], line[ENGINE_LINE_MAX], go[64], pos[SFEN_MAX + 32];
    if (!engine_start(&e, d->engine, false, err, sizeof err) || !engine_usi(&e, 30000, err, sizeof err) ||
        !engine_isready(&e, 60000, err, sizeof err)) {
        fprintf(stderr, "bench_pool: %s: %s\n", d->engine, err);
        d->failed = true;
        engine_close(&e, 1000);
        return NULL;
    }
    engine_setoption(&e, "USI_OwnBook", "false");
    engine_send(&e, "usinewgame");
    snprintf(go, sizeof go, "go nodes %llu", (unsigned long long)d->nodes);
    for (;;) {
        int i = atomic_fetch_add(&d->next, 1);
        if (i >= d->n)
            break;
        snprintf(pos, sizeof pos, "position sfen %s", d->sfens[i]);
        engine_send(&e, pos);
        engine_send(&e, go);
        while (engine_read_line(&e, line, sizeof line, engine_now_us() + 60000000LL) == ENGINE_READ_OK)
            if (!strncmp(line, "bestmove", 8))
                break;
    }
    engine_close(&e, 2000);
    return NULL;
}

/* CPU milliseconds of this process (self) or of its reaped children. */
static double cpu_ms(int who) {
    struct rusage ru;
    getrusage(who, &ru);
    return ru.ru_utime.tv_sec * 1000.0 + ru.ru_utime.tv_usec / 1000.0 + ru.ru_stime.tv_sec * 1000.0 +
           ru.ru_stime.tv_usec / 1000.0;
}

static double run_direct(Direct *d) {
    atomic_store(&d->next, 0);
    pthread_t th[2];
    double t0 = bench_now_ms();
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, direct_worker, d);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return bench_now_ms() - t0;
}

static double run_pool(const char *engine, const BookKey *keys, const int *plies, int n, uint64_t nodes) {
    const char *cmds[2] = {engine, engine};
    static const EngineOption nobook = {"USI_OwnBook", "false"};
    EnginePoolOptions po = {.cmds = cmds, .n_cmds = 2, .options = &nobook, .n_options = 1, .quiet = true};
    char err[2048];
    Searcher *s = engine_pool_create(&po, err, sizeof err);
    char journal[64];
    snprintf(journal, sizeof journal, "/tmp/hayanagi_bench_pool_%d.journal", (int)getpid());
    unlink(journal);
    Book *b = book_create();
    Progress pr = {.quiet = true};
    ThinkOptions to = {.nodes = nodes,
                       .multipv = 1,
                       .searcher = s,
                       .only_keys = keys,
                       .only_plies = plies,
                       .only_count = (size_t)n,
                       .journal = journal,
                       .progress = &pr};
    ThinkStats ts;
    double t0 = bench_now_ms();
    bool ok = book_think(b, &to, &ts, err, sizeof err);
    double t = bench_now_ms() - t0;
    if (!ok || ts.searched != (uint64_t)n)
        fprintf(stderr, "bench_pool: pool run: %s (%llu of %d searched)\n", ok ? "short" : err,
                (unsigned long long)ts.searched, n);
    searcher_destroy(s); /* the engines' start-up is in (a) too; their quit is not timed in either */
    book_free(b);
    unlink(journal);
    return t;
}

int main(void) {
    shogi_init();
    bench_print_machine("bench_pool");
    const char *engine = getenv("POOL_BENCH_ENGINE") ? getenv("POOL_BENCH_ENGINE") : "build/hayanagi";
    uint64_t nodes = getenv("POOL_BENCH_NODES") ? strtoull(getenv("POOL_BENCH_NODES"), NULL, 10) : 20000;
    int want = getenv("POOL_BENCH_POSITIONS") ? atoi(getenv("POOL_BENCH_POSITIONS")) : 64;
    Book *src = book_create();
    char err[512];
    Db2016ReadOptions ro = {0};
    if (!db2016_read_file("book/standard_book.db", src, &ro, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_pool: %s\n", err);
        return 1;
    }
    int n = 0;
    char(*sfens)[SFEN_MAX] = malloc((size_t)want * sizeof *sfens);
    BookKey *keys = malloc((size_t)want * sizeof *keys);
    int *plies = malloc((size_t)want * sizeof *plies);
    for (uint32_t id = 0; id < book_position_count(src) && n < want; id++) {
        Position pos;
        StateInfo st;
        book_position_key(src, id, &keys[n]);
        plies[n] = book_position_ply(src, id) ? book_position_ply(src, id) : 1;
        if (!book_key_to_position(&keys[n], &pos, &st, plies[n]) || !position_has_legal_move(&pos))
            continue;
        position_to_sfen(&pos, sfens[n], true);
        n++;
    }
    printf("%d positions, go nodes %llu, 2 engine processes (%s)\n", n, (unsigned long long)nodes, engine);
    Direct d = {.engine = engine, .sfens = sfens, .n = n, .nodes = nodes};
    run_direct(&d); /* warm-up: page cache, CPU frequency; not counted */
    double a[3], b[3], self_a = 0, self_b = 0, kids_a = 0, kids_b = 0;
    for (int r = 0; r < 3; r++) {
        double s0 = cpu_ms(RUSAGE_SELF), k0 = cpu_ms(RUSAGE_CHILDREN);
        a[r] = run_direct(&d);
        double s1 = cpu_ms(RUSAGE_SELF), k1 = cpu_ms(RUSAGE_CHILDREN);
        b[r] = run_pool(engine, keys, plies, n, nodes);
        double s2 = cpu_ms(RUSAGE_SELF), k2 = cpu_ms(RUSAGE_CHILDREN);
        self_a += s1 - s0, kids_a += k1 - k0, self_b += s2 - s1, kids_b += k2 - k1;
        printf("  round %d: direct %.0f ms (%.2f pos/s), pool %.0f ms (%.2f pos/s)\n", r + 1, a[r], n * 1000.0 / a[r],
               b[r], n * 1000.0 / b[r]);
    }
    double ma = bench_median(a, 3), mb = bench_median(b, 3);
    printf("wall clock: engines' own rate %.2f pos/s, through the pool %.2f pos/s: %.1f%% (target >= 95%%)\n",
           n * 1000.0 / ma, n * 1000.0 / mb, 100.0 * ma / mb);
    /* On a loaded machine the wall clock is noise; CPU time is not: the coordinator's own
     * CPU per position against the engines' CPU per position bounds the overhead. */
    printf("CPU: engines %.1f ms/pos direct, %.1f ms/pos in the pool; coordinator %.2f ms/pos (direct driver %.2f):\n"
           "     the pool's rate is at least %.1f%% of the engines' own on 2 free cores\n",
           kids_a / (3.0 * n), kids_b / (3.0 * n), self_b / (3.0 * n), self_a / (3.0 * n),
           100.0 * (kids_b / (3.0 * n)) / (kids_b / (3.0 * n) + self_b / (3.0 * n)));
    free(sfens);
    free(keys);
    free(plies);
    book_free(src);
    return d.failed ? 1 : 0;
}
