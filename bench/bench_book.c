/* bench_book.c - opening-book speed and memory on a synthetic DB2016 book.
 *
 * The book (BOOK_BENCH_POSITIONS positions, 1 000 000 by default; the target
 * size is 12 000 000) is made by `hayanagi book gen-synthetic` (random playouts from the
 * start position, 2-5 candidates per position) and cached under /tmp. Each measurement
 * runs in a child process so that its peak RSS is its own:
 *   - in-memory load: time and peak RSS (targets for 12M: 20 s, 1.5 GB);
 *   - on-the-fly open: time and RSS growth (10 ms, 10 MB);
 *   - median lookup of positions in the book: in memory (2 us) and on the fly with the
 *     file in the page cache (50 us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "book/book.h"
#include "book/db2016.h"
#include "cli/commands.h"
#include "common.h"

enum { LOOKUPS = 20000 };

/* Positions to probe: decoded from random ids of a loaded book, as SFEN text. */
static char (*sample_sfens(const Book *b, int n))[SFEN_MAX] {
    char(*out)[SFEN_MAX] = malloc((size_t)n * SFEN_MAX);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; out && i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(b, (uint32_t)(s % book_position_count(b)), &k);
        book_key_to_position(&k, &pos, &st, 1);
        position_to_sfen(&pos, out[i], true);
    }
    return out;
}

static void child_memory(const char *path, int fd) {
    double t0 = bench_now_ms();
    Book *b = book_create();
    char err[256];
    if (!db2016_read_file(path, b, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    book_shrink(b);
    double load = bench_now_ms() - t0;
    char(*sfens)[SFEN_MAX] = sample_sfens(b, LOOKUPS);
    static double t[LOOKUPS];
    BookMoveList *list = malloc(sizeof *list);
    int hits = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        Position pos;
        StateInfo st;
        position_from_sfen(&pos, &st, sfens[i], NULL, 0);
        double a = bench_now_ms();
        hits += book_lookup(b, &pos, list);
        t[i] = (bench_now_ms() - a) * 1000.0;
    }
    double med = bench_median(t, LOOKUPS);
    dprintf(fd, "%ld %.1f %.3f %d %zu %zu %.1f\n", bench_status_kb("VmHWM:"), load, med, hits, book_position_count(b),
            book_memory_bytes(b), (double)book_memory_bytes(b) / (double)book_position_count(b));
    _exit(0);
}

static void child_otf(const char *path, int fd) {
    /* Sample positions first (this needs the book in memory), then forget it. */
    Book *b = book_create();
    char err[256];
    if (!db2016_read_file(path, b, NULL, NULL, err, sizeof err))
        _exit(1);
    char(*sfens)[SFEN_MAX] = sample_sfens(b, LOOKUPS);
    book_free(b);
    long before = bench_status_kb("VmRSS:"), anon_before = bench_status_kb("RssAnon:");
    double t0 = bench_now_ms();
    Db2016File *f = db2016_otf_open(path, err, sizeof err);
    double open = bench_now_ms() - t0;
    long after = bench_status_kb("VmRSS:");
    if (!f) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    static double t[LOOKUPS];
    BookMoveList *list = malloc(sizeof *list);
    int hits = 0;
    for (int pass = 0; pass < 2; pass++) /* the first pass warms the page cache */
        for (int i = 0; i < LOOKUPS; i++) {
            Position pos;
            StateInfo st;
            position_from_sfen(&pos, &st, sfens[i], NULL, 0);
            double a = bench_now_ms();
            int rc = db2016_otf_lookup(f, &pos, list, err, sizeof err);
            t[i] = (bench_now_ms() - a) * 1000.0;
            hits += pass == 1 && rc == 1;
        }
    double med = bench_median(t, LOOKUPS);
    long lookups_rss = bench_status_kb("RssAnon:") - anon_before + before;
    dprintf(fd, "%ld %.3f %ld %.3f %d %ld\n", bench_status_kb("VmHWM:"), open, after - before, med, hits,
            lookups_rss - before);
    db2016_otf_close(f);
    _exit(0);
}

int main(void) {
    shogi_init();
    bench_print_machine("bench_book");
    const char *env = getenv("BOOK_BENCH_POSITIONS");
    long n = env ? atol(env) : 1000000;
    char path[256];
    long long size = bench_synthetic_book(n, path, sizeof path);
    if (size < 0)
        return 1;
    printf("book %s: %.0f MB\n", path, (double)size / 1e6);
    char out[256];
    long rss;
    if (!bench_run_child(child_memory, path, out, sizeof out)) {
        fprintf(stderr, "in-memory run failed\n");
        return 1;
    }
    rss = atol(out); /* the child's VmHWM comes first */
    double load, med, per;
    int hits;
    size_t npos, bytes;
    sscanf(out, "%*d %lf %lf %d %zu %zu %lf", &load, &med, &hits, &npos, &bytes, &per);
    printf("in memory : load %.2f s, peak RSS %.0f MB, book %.0f MB (%.1f bytes/position), %zu positions\n",
           load / 1000.0, rss / 1024.0, (double)bytes / 1e6, per, npos);
    printf("            median lookup %.3f us (%d/%d hits)\n", med, hits, LOOKUPS);
    if (!bench_run_child(child_otf, path, out, sizeof out)) {
        fprintf(stderr, "on-the-fly run failed\n");
        return 1;
    }
    double open;
    long open_rss, lookups_rss;
    sscanf(out, "%*d %lf %ld %lf %d %ld", &open, &open_rss, &med, &hits, &lookups_rss);
    printf("on the fly: open %.3f ms, RSS +%ld kB at open; private memory +%.1f MB after %d lookups (the file's\n"
           "            pages they touch count as shared page cache)\n",
           open, open_rss, lookups_rss / 1024.0, 2 * LOOKUPS);
    printf("            median lookup %.3f us in page cache (%d/%d hits)\n", med, hits, LOOKUPS);
    return 0;
}
