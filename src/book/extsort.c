/* extsort.c - external merge sort of a DB2016 book; see extsort.h. */
#include "book/extsort.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"

/* What the run writer adds per position while it sorts (db2016_write_stream(): ids,
 * offsets, the SFEN arena that doubles, the merge sort's scratch), counted against the
 * memory with the IR itself. */
enum { RUN_WRITE_BYTES = 200, READ_MIN = 64 * 1024, READ_MAX = 8 << 20 };

typedef struct {
    uint64_t start, end; /* byte range in the run file */
} RunRange;

typedef struct {
    const ExtSortOptions *opt;
    char *err;
    size_t err_len;
    char *run_path; /* NULL until created */
    FILE *runf;
    RunRange *runs;
    size_t nruns;
    ExtSortStats *st;
} Sorter;

static bool create_runs(Sorter *s, const char *out) {
    const char *dir = s->opt->tmpdir;
    char outdir[4096];
    if (!dir) {
        const char *slash = strrchr(out, '/');
        size_t n = slash ? (size_t)(slash - out) : 0;
        if (n >= sizeof outdir)
            n = sizeof outdir - 1;
        memcpy(outdir, slash ? out : ".", slash ? n : 1);
        outdir[slash ? (n ? n : 1) : 1] = '\0';
        if (slash && !n)
            outdir[0] = '/';
        dir = outdir;
    }
    size_t len = strlen(dir) + 32;
    s->run_path = malloc(len);
    if (!s->run_path)
        return error_set(s->err, s->err_len, "out of memory");
    snprintf(s->run_path, len, "%s/.hayanagi-sort-XXXXXX", dir);
    sigset_t old;
    interrupt_block(&old);
    int fd = mkstemp(s->run_path);
    if (fd >= 0)
        interrupt_track_file(s->run_path);
    interrupt_unblock(&old);
    if (fd < 0) {
        error_set(s->err, s->err_len, "cannot create a temporary file in %s: %s", dir, strerror(errno));
        free(s->run_path);
        s->run_path = NULL;
        return false;
    }
    s->runf = fdopen(fd, "w+");
    if (!s->runf) {
        close(fd);
        return error_set(s->err, s->err_len, "%s: %s", s->run_path, strerror(errno));
    }
    return true;
}

static void remove_runs(Sorter *s) {
    if (s->runf)
        fclose(s->runf);
    s->runf = NULL;
    if (s->run_path) {
        unlink(s->run_path);
        interrupt_untrack_file(s->run_path);
        free(s->run_path);
        s->run_path = NULL;
    }
}

/* Writes chunk as the next run. */
static bool flush_run(Sorter *s, Book *chunk, const char *out) {
    if (!s->runf && !create_runs(s, out))
        return false;
    if (s->nruns == EXTSORT_MAX_RUNS)
        return error_set(s->err, s->err_len, "more than %d sorted runs: raise the memory", EXTSORT_MAX_RUNS);
    RunRange *r = realloc(s->runs, (s->nruns + 1) * sizeof *r);
    if (!r)
        return error_set(s->err, s->err_len, "out of memory");
    s->runs = r;
    Db2016WriteOptions wo = {.write_comments = s->opt->keep_comments, .as_read = true};
    off_t start = ftello(s->runf);
    if (!db2016_write_stream(s->runf, chunk, &wo, s->err, s->err_len))
        return false;
    if (fflush(s->runf) != 0 || ferror(s->runf))
        return error_set(s->err, s->err_len, "cannot write the sorted runs to %s: %s", s->run_path, strerror(errno));
    s->runs[s->nruns++] = (RunRange){(uint64_t)start, (uint64_t)ftello(s->runf)};
    book_clear(chunk);
    return true;
}

static uint64_t count_lines(const char *p, size_t n) {
    uint64_t k = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        k++;
    return k;
}

/* The last place in buf[0, len) where a line starting with "sfen " begins (after a line
 * end), 0 when none. */
