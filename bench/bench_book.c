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
 *
 * BOOK_BENCH_FILE=PATH instead probes an existing sorted DB2016 file on the fly without
 * ever loading it (a 10^8-position book is 15 GB of text): in the child, the reader's open
 * (time, RSS growth), then LOOKUPS positions in the book and LOOKUPS absent from it taken
 * from pseudo-random byte offsets. Each offset costs one pread of PROBE_CHUNK (8 KiB,
 * readahead off): the first whole sfen line after it is a present position (so an entry
 * is drawn with probability proportional to the size of the entry before it: positions
 * after long entries come up more often; the duplicates this gives are kept), and its
 * first move line, when the stretch holds it, must be among the moves the lookup returns.
 * An absent position is the first sfen line X of the stretch with black to move whose
 * flip to white is a legal position sorting before the next sfen line Y: a sorted file
 * has nothing between neighbours, so the flip is absent without asking the reader. (The
 * ply is no part of the key, so changing it would not make a position absent.) The first
 * probe is timed right after its one read, while little of the file is mapped; then two
 * passes over all probes, present and absent alternating, report medians and 99th
 * percentiles, with each phase's major page faults and bytes read from storage (so that
 * a cold figure says how cold it was); peak RSS and the file pages mapped at the end
 * (shared page cache) close.
 * Every present position must be found with its move and no absent one, or the run exits
 * 1: a check of the reader, not of its speed. The share of the file in the page cache is
 * printed first (mincore); BOOK_BENCH_COLD=1 asks the kernel to drop the file's pages
 * (posix_fadvise DONTNEED, before the run and after the sampling) so that the first
 * probe and pass 1 read what they need (from the disk, or a virtual disk's host cache).
 */
#define _DEFAULT_SOURCE /* mincore() */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

/* ---- an existing sorted file, probed on the fly and never loaded (BOOK_BENCH_FILE) ---- */

enum { PROBE_CHUNK = 8192, PROBE_MAX_DRAWS = 20 * LOOKUPS };

/* What one random offset yields. */
typedef struct {
    char present[SFEN_MAX]; /* the first whole sfen line after the offset, canonical, with its ply; "" if none */
    Move16 first_move;      /* its first move line's move; MOVE_NONE when the stretch holds none */
    char absent[SFEN_MAX];  /* a position sorting strictly between two neighbouring sfen lines; "" if none */
} ProbeDraw;

/* The next whole line of buf from *at: [*s, *e) without its line end, *at moved past it.
 * False when none is left (the stretch cuts the last one off unless it ends the file). */
static bool next_line(const char *buf, size_t len, bool eof, size_t *at, size_t *s, size_t *e) {
    if (*at >= len)
        return false;
    const char *nl = memchr(buf + *at, '\n', len - *at);
    if (!nl && !eof)
        return false;
    *s = *at;
    *e = nl ? (size_t)(nl - buf) : len;
    *at = *e + 1;
    if (*e > *s && buf[*e - 1] == '\r')
        (*e)--;
    return true;
}

/* The sfen line [s, e) as a position: its canonical key (no ply) into key and, with the
 * ply, into full. False when it is no sfen line or does not parse. */
static bool sfen_line(const char *buf, size_t s, size_t e, char *key, char *full) {
    if (e - s < 5 || memcmp(buf + s, "sfen ", 5) != 0 || e - s - 5 >= SFEN_MAX)
        return false;
    char text[SFEN_MAX];
    memcpy(text, buf + s + 5, e - s - 5);
    text[e - s - 5] = '\0';
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, text, NULL, 0))
        return false;
    position_to_sfen(&pos, key, false);
    position_to_sfen(&pos, full, true);
    return true;
}

/* key (black to move) with white to move instead, into out with ply: false when that is
 * no legal position (black would stand in check with white to move). */
static bool flip_to_white(const char *key, int ply, char *out) {
    const char *side = strchr(key, ' ');
    if (!side || strncmp(side, " b ", 3) != 0)
        return false;
    char text[SFEN_MAX + 16];
    snprintf(text, sizeof text, "%.*s w %s %d", (int)(side - key), key, side + 3, ply + 1);
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, text, NULL, 0) || !position_legality_report(&pos, NULL, 0))
        return false;
    position_to_sfen(&pos, out, true);
    return true;
}

