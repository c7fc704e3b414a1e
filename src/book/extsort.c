/* extsort.c - external merge sort of DB2016 books; see extsort.h. */
#include "book/extsort.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shogi/position.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/sort.h"
#include "util/temp_file.h"

/* What the run writer adds per position while it sorts (db2016_write_stream(): ids,
 * offsets, the SFEN arena that doubles, the merge sort's scratch), counted against the
 * memory with the IR itself. */
enum { RUN_WRITE_BYTES = 200, READ_MIN = 64 * 1024, READ_MAX = 8 << 20 };

typedef struct {
    uint64_t start, end; /* byte range in the run file */
    int stream;
} RunRange;

/* One run read entry by entry during the merge. */
typedef struct {
    int fd, stream;
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

/* The text of one stream's entries of the current position, and its IR. */
typedef struct {
    char *text;
    size_t len, cap;
    Book *one;
} StreamSlot;

struct ExtSort {
    ExtSortOptions o; /* memory raised to EXTSORT_MEMORY_MIN */
    const char *near;
    TempFile tf;
    RunRange *runs;
    size_t nruns;
    int nstreams;
    Book *chunk; /* the IR being filled, of stream nstreams - 1 */
    uint64_t errors;
    bool had_header, finished;
    /* one stream that fitted: its positions in SFEN order */
    bool in_memory;
    uint32_t *ids;
    size_t nids, next_id;
    char *arena;
    uint64_t *offset;
    /* the merge */
    RunReader *rr;
    int fd;
    StreamSlot *slots;
    ExtSortEntry *entries;
    char key[SFEN_MAX + 8];
    uint64_t total, merged, handed;
};

ExtSort *extsort_open(const ExtSortOptions *opt, const char *near) {
    ExtSort *es = calloc(1, sizeof *es);
    if (!es)
        return NULL;
    es->o = *opt;
    if (es->o.memory < EXTSORT_MEMORY_MIN)
        es->o.memory = EXTSORT_MEMORY_MIN;
    if (!es->o.label)
        es->o.label = "sort";
    es->near = near;
    es->fd = -1;
    es->chunk = book_create();
    if (!es->chunk) {
        free(es);
        return NULL;
    }
    return es;
}

/* Writes the chunk as the next run (of the last stream). */
static bool flush_run(ExtSort *es, char *err, size_t err_len) {
    if (!es->tf.f && !temp_file_create(&es->tf, es->o.tmpdir, es->near, err, err_len))
        return false;
    if (es->nruns == EXTSORT_MAX_RUNS)
        return error_set(err, err_len, "more than %d sorted runs: raise the memory", EXTSORT_MAX_RUNS);
    RunRange *r = realloc(es->runs, (es->nruns + 1) * sizeof *r);
    if (!r)
        return error_set(err, err_len, "out of memory");
    es->runs = r;
    Db2016WriteOptions wo = {.write_comments = es->o.keep_comments, .as_read = true};
    off_t start = ftello(es->tf.f);
    if (!db2016_write_stream(es->tf.f, es->chunk, &wo, err, err_len))
        return false;
    if (fflush(es->tf.f) != 0 || ferror(es->tf.f))
        return error_set(err, err_len, "cannot write the sorted runs to %s: %s", es->tf.path, strerror(errno));
    es->runs[es->nruns++] = (RunRange){(uint64_t)start, (uint64_t)ftello(es->tf.f), es->nstreams - 1};
    book_clear(es->chunk);
    return true;
}

static bool chunk_full(const ExtSort *es) {
    return book_memory_bytes(es->chunk) + book_position_count(es->chunk) * (uint64_t)RUN_WRITE_BYTES >= es->o.memory;
}

/* A stream's remaining IR goes to disk before the next stream starts. */
static bool new_stream(ExtSort *es, char *err, size_t err_len) {
    if (es->finished)
        return error_set(err, err_len, "the sort was finished");
    if (book_position_count(es->chunk) && !flush_run(es, err, err_len))
        return false;
    es->nstreams++;
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

bool extsort_add_file(ExtSort *es, const char *in, char *err, size_t err_len) {
    if (!new_stream(es, err, err_len))
        return false;
    int fd = open(in, O_RDONLY);
    if (fd < 0)
        return error_set(err, err_len, "%s: cannot open: %s", in, strerror(errno));
    struct stat sb;
    uint64_t size = fstat(fd, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    const ExtSortOptions *o = &es->o;
    size_t cap = (size_t)(o->memory / 8);
    cap = cap < READ_MIN ? READ_MIN : cap > READ_MAX ? READ_MAX : cap;
    char *buf = malloc(cap);
    size_t len = 0;
    uint64_t line = 1, consumed = 0;
    bool ok = buf != NULL, eof = false;
    if (!ok)
        error_set(err, err_len, "out of memory");
    if (o->progress) {
        char label[48];
        snprintf(label, sizeof label, es->nstreams > 1 ? "%s: runs (%d)" : "%s: runs", o->label, es->nstreams);
        progress_start(o->progress, o->progress->out, label, size, o->progress->quiet);
    }
    while (ok && !(eof && len == 0)) {
        while (!eof && len < cap) {
            ssize_t n = read(fd, buf + len, cap - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                ok = error_set(err, err_len, "%s: read error: %s", in, strerror(errno));
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
                ok = error_set(err, err_len, "%s:%llu: an entry longer than %zu bytes", in, (unsigned long long)line,
                               cap);
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
        ok = db2016_read_memory(in, buf, cut, es->chunk, &ro, &ds, err, err_len);
        es->errors += ds.errors;
        es->had_header |= ds.had_header;
        line += count_lines(buf, cut);
        consumed += cut;
        memmove(buf, buf + cut, len - cut);
        len -= cut;
        if (o->progress)
            progress_update(o->progress, consumed);
        if (ok && chunk_full(es))
            ok = flush_run(es, err, err_len);
        if (ok && interrupt_requested())
            ok = error_set(err, err_len, "interrupted");
    }
    if (o->progress)
        progress_finish(o->progress);
    free(buf);
    close(fd);
    return ok;
}

bool extsort_add_position(ExtSort *es, const BookKey *key, int ply, char *err, size_t err_len) {
    if (!es->nstreams && !new_stream(es, err, err_len))
        return false;
    uint32_t id;
    if (!book_add_position(es->chunk, key, ply, &id))
        return error_set(err, err_len, "out of memory");
    return !chunk_full(es) || flush_run(es, err, err_len);
}

/* ---- one stream in memory ---- */

typedef struct {
    const char *arena;
    const uint64_t *offset;
} SfenOrder;

static int cmp_sfen_ids(const void *ctx, uint32_t a, uint32_t b) {
    const SfenOrder *o = ctx;
    return strcmp(o->arena + o->offset[a], o->arena + o->offset[b]);
}

/* The chunk's positions in the writer's order (db2016_write_stream()). */
static bool order_memory(ExtSort *es, char *err, size_t err_len) {
    size_t n = book_position_count(es->chunk), cap = n * 96 + SFEN_MAX, len = 0;
    es->ids = malloc((n ? n : 1) * sizeof *es->ids);
    es->offset = malloc((n ? n : 1) * sizeof *es->offset);
    es->arena = malloc(cap);
    es->entries = calloc(1, sizeof *es->entries);
    if (!es->ids || !es->offset || !es->arena || !es->entries)
        return error_set(err, err_len, "out of memory");
    for (uint32_t id = 0; id < n; id++) {
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(es->chunk, id, &key);
        if (!book_key_to_position(&key, &pos, &st, 1))
            return error_set(err, err_len, "position %u: corrupt key", id);
        if (len + SFEN_MAX > cap) {
            char *a = realloc(es->arena, cap * 2);
            if (!a)
                return error_set(err, err_len, "out of memory");
            es->arena = a;
            cap *= 2;
        }
        position_to_sfen(&pos, es->arena + len, false);
        es->offset[id] = len;
        len += strlen(es->arena + len) + 1;
        es->ids[id] = id;
    }
    es->nids = n;
    SfenOrder order = {es->arena, es->offset};
    if (!sort_ids(es->ids, n, cmp_sfen_ids, &order))
        return error_set(err, err_len, "out of memory");
    return true;
}

/* ---- the merge ---- */

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

static bool start_merge(ExtSort *es, char *err, size_t err_len) {
    size_t k = es->nruns;
    int ns = es->nstreams ? es->nstreams : 1;
    es->rr = calloc(k ? k : 1, sizeof *es->rr);
    es->slots = calloc((size_t)ns, sizeof *es->slots);
    es->entries = calloc((size_t)ns, sizeof *es->entries);
    if (!es->rr || !es->slots || !es->entries)
        return error_set(err, err_len, "out of memory");
    for (int s = 0; s < ns; s++)
        if (!(es->slots[s].one = book_create()))
            return error_set(err, err_len, "out of memory");
    if (!k)
        return true;
    es->fd = fileno(es->tf.f); /* read with pread; the run file has no name */
    /* the read buffers share a quarter of the memory */
    size_t bufsize = (size_t)(es->o.memory / 4 / k);
    bufsize = bufsize < 4096 ? 4096 : bufsize > (1 << 20) ? (1 << 20) : bufsize;
    for (size_t i = 0; i < k; i++) {
        es->rr[i] = (RunReader){.fd = es->fd,
                                .stream = es->runs[i].stream,
                                .pos = es->runs[i].start,
                                .end = es->runs[i].end,
                                .cap = bufsize};
        es->rr[i].buf = malloc(bufsize);
        es->total += es->runs[i].end - es->runs[i].start;
        if (!es->rr[i].buf || !run_advance(&es->rr[i]))
            return error_set(err, err_len, "%s: cannot read the sorted runs back", es->tf.path);
    }
    if (es->o.progress) {
        char label[48];
        snprintf(label, sizeof label, "%s: merge", es->o.label);
        progress_start(es->o.progress, es->o.progress->out, label, es->total, es->o.progress->quiet);
    }
    return true;
}

bool extsort_finish(ExtSort *es, char *err, size_t err_len) {
    if (es->finished)
        return error_set(err, err_len, "the sort was finished");
    es->finished = true;
    if (es->nstreams <= 1 && !es->nruns) {
        es->in_memory = true;
        return order_memory(es, err, err_len);
    }
    if (book_position_count(es->chunk) && !flush_run(es, err, err_len))
        return false;
    book_free(es->chunk);
    es->chunk = NULL;
    if (es->tf.f && (fflush(es->tf.f) != 0 || ferror(es->tf.f)))
        return error_set(err, err_len, "cannot write the sorted runs to %s: %s", es->tf.path, strerror(errno));
    return start_merge(es, err, err_len);
}

static int next_merged(ExtSort *es, const char **key, const ExtSortEntry **entries, char *err, size_t err_len) {
    size_t k = es->nruns;
    int best = -1;
    for (size_t i = 0; i < k; i++)
        if (es->rr[i].has && (best < 0 || strcmp(es->rr[i].key, es->rr[best].key) < 0))
            best = (int)i;
    if (best < 0) {
        if (es->o.progress && es->total) {
            progress_update(es->o.progress, es->merged);
            progress_finish(es->o.progress);
            es->total = 0;
        }
        return 0;
    }
    memcpy(es->key, es->rr[best].key, sizeof es->key);
    int ns = es->nstreams ? es->nstreams : 1;
    for (int s = 0; s < ns; s++)
        es->slots[s].len = 0;
    /* every run's entry of this position, in input order, one text per stream */
    for (size_t i = (size_t)best; i < k; i++) {
        RunReader *r = &es->rr[i];
        if (!r->has || strcmp(r->key, es->key) != 0)
            continue;
        StreamSlot *sl = &es->slots[r->stream];
        es->merged += r->elen;
        if (!append(&sl->text, &sl->len, &sl->cap, r->entry, r->elen))
            return error_set(err, err_len, "out of memory"), -1;
        if (!run_advance(r))
            return error_set(err, err_len, "%s: cannot read the sorted runs back", es->tf.path), -1;
    }
    for (int s = 0; s < ns; s++) {
        StreamSlot *sl = &es->slots[s];
        es->entries[s] = (ExtSortEntry){NULL, 0};
        if (!sl->len)
            continue;
        book_clear(sl->one);
        Db2016ReadOptions ro = {.keep_comments = es->o.keep_comments};
        Db2016Stats ds;
        if (!db2016_read_memory(es->tf.path, sl->text, sl->len, sl->one, &ro, &ds, err, err_len) ||
            book_position_count(sl->one) != 1)
            return error_set(err, err_len, "%s: a sorted run does not read back", es->tf.path), -1;
        es->entries[s] = (ExtSortEntry){sl->one, 0};
    }
    if (es->o.progress && (++es->handed & 4095) == 0)
        progress_update(es->o.progress, es->merged);
    *key = es->key;
    *entries = es->entries;
    return 1;
}

int extsort_next(ExtSort *es, const char **key, const ExtSortEntry **entries, char *err, size_t err_len) {
    if (!es->finished)
        return error_set(err, err_len, "the sort is not finished"), -1;
    if (interrupt_requested())
        return error_set(err, err_len, "interrupted"), -1;
    if (!es->in_memory)
        return next_merged(es, key, entries, err, err_len);
    if (es->next_id == es->nids)
        return 0;
    uint32_t id = es->ids[es->next_id++];
    es->entries[0] = (ExtSortEntry){es->chunk, id};
    *key = es->arena + es->offset[id];
    *entries = es->entries;
    return 1;
}

const Book *extsort_memory_book(const ExtSort *es) { return es->finished && es->in_memory ? es->chunk : NULL; }

uint64_t extsort_runs(const ExtSort *es) { return es->nruns; }

uint64_t extsort_errors(const ExtSort *es) { return es->errors; }

bool extsort_had_header(const ExtSort *es) { return es->had_header; }

void extsort_close(ExtSort *es) {
    if (!es)
        return;
    if (es->o.progress && es->total)
        progress_finish(es->o.progress);
    for (size_t i = 0; es->rr && i < es->nruns; i++) {
        free(es->rr[i].buf);
        free(es->rr[i].entry);
        free(es->rr[i].next);
    }
    int ns = es->nstreams ? es->nstreams : 1;
    for (int s = 0; es->slots && s < ns; s++) {
        free(es->slots[s].text);
        book_free(es->slots[s].one);
    }
    temp_file_remove(&es->tf);
    free(es->rr);
    free(es->slots);
    free(es->entries);
    free(es->runs);
    free(es->ids);
    free(es->offset);
    free(es->arena);
    book_free(es->chunk);
    free(es);
}

struct ExtSortReader {
    RunReader r;
    const char *path;
};

ExtSortReader *extsort_reader_open(int fd, const char *path, size_t bufsize, char *err, size_t err_len) {
    ExtSortReader *x = calloc(1, sizeof *x);
    if (!x) {
        error_set(err, err_len, "out of memory");
        return NULL;
    }
    if (bufsize < 4096)
        bufsize = 4096;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        error_set(err, err_len, "%s: %s", path, strerror(errno));
        free(x);
        return NULL;
    }
    x->path = path;
    x->r = (RunReader){.fd = fd, .pos = 0, .end = (uint64_t)sb.st_size, .cap = bufsize};
    if (!(x->r.buf = malloc(bufsize))) {
        error_set(err, err_len, "out of memory");
        extsort_reader_close(x);
        return NULL;
    }
    return x;
}

int extsort_reader_next(ExtSortReader *x, const char **key, const char **text, size_t *len, char *err, size_t err_len) {
    if (!run_advance(&x->r))
        return error_set(err, err_len, "%s: cannot read an entry back", x->path), -1;
    if (!x->r.has)
        return 0;
    *key = x->r.key;
    *text = x->r.entry;
    *len = x->r.elen;
    return 1;
}

uint64_t extsort_reader_offset(const ExtSortReader *x) { return x->r.pos - (x->r.len - x->r.off); }

void extsort_reader_close(ExtSortReader *x) {
    if (!x)
        return;
    free(x->r.buf);
    free(x->r.entry);
    free(x->r.next);
    free(x);
}

bool book_extsort_db2016(const char *in, const char *out, const ExtSortOptions *opt, ExtSortStats *stats, char *err,
                         size_t err_len) {
    ExtSortStats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    ExtSort *es = extsort_open(opt, out);
    if (!es)
        return error_set(err, err_len, "out of memory");
    bool ok = extsort_add_file(es, in, err, err_len);
    const Book *whole = NULL;
    if (ok && !extsort_runs(es)) { /* it all fitted: the in-memory sort */
        whole = es->chunk;
        Db2016WriteCounts counts = {0};
        Db2016WriteOptions wo = {.write_comments = opt->keep_comments, .counts = &counts};
        stats->has_stats = book_has_stats(whole);
        ok = db2016_write_file(out, whole, &wo, err, err_len);
        stats->positions = counts.positions;
        stats->moves = counts.moves;
    } else if (ok && extsort_finish(es, err, err_len)) {
        AtomicFile af;
        BookMoveList *list = malloc(sizeof *list);
        ok = list && atomic_file_open(&af, out, err, err_len);
        if (!list)
            error_set(err, err_len, "out of memory");
        if (ok) {
            fputs(DB2016_HEADER "\n", af.f);
            const char *key;
            const ExtSortEntry *e;
            int rc;
            while ((rc = extsort_next(es, &key, &e, err, err_len)) == 1) {
                if (!db2016_write_entry(af.f, e[0].book, e[0].id, key, opt->keep_comments, false, list)) {
                    rc = -1;
                    error_set(err, err_len, "corrupt key in the sorted runs");
                    break;
                }
                stats->positions += list->n > 0;
                stats->moves += (uint64_t)list->n;
                stats->has_stats |= book_has_stats(e[0].book);
            }
            ok = rc == 0 ? atomic_file_commit(&af, err, err_len) : (atomic_file_abort(&af), false);
        }
        free(list);
    } else
        ok = false;
    stats->runs = extsort_runs(es);
    stats->errors = extsort_errors(es);
    stats->had_header = extsort_had_header(es);
    extsort_close(es);
    return ok;
}