static size_t last_entry_start(const char *buf, size_t len) {
    for (size_t i = len; i > 5; i--)
        if (buf[i - 6] == '\n' && memcmp(buf + i - 5, "sfen ", 5) == 0)
            return i - 5;
    return 0;
}

/* Pass 1: the input in stretches into chunk, flushed as runs when full. */
static bool make_runs(Sorter *s, const char *in, const char *out, Book *chunk) {
    int fd = open(in, O_RDONLY);
    if (fd < 0)
        return error_set(s->err, s->err_len, "%s: cannot open: %s", in, strerror(errno));
    struct stat sb;
    uint64_t size = fstat(fd, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    const ExtSortOptions *o = s->opt;
    size_t cap = (size_t)(o->memory / 8);
    cap = cap < READ_MIN ? READ_MIN : cap > READ_MAX ? READ_MAX : cap;
    char *buf = malloc(cap);
    size_t len = 0;
    uint64_t line = 1, consumed = 0;
    bool ok = buf != NULL, eof = false;
    if (!ok)
        error_set(s->err, s->err_len, "out of memory");
    if (o->progress)
        progress_start(o->progress, o->progress->out, "sort: runs", size, o->progress->quiet);
    while (ok && !(eof && len == 0)) {
        while (!eof && len < cap) {
            ssize_t n = read(fd, buf + len, cap - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                ok = error_set(s->err, s->err_len, "%s: read error: %s", in, strerror(errno));
                break;
            }
            eof = n == 0;
            len += (size_t)n;
        }
        if (!ok)
            break;
        size_t cut = eof ? len : last_entry_start(buf, len);
        if (!cut) { /* one entry longer than the buffer: a bigger buffer */
            char *b = cap * 2 <= ((size_t)1 << 32) ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                ok = error_set(s->err, s->err_len, "%s:%llu: an entry longer than %zu bytes", in,
                               (unsigned long long)line, cap);
                break;
            }
            buf = b;
            cap *= 2;
            continue;
        }
        Db2016ReadOptions ro = {.keep_comments = o->keep_comments,
                                .shogihome_columns = o->shogihome_columns,
                                .on_error = o->on_error,
                                .ctx = o->ctx,
                                .first_line = line};
        Db2016Stats ds;
        ok = db2016_read_memory(in, buf, cut, chunk, &ro, &ds, s->err, s->err_len);
        s->st->errors += ds.errors;
        s->st->had_header |= ds.had_header;
        line += count_lines(buf, cut);
        consumed += cut;
        memmove(buf, buf + cut, len - cut);
        len -= cut;
        if (o->progress)
            progress_update(o->progress, consumed);
        if (ok && book_memory_bytes(chunk) + book_position_count(chunk) * (uint64_t)RUN_WRITE_BYTES >= o->memory)
            ok = flush_run(s, chunk, out);
    }
    if (o->progress)
        progress_finish(o->progress);
    free(buf);
    close(fd);
    return ok;
}

/* ---- the merge ---- */

typedef struct {
    int fd;
    uint64_t pos, end; /* next byte to read, end of the run */
    char *buf;
    size_t cap, len, off;
    char *entry; /* the current entry's text (its sfen line first) */
    size_t elen, ecap;
    char *next; /* the sfen line read after it (the next entry's), owned */
    size_t nlen, ncap;
    bool has; /* entry holds an entry */
    char key[SFEN_MAX + 8];
} RunReader;

/* One line (its end included) into *line and *len; 0 at the end of the run, -1 on an error. */
static int run_line(RunReader *r, const char **line, size_t *len) {
    for (;;) {
        char *nl = r->off < r->len ? memchr(r->buf + r->off, '\n', r->len - r->off) : NULL;
        if (nl) {
            *line = r->buf + r->off;
            *len = (size_t)(nl - *line) + 1;
            r->off += *len;
            return 1;
        }
        if (r->pos == r->end) {
            if (r->off == r->len)
                return 0;
            *line = r->buf + r->off; /* runs end with a line end: not reached */
            *len = r->len - r->off;
            r->off = r->len;
            return 1;
        }
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
        if (r->len == r->cap) {
            char *b = realloc(r->buf, r->cap * 2);
            if (!b)
                return -1;
            r->buf = b;
            r->cap *= 2;
        }
        size_t want = r->cap - r->len;
        if (want > r->end - r->pos)
            want = (size_t)(r->end - r->pos);
        ssize_t n = pread(r->fd, r->buf + r->len, want, (off_t)r->pos);
        if (n <= 0)
            return -1;
        r->pos += (uint64_t)n;
        r->len += (size_t)n;
    }
}