/* Reads PROBE_CHUNK bytes from off - 1 (one pread, the only read) and takes the first
 * whole sfen line starting after off - 1 as the present position. For the absent one it
 * walks the sfen lines from there: the first X with black to move whose flip to white is
 * legal and sorts before the next sfen line Y is absent from a sorted file (X < flip(X)
 * as "b" < "w" after the same board, and nothing lies between neighbours), which needs
 * no lookup to know. */
static void probe_draw(int fd, uint64_t size, uint64_t off, char *buf, ProbeDraw *d) {
    d->present[0] = d->absent[0] = '\0';
    d->first_move = MOVE_NONE;
    uint64_t from = off ? off - 1 : 0;
    ssize_t got = pread(fd, buf, PROBE_CHUNK, (off_t)from);
    if (got <= 0)
        return;
    size_t len = (size_t)got, at = 0, s, e;
    bool eof = from + len >= size;
    if (off) {
        const char *nl = memchr(buf, '\n', len);
        if (!nl)
            return;
        at = (size_t)(nl - buf) + 1;
    }
    char key[SFEN_MAX], full[SFEN_MAX], cand_key[SFEN_MAX] = "", cand[SFEN_MAX] = "";
    bool first = true, moves_of_first = false;
    while (next_line(buf, len, eof, &at, &s, &e)) {
        bool is_sfen = e - s >= 5 && memcmp(buf + s, "sfen ", 5) == 0;
        if (!is_sfen) {
            BookMove m;
            if (moves_of_first && d->first_move == MOVE_NONE && e > s && buf[s] != '#' && buf[s] != '/' &&
                db2016_parse_move_line(buf + s, e - s, false, &m, NULL, NULL, 0))
                d->first_move = m.move;
            continue;
        }
        moves_of_first = false;
        bool parsed = sfen_line(buf, s, e, key, full);
        if (first) {
            first = false;
            if (!parsed)
                return; /* this offset's position does not parse: no draw */
            strcpy(d->present, full);
            moves_of_first = true;
        }
        if (cand[0] && parsed && strcmp(cand_key, key) < 0) {
            strcpy(d->absent, cand);
            return;
        }
        cand[0] = '\0';
        Position pos;
        StateInfo st;
        if (parsed && position_from_sfen(&pos, &st, full, NULL, 0) && flip_to_white(key, pos.ply, cand)) {
            position_from_sfen(&pos, &st, cand, NULL, 0);
            position_to_sfen(&pos, cand_key, false);
        }
    }
}

/* One timed lookup of sfen: microseconds into *us; the reader's answer. */
static int timed_lookup(const Db2016File *f, const char *sfen, BookMoveList *list, double *us) {
    Position pos;
    StateInfo st;
    char err[256];
    position_from_sfen(&pos, &st, sfen, NULL, 0);
    double a = bench_now_ms();
    int rc = db2016_otf_lookup(f, &pos, list, err, sizeof err);
    *us = (bench_now_ms() - a) * 1000.0;
    if (rc < 0) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    return rc;
}

static bool lists_move(const BookMoveList *l, Move16 m) {
    for (int i = 0; i < l->n; i++)
        if (l->moves[i].move == m)
            return true;
    return m == MOVE_NONE;
}

/* What this process has read from storage so far: major page faults, and bytes the block
 * layer fetched for it (/proc/self/io read_bytes; -1 when the kernel does not count it). */
typedef struct {
    long major_faults;
    long long read_bytes;
} ProbeIo;

static ProbeIo probe_io(void) {
    ProbeIo io = {0, -1};
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        io.major_faults = ru.ru_majflt;
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "read_bytes:", 11) == 0)
            io.read_bytes = atoll(line + 11);
    if (f)
        fclose(f);
    return io;
}

/* " (N major faults, X MB read from storage)" for what happened since a. */
static const char *io_since(ProbeIo a, char *buf, size_t len) {
    ProbeIo b = probe_io();
    if (a.read_bytes < 0 || b.read_bytes < 0)
        snprintf(buf, len, "%ld major faults", b.major_faults - a.major_faults);
    else
        snprintf(buf, len, "%ld major faults, %.1f MB read from storage", b.major_faults - a.major_faults,
                 (double)(b.read_bytes - a.read_bytes) / 1e6);
    return buf;
}

/* Appends to the report (what the child sends back in one write). */
static void say(char *r, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *r, size_t len, const char *fmt, ...) {
    size_t n = strlen(r);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r + n, len - n, fmt, ap);
    va_end(ap);
}

