/* bench_book_make.c - book making at scale: `book build` over 100 000 games and
 * `book minimax` over a 12-million-position book (issue targets: 60 s, 2 GB).
 *
 * Games. BOOK_MAKE_BENCH_GAMES (100 000 by default) synthetic games are written once as
 * one floodgate-style CSA file under /tmp (cached): every ply takes the r-th preferred
 * legal move with probability (3/4) 4^-r, the preference being a hash of the position, so
 * that, as in real play, the openings repeat and the games spread out after a few moves;
 * 60-160 plies, 30 player names, a %TORYO result. `build` reads the file with the CSA
 * reader and counts the moves of plies 1..40 (the usual setting) and of every ply.
 *
 * Minimax. The book (BOOK_MAKE_BENCH_POSITIONS, 12 000 000 by default) is the synthetic
 * one of bench_book.c (`hayanagi book gen-synthetic`, cached under /tmp). It is loaded,
 * then book_minimax_in_place() runs as `book minimax --threads T` does
 * (BOOK_MAKE_BENCH_THREADS, 2 by default), and with BOOK_MAKE_BENCH_CONVERGE=1 also
 * with --converge and with --converge --flipped (peta_shock's job; its CPU time is shown
 * as a multiple of the plain run's); the time of minimax alone (wall and CPU seconds) and
 * the peak RSS of the whole process (the loaded book included) are printed, medians of
 * BOOK_MAKE_BENCH_RUNS runs (1 by default: a 12M run takes minutes).
 *
 * Each measurement runs in its own child process so that its peak RSS is its own; each
 * build is run three times and the median printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "book/book.h"
#include "book/db2016.h"
#include "bookgen/make.h"
#include "bookgen/minimax.h"
#include "cli/commands.h"
#include "common.h"
#include "record/csa_write.h"
#include "record/reader.h"
#include "shogi/movegen.h"
#include "util/atomic_file.h"
#include "util/random.h"

enum { BUILD_RUNS = 3, MINIMAX_RUNS_MAX = 15 };

static bool write_games(const char *path, long games) {
    char err[256];
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    StateInfo *st = malloc(sizeof(StateInfo) * 200);
    ExtMove *moves = malloc(sizeof(ExtMove) * MAX_MOVES);
    uint64_t seed = 20261202;
    for (long g = 0; g < games; g++) {
        fprintf(af.f, "%sV2.2\nN+player%02d\nN-player%02d\n'black_rate:player:%d\nPI\n+\n", g ? "/\n" : "",
                (int)(random_xorshift64star(&seed) % 30), (int)(random_xorshift64star(&seed) % 30),
                2500 + (int)(random_xorshift64star(&seed) % 1500));
        Position pos;
        position_set_startpos(&pos, &st[0]);
        int length = 60 + (int)(random_xorshift64star(&seed) % 101), ply = 0;
        for (; ply < length; ply++) {
            int n = generate_moves(&pos, GEN_LEGAL, moves);
            if (!n)
                break;
            int r = 0;
            while (r < n - 1 && random_xorshift64star(&seed) % 4 == 0)
                r++;
            Move m = moves[(position_key(&pos) % (uint64_t)n + (uint64_t)r) % (uint64_t)n].move;
            char buf[CSA_MOVE_MAX];
            fprintf(af.f, "%s\nT%d\n", csa_move(&pos, m, buf), 1 + (int)(random_xorshift64star(&seed) % 30));
            position_do_move(&pos, m, &st[ply + 1]);
        }
        fprintf(af.f, "%%TORYO\n");
    }
    free(st);
    free(moves);
    if (!atomic_file_commit(&af, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    return true;
}

typedef struct {
    Book *book;
    BookBuildOptions bo;
    BookBuildStats bs;
    StateInfo *st;
    size_t cap;
} BuildCtx;

static bool on_game(void *ctx, const RecordGame *g) {
    BuildCtx *c = ctx;
    return book_build_add_game(c->book, g, &c->bo, &c->bs, &c->st, &c->cap);
}

/* CPU seconds (user + system) of this process so far: under a shared machine's load the
 * wall time says little. */
static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

static int max_ply_arg; /* set before fork: the child reads it */