static bool append(char **dst, size_t *len, size_t *cap, const char *p, size_t n) {
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < *len + n)
            c *= 2;
        char *d = realloc(*dst, c);
        if (!d)
            return false;
        *dst = d;
        *cap = c;
    }
    memcpy(*dst + *len, p, n);
    *len += n;
    return true;
}

/* Reads the run's next entry into r->entry and its key. Returns false on an error. */
static bool run_advance(RunReader *r) {
    r->elen = 0;
    r->has = false;
    const char *line;
    size_t len;
    int rc;
    if (r->nlen) {
        if (!append(&r->entry, &r->elen, &r->ecap, r->next, r->nlen))
            return false;
        r->nlen = 0;
    } else { /* the run's start: skip the header */
        while ((rc = run_line(r, &line, &len)) == 1 && !(len >= 5 && memcmp(line, "sfen ", 5) == 0))
            ;
        if (rc < 0)
            return false;
        if (rc == 0)
            return true;
        if (!append(&r->entry, &r->elen, &r->ecap, line, len))
            return false;
    }
    while ((rc = run_line(r, &line, &len)) == 1) {
        if (len >= 5 && memcmp(line, "sfen ", 5) == 0) {
            if (!append(&r->next, &r->nlen, &r->ncap, line, len))
                return false;
            break;
        }
        if (!append(&r->entry, &r->elen, &r->ecap, line, len))
            return false;
    }
    if (rc < 0)
        return false;
    /* the key: the sfen line without "sfen ", its move number and its line end */
    const char *s = r->entry + 5, *e = memchr(s, '\n', r->elen - 5);
    const char *sp = e;
    while (sp > s && sp[-1] != ' ')
        sp--;
    size_t klen = sp > s ? (size_t)(sp - s - 1) : 0;
    if (!e || !klen || klen >= sizeof r->key)
        return false;
    memcpy(r->key, s, klen);
    r->key[klen] = '\0';
    r->has = true;
    return true;
}