static void child_file(const char *path, int fd) {
    char err[256], report[3000] = "";
    int in = open(path, O_RDONLY);
    struct stat sb;
    char *chunk = malloc(PROBE_CHUNK);
    char(*present)[SFEN_MAX] = malloc((size_t)LOOKUPS * SFEN_MAX);
    char(*absent)[SFEN_MAX] = malloc((size_t)LOOKUPS * SFEN_MAX);
    Move16 *first_move = malloc(LOOKUPS * sizeof *first_move);
    double *t = malloc(4 * LOOKUPS * sizeof *t); /* present and absent, two passes */
    BookMoveList *list = malloc(sizeof *list);
    if (in < 0 || fstat(in, &sb) != 0 || sb.st_size <= 0 || !chunk || !present || !absent || !first_move || !t ||
        !list) {
        fprintf(stderr, "%s: cannot read, or empty, or out of memory\n", path);
        _exit(1);
    }
    uint64_t size = (uint64_t)sb.st_size;
    posix_fadvise(in, 0, 0, POSIX_FADV_RANDOM); /* no readahead: the sampling reads only its stretches */
    bool cold = getenv("BOOK_BENCH_COLD") != NULL;
    long before = bench_status_kb("VmRSS:"), anon_before = bench_status_kb("RssAnon:");
    double t0 = bench_now_ms();
    Db2016File *f = db2016_otf_open(path, err, sizeof err);
    double open_ms = bench_now_ms() - t0;
    long after = bench_status_kb("VmRSS:"), anon_after = bench_status_kb("RssAnon:");
    if (!f) {
        fprintf(stderr, "%s\n", err);
        _exit(1);
    }
    say(report, sizeof report,
        "on the fly: open %.3f ms, RSS +%ld kB at open, of which private +%ld kB (the rest: the reader's code,\n"
        "            run for the first time in this process)\n",
        open_ms, after - before, anon_after - anon_before);

    uint64_t s = 88172645463325252ull;
    int np = 0, na = 0, draws = 0;
    double first_us = 0, sampling_ms = 0;
    char iobuf[96], pass_io[2][96];
    double pass_s[2];
    ProbeIo sampling_io = probe_io();
    t0 = bench_now_ms();
    while ((np < LOOKUPS || na < LOOKUPS) && draws < PROBE_MAX_DRAWS) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ProbeDraw d;
        probe_draw(in, size, s % size, chunk, &d);
        draws++;
        if (d.present[0] && np < LOOKUPS) {
            strcpy(present[np], d.present);
            first_move[np++] = d.first_move;
            if (np == 1) { /* the first probe, before the sampling reads touch much of the file */
                sampling_ms -= bench_now_ms() - t0;
                double again_us;
                ProbeIo io = probe_io();
                int rc = timed_lookup(f, present[0], list, &first_us);
                io_since(io, iobuf, sizeof iobuf);
                timed_lookup(f, present[0], list, &again_us);
                sampling_ms += bench_now_ms() - t0;
                say(report, sizeof report,
                    "            first probe %.1f us (%s; %s; after one %d-byte read for its position), the same "
                    "again %.1f us\n",
                    first_us, rc == 1 ? "found" : "NOT FOUND", iobuf, PROBE_CHUNK, again_us);
            }
        }
        if (d.absent[0] && na < LOOKUPS)
            strcpy(absent[na++], d.absent);
    }
    sampling_ms += bench_now_ms() - t0;
    io_since(sampling_io, iobuf, sizeof iobuf); /* the first probe's included */
    if (cold) /* pass 1 then finds in the page cache only what the probes themselves read */
        posix_fadvise(in, 0, 0, POSIX_FADV_DONTNEED);
    if (np < LOOKUPS || na < LOOKUPS) {
        fprintf(stderr, "%s: only %d present and %d absent positions from %d random offsets\n", path, np, na, draws);
        _exit(1);
    }
    say(report, sizeof report,
        "            sampled %d present + %d absent positions from %d random offsets (one %d-byte pread each) in "
        "%.2f s (%s)\n",
        np, na, draws, PROBE_CHUNK, sampling_ms / 1000.0, iobuf);

    int found = 0, moves_ok = 0, false_hits = 0;
    for (int pass = 0; pass < 2; pass++) {
        double *tp = t + (2 * pass) * LOOKUPS, *ta = t + (2 * pass + 1) * LOOKUPS;
        ProbeIo io = probe_io();
        double pass_t0 = bench_now_ms();
        /* Present and absent alternate; an absent position comes from a draw half the list
         * away, so that it does not find the pages its present neighbour just read. */
        for (int i = 0; i < LOOKUPS; i++) {
            if (timed_lookup(f, present[i], list, &tp[i]) == 1) {
                found++;
                moves_ok += lists_move(list, first_move[i]);
            }
            false_hits += timed_lookup(f, absent[(i + LOOKUPS / 2) % LOOKUPS], list, &ta[i]) != 0;
        }
        pass_s[pass] = (bench_now_ms() - pass_t0) / 1000.0;
        io_since(io, pass_io[pass], sizeof pass_io[pass]);
    }
    for (int pass = 0; pass < 2; pass++) {
        double *tp = t + (2 * pass) * LOOKUPS, *ta = t + (2 * pass + 1) * LOOKUPS;
        double pm = bench_median(tp, LOOKUPS), p99 = bench_percentile(tp, LOOKUPS, 99);
        double am = bench_median(ta, LOOKUPS), a99 = bench_percentile(ta, LOOKUPS, 99);
        say(report, sizeof report,
            "            pass %d: present median %.2f us, p99 %.2f us; absent median %.2f us, p99 %.2f us\n"
            "                    (%s; %.2f s with the parsing; %s)\n",
            pass + 1, pm, p99, am, a99,
            pass   ? "its pages cached by pass 1"
            : cold ? "the file dropped from the page cache after sampling"
                   : "the sampled stretches in the page cache",
            pass_s[pass], pass_io[pass]);
    }
    say(report, sizeof report,
        "            over both passes: found %d/%d present (%d with the entry's first move), %d/%d absent\n", found,
        2 * LOOKUPS, moves_ok, false_hits, 2 * LOOKUPS);
    say(report, sizeof report,
        "            peak RSS %.1f MB; at the end %.1f MB of the file's pages mapped (page cache, shared), %.1f MB "
        "private\n",
        bench_status_kb("VmHWM:") / 1024.0, bench_status_kb("RssFile:") / 1024.0, bench_status_kb("RssAnon:") / 1024.0);
    if (write(fd, report, strlen(report)) < 0)
        _exit(1);
    db2016_otf_close(f);
    _exit(found == 2 * LOOKUPS && moves_ok == 2 * LOOKUPS && false_hits == 0 ? 0 : 3);
}