static void child_build(const char *path, int fd) {
    double t0 = bench_now_ms();
    BuildCtx c = {.book = book_create()};
    c.bo.min_rating = REC_NO_RATING;
    c.bo.max_ply = max_ply_arg;
    RecordReadOptions ro = {.on_game = on_game, .ctx = &c};
    RecordStats rs = {0};
    char err[256];
    if (!record_read_file(path, REC_FMT_CSA, &ro, &rs, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    double ms = bench_now_ms() - t0;
    dprintf(fd, "%ld %.1f %llu %llu %zu %zu %.2f\n", bench_status_kb("VmHWM:"), ms, (unsigned long long)rs.games,
            (unsigned long long)rs.moves, book_position_count(c.book), book_move_count(c.book), cpu_seconds());
    _exit(0);
}

static bool converge_arg, flipped_arg;
static int threads_arg;

static void child_minimax(const char *path, int fd) {
    Book *in = book_create();
    char err[256];
    double t0 = bench_now_ms();
    if (!db2016_read_file(path, in, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    book_shrink(in);
    double load = bench_now_ms() - t0;
    long rss_loaded = bench_status_kb("VmRSS:");
    MinimaxOptions mo = {.converge = converge_arg, .flipped = flipped_arg, .threads = threads_arg};
    MinimaxStats ms;
    t0 = bench_now_ms();
    double c0 = cpu_seconds();
    bool ok = book_minimax_in_place(in, &mo, &ms, err, sizeof err); /* as `book minimax` does */
    double mm = bench_now_ms() - t0, cpu = cpu_seconds() - c0;
    if (!ok) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    Book *out = in;
    dprintf(fd, "%ld %.1f %.1f %ld %zu %llu %llu %llu %.3f %llu %llu %llu\n", bench_status_kb("VmHWM:"), load, mm,
            rss_loaded, book_position_count(out), (unsigned long long)ms.settled,
            (unsigned long long)ms.converged_moves, (unsigned long long)ms.rounds, cpu,
            (unsigned long long)ms.flipped_twins, (unsigned long long)ms.flipped_moves,
            (unsigned long long)ms.flipped_edges);
    _exit(0);
}

static int bench_build(long games) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/hayanagi_bench_games_%ld.csa", games);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        printf("generating %s (%ld games)...\n", path, games);
        fflush(stdout);
        if (!write_games(path, games))
            return 1;
        stat(path, &sb);
    }
    printf("records %s: %ld games, %.0f MB of CSA\n", path, games, (double)sb.st_size / 1e6);
    int plies[2] = {40, 0};
    for (int k = 0; k < 2; k++) {
        max_ply_arg = plies[k];
        double t[BUILD_RUNS], rss[BUILD_RUNS], cpu[BUILD_RUNS];
        unsigned long long ng = 0, nm = 0;
        size_t npos = 0, nmoves = 0;
        for (int r = 0; r < BUILD_RUNS; r++) {
            char out[256];
            if (!bench_run_child(child_build, path, out, sizeof out)) {
                fprintf(stderr, "build run failed\n");
                return 1;
            }
            long hwm;
            sscanf(out, "%ld %lf %llu %llu %zu %zu %lf", &hwm, &t[r], &ng, &nm, &npos, &nmoves, &cpu[r]);
            rss[r] = (double)hwm;
        }
        double med = bench_median(t, BUILD_RUNS);
        char label[16] = "all";
        if (plies[k])
            snprintf(label, sizeof label, "%d", plies[k]);
        printf("build --max-ply %-3s: median %.2f s wall, %.2f s CPU of %d runs (%.0f games/s, %.1f M moves read/s), "
               "peak RSS %.0f MB; %zu positions, %zu moves\n",
               label, med / 1000.0, bench_median(cpu, BUILD_RUNS), BUILD_RUNS, (double)ng / (med / 1000.0),
               (double)nm / (med / 1000.0) / 1e6, bench_median(rss, BUILD_RUNS) / 1024.0, npos, nmoves);
    }
    return 0;
}

static int bench_minimax(long n) {
    char path[256];
    long long size = bench_synthetic_book(n, path, sizeof path);
    if (size < 0)
        return 1;
    printf("book %s: %.0f MB\n", path, (double)size / 1e6);
    const char *env = getenv("BOOK_MAKE_BENCH_THREADS");
    threads_arg = env ? atoi(env) : 2;
    env = getenv("BOOK_MAKE_BENCH_CONVERGE");
    int modes = env && atoi(env) ? 3 : 1; /* plain; --converge; --converge --flipped */
    env = getenv("BOOK_MAKE_BENCH_RUNS");
    int runs = env && atoi(env) > 0 ? atoi(env) : 1;
    if (runs > MINIMAX_RUNS_MAX)
        runs = MINIMAX_RUNS_MAX;
    double plain_cpu = 0;
    for (int k = 0; k < modes; k++) {
        converge_arg = k >= 1;
        flipped_arg = k == 2;
        double wall[MINIMAX_RUNS_MAX], cpus[MINIMAX_RUNS_MAX];
        long hwm = 0, loaded = 0;
        double load = 0;
        size_t npos = 0;
        unsigned long long settled = 0, conv = 0, rounds = 0, twins = 0, fmoves = 0, fedges = 0;
        for (int r = 0; r < runs; r++) {
            char out[512];
            if (!bench_run_child(child_minimax, path, out, sizeof out)) {
                fprintf(stderr, "minimax run failed\n");
                return 1;
            }
            sscanf(out, "%ld %lf %lf %ld %zu %llu %llu %llu %lf %llu %llu %llu", &hwm, &load, &wall[r], &loaded, &npos,
                   &settled, &conv, &rounds, &cpus[r], &twins, &fmoves, &fedges);
        }
        double mm = bench_median(wall, runs), cpu = bench_median(cpus, runs);
        if (k == 0)
            plain_cpu = cpu;
        printf("minimax%s, %d thread(s): median of %d: %.2f s wall, %.2f s CPU (%.2fx plain; target 60 s), peak RSS "
               "%.0f MB (target 2048 MB; the loaded input alone %.0f MB, load %.1f s); %zu positions, %llu settled "
               "in step 1, %llu converging moves, %llu rounds",
               k == 0   ? ""
               : k == 1 ? " --converge"
                        : " --converge --flipped",
               threads_arg, runs, mm / 1000.0, cpu, plain_cpu > 0 ? cpu / plain_cpu : 0.0, hwm / 1024.0,
               loaded / 1024.0, load / 1000.0, npos, settled, conv, rounds);
        if (flipped_arg)
            printf(", %llu twins, %llu twin moves, %llu mirror edges", twins, fmoves, fedges);
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

int main(void) {
    shogi_init();
    bench_print_machine("bench_book_make");
    const char *env = getenv("BOOK_MAKE_BENCH_GAMES");
    long games = env ? atol(env) : 100000;
    env = getenv("BOOK_MAKE_BENCH_POSITIONS");
    long positions = env ? atol(env) : 12000000;
    if (games > 0 && bench_build(games) != 0)
        return 1;
    if (positions > 0 && bench_minimax(positions) != 0)
        return 1;
    return 0;
}