static bool merge_runs(Sorter *s, const char *out) {
    size_t k = s->nruns;
    RunReader *rr = calloc(k, sizeof *rr);
    Book *one = book_create();
    BookMoveList *list = malloc(sizeof *list);
    char *mbuf = NULL;
    size_t mlen = 0, mcap = 0;
    bool ok = rr && one && list;
    if (!ok)
        error_set(s->err, s->err_len, "out of memory");
    int fd = ok ? open(s->run_path, O_RDONLY) : -1;
    if (ok && fd < 0)
        ok = error_set(s->err, s->err_len, "%s: %s", s->run_path, strerror(errno));
    /* the read buffers share a quarter of the memory */
    size_t bufsize = (size_t)(s->opt->memory / 4 / (k ? k : 1));
    bufsize = bufsize < 4096 ? 4096 : bufsize > (1 << 20) ? (1 << 20) : bufsize;
    uint64_t total = 0;
    for (size_t i = 0; ok && i < k; i++) {
        rr[i] = (RunReader){.fd = fd, .pos = s->runs[i].start, .end = s->runs[i].end, .cap = bufsize};
        rr[i].buf = malloc(bufsize);
        total += s->runs[i].end - s->runs[i].start;
        if (!rr[i].buf || !run_advance(&rr[i]))
            ok = error_set(s->err, s->err_len, "%s: cannot read the sorted runs back", s->run_path);
    }
    AtomicFile af;
    bool opened = ok && atomic_file_open(&af, out, s->err, s->err_len);
    ok = opened;
    if (ok)
        fputs(DB2016_HEADER "\n", af.f);
    const ExtSortOptions *o = s->opt;
    if (o->progress)
        progress_start(o->progress, o->progress->out, "sort: merge", total, o->progress->quiet);
    uint64_t merged = 0;
    while (ok) {
        int best = -1;
        for (size_t i = 0; i < k; i++)
            if (rr[i].has && (best < 0 || strcmp(rr[i].key, rr[best].key) < 0))
                best = (int)i;
        if (best < 0)
            break;
        /* every run's entry of this position, in input order, read as one text */
        mlen = 0;
        char key[sizeof rr[0].key];
        memcpy(key, rr[best].key, sizeof key);
        for (size_t i = (size_t)best; ok && i < k; i++)
            if (rr[i].has && strcmp(rr[i].key, key) == 0) {
                merged += rr[i].elen;
                if (!append(&mbuf, &mlen, &mcap, rr[i].entry, rr[i].elen))
                    ok = error_set(s->err, s->err_len, "out of memory");
                else if (!run_advance(&rr[i]))
                    ok = error_set(s->err, s->err_len, "%s: cannot read the sorted runs back", s->run_path);
            }
        if (!ok)
            break;
        book_clear(one);
        Db2016ReadOptions ro = {.keep_comments = o->keep_comments};
        Db2016Stats ds;
        if (!db2016_read_memory(s->run_path, mbuf, mlen, one, &ro, &ds, s->err, s->err_len) ||
            book_position_count(one) != 1) {
            ok = error_set(s->err, s->err_len, "%s: a sorted run does not read back", s->run_path);
            break;
        }
        s->st->positions++;
        s->st->moves += book_move_count(one);
        s->st->has_stats |= book_has_stats(one);
        if (!db2016_write_entry(af.f, one, 0, key, o->keep_comments, false, list))
            ok = error_set(s->err, s->err_len, "corrupt key in the sorted runs");
        if (o->progress && (s->st->positions & 4095) == 0)
            progress_update(o->progress, merged);
        if (ok && interrupt_requested())
            ok = error_set(s->err, s->err_len, "interrupted");
    }
    if (o->progress)
        progress_finish(o->progress);
    if (opened) {
        if (ok)
            ok = atomic_file_commit(&af, s->err, s->err_len);
        else
            atomic_file_abort(&af);
    }
    for (size_t i = 0; rr && i < k; i++) {
        free(rr[i].buf);
        free(rr[i].entry);
        free(rr[i].next);
    }
    if (fd >= 0)
        close(fd);
    free(rr);
    free(mbuf);
    free(list);
    book_free(one);
    return ok;
}

bool book_extsort_db2016(const char *in, const char *out, const ExtSortOptions *opt, ExtSortStats *stats, char *err,
                         size_t err_len) {
    ExtSortStats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    ExtSortOptions o = *opt;
    if (o.memory < EXTSORT_MEMORY_MIN)
        o.memory = EXTSORT_MEMORY_MIN;
    Sorter s = {.opt = &o, .err = err, .err_len = err_len, .st = stats};
    Book *chunk = book_create();
    if (!chunk)
        return error_set(err, err_len, "out of memory");
    bool ok = make_runs(&s, in, out, chunk);
    if (ok && !s.nruns) { /* it all fitted: the in-memory sort */
        Db2016WriteOptions wo = {.write_comments = o.keep_comments};
        stats->positions = book_position_count(chunk);
        stats->moves = book_move_count(chunk);
        stats->has_stats = book_has_stats(chunk);
        ok = db2016_write_file(out, chunk, &wo, err, err_len);
    } else if (ok) {
        ok = book_position_count(chunk) == 0 || flush_run(&s, chunk, out);
        book_free(chunk);
        chunk = NULL;
        stats->runs = s.nruns;
        ok = ok && merge_runs(&s, out);
    }
    book_free(chunk);
    remove_runs(&s);
    free(s.runs);
    return ok;
}