/* Share of path's pages in the page cache (mincore over a mapping that touches none),
 * -1 when it cannot be told. */
static double cached_share(const char *path, uint64_t size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)((size + (uint64_t)page - 1) / (uint64_t)page);
    void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = malloc(pages);
    double share = -1;
    if (map != MAP_FAILED && vec && mincore(map, size, vec) == 0) {
        size_t in = 0;
        for (size_t i = 0; i < pages; i++)
            in += vec[i] & 1;
        share = 100.0 * (double)in / (double)pages;
    }
    free(vec);
    if (map != MAP_FAILED)
        munmap(map, size);
    close(fd);
    return share;
}

static int bench_file(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
        fprintf(stderr, "bench_book: BOOK_BENCH_FILE=%s: not a readable non-empty file\n", path);
        return 1;
    }
    uint64_t size = (uint64_t)sb.st_size;
    bench_print_load("at start");
    if (getenv("BOOK_BENCH_COLD")) {
        int fd = open(path, O_RDONLY);
        if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
            fprintf(stderr, "bench_book: %s: cannot drop it from the page cache\n", path);
        if (fd >= 0)
            close(fd);
    }
    printf("book %s: %llu bytes (%.2f GB), %.1f%% of its pages in the page cache at start%s\n", path,
           (unsigned long long)size, (double)size / 1e9, cached_share(path, size),
           getenv("BOOK_BENCH_COLD") ? " (after asking the kernel to drop them: BOOK_BENCH_COLD)" : "");
    char out[4096];
    bool ok = bench_run_child(child_file, path, out, sizeof out);
    fputs(out, stdout);
    bench_print_load("at end");
    if (!ok) {
        fprintf(stderr, "bench_book: the on-the-fly run failed or missed (see above)\n");
        return 1;
    }
    return 0;
}

int main(void) {
    shogi_init();
    bench_print_machine("bench_book");
    const char *file = getenv("BOOK_BENCH_FILE");
    if (file)
        return bench_file(file);
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
