/* bench_sbk.c - SBK reader speed and memory on a synthetic book written by our own SBK
 * writer.
 *
 * The book (SBK_BENCH_POSITIONS positions, 1 000 000 by default) is made by
 * `hayanagi book gen-synthetic` (random playouts from the start position, 2-5 candidates
 * per position) as DB2016, converted to SBK with sbk_write_file(), and both are cached
 * under /tmp. One child process measures:
 *   - open (the index build: three or more passes over the file through the 4 MiB page
 *     cache): the median wall and CPU time of SBK_BENCH_OPENS opens (3 by default; CPU
 *     time is the steadier number on a shared machine), and the peak RSS growth of the
 *     first open over the process before it;
 *   - the index size per state;
 *   - median lookup (binary search plus a protobuf-c decode of the state) of positions
 *     sampled from the book, with the file in the OS page cache.
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
#include "book/sbk.h"
#include "cli/commands.h"
#include "common.h"

enum { LOOKUPS = 20000, MAX_OPENS = 15 };

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
}

static void child(const char *path, int opens) {
    long before = bench_status_kb("VmHWM:"), peak = 0;
    char err[256];
    SbkOpenStats st;
    SbkBook *b = NULL;
    double wall[MAX_OPENS], cpu[MAX_OPENS];
    for (int i = 0; i < opens; i++) {
        sbk_close(b);
        double t0 = bench_now_ms(), c0 = cpu_ms();
        b = sbk_open(path, NULL, &st, err, sizeof err);
        wall[i] = bench_now_ms() - t0, cpu[i] = cpu_ms() - c0;
        if (!b) {
            fprintf(stderr, "%s\n", err);
            _exit(1);
        }
        if (i == 0)
            peak = bench_status_kb("VmHWM:");
    }
    double open = bench_median(wall, opens), open_cpu = bench_median(cpu, opens);
    /* positions to probe: random indexed entries */
    char(*sfens)[SFEN_MAX] = malloc((size_t)LOOKUPS * SFEN_MAX);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < LOOKUPS; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        SbkEntry e;
        if (sbk_entry_at(b, s % sbk_indexed_count(b), &e, err, sizeof err) != 1)
            _exit(1);
        memcpy(sfens[i], e.sfen, SFEN_MAX);
        sbk_entry_clear(&e);
    }
    static double t[LOOKUPS];
    int hits = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        Position pos;
        StateInfo si;
        position_from_sfen(&pos, &si, sfens[i], NULL, 0);
        SbkEntry e;
        double a = bench_now_ms();
        hits += sbk_lookup_position(b, &pos, &e, err, sizeof err) == 1;
        t[i] = (bench_now_ms() - a) * 1000.0;
        sbk_entry_clear(&e);
    }
    double med = bench_median(t, LOOKUPS);
    printf("open      : median %.2f s wall, %.2f s CPU over %d opens; %llu states, %llu indexed, %llu passes\n",
           open / 1000.0, open_cpu / 1000.0, opens, (unsigned long long)st.states, (unsigned long long)st.indexed,
           (unsigned long long)st.passes);
    printf("peak RSS  : +%.1f MB during the open (%.1f bytes/state incl. the 4 MiB cache; process peak %.0f MB)\n",
           (double)(peak - before) / 1024.0, (double)(peak - before) * 1024.0 / (double)st.states,
           (double)peak / 1024.0);
    printf("index     : 38 bytes/state + 8 bytes per 16 states%s\n",
           st.ids_are_indices ? "" : " + 8 bytes/state (id map)");
    printf("lookup    : median %.2f us (%d/%d hits)\n", med, hits, LOOKUPS);
    fflush(stdout);
    sbk_close(b);
    _exit(0);
}

int main(void) {
    shogi_init();
    bench_print_machine("bench_sbk");
    const char *env = getenv("SBK_BENCH_POSITIONS");
    long n = env ? atol(env) : 1000000;
    char db[256], sbk[256];
    if (bench_synthetic_book(n, db, sizeof db) < 0)
        return 1;
    snprintf(sbk, sizeof sbk, "/tmp/hayanagi_bench_book_%ld.sbk", n);
    struct stat sb;
    if (stat(sbk, &sb) != 0) {
        printf("writing %s...\n", sbk);
        fflush(stdout);
        Book *b = book_create();
        char err[256];
        SbkWriteReport rep;
        double t0 = bench_now_ms();
        if (!db2016_read_file(db, b, NULL, NULL, err, sizeof err) ||
            !sbk_write_file(sbk, b, NULL, &rep, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        printf("written in %.1f s: %llu states, %llu moves, %llu roots\n", (bench_now_ms() - t0) / 1000.0,
               (unsigned long long)rep.states, (unsigned long long)rep.moves, (unsigned long long)rep.roots);
        book_free(b);
        stat(sbk, &sb);
    }
    printf("book %s: %.0f MB\n", sbk, (double)sb.st_size / 1e6);
    fflush(stdout);
    const char *opens_env = getenv("SBK_BENCH_OPENS");
    int opens = opens_env ? atoi(opens_env) : 3;
    opens = opens < 1 ? 1 : opens > MAX_OPENS ? MAX_OPENS : opens;
    pid_t pid = fork();
    if (pid == 0)
        child(sbk, opens);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
