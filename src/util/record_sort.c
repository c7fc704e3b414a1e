/* record_sort.c - see record_sort.h. */
#include "util/record_sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/temp_file.h"

typedef struct {
    uint64_t off, left; /* byte offset of the next unread record in the file; records not yet read */
    uint8_t *buf;
    size_t pos, len; /* records in buf: the current one, how many */
} Run;

struct RecordSort {
    RecordSortOptions opt;
    uint8_t *buf; /* collecting: alloc records allocated, at most cap */
    size_t cap, alloc, n;
    uint64_t count;
    TempFile tf;
    uint64_t *run_len; /* records of each run, one after the other in tf */
    size_t nruns, runs_cap;
    bool finished;
    size_t next; /* in memory: the next record */
    Run *runs;   /* merging */
    size_t *heap, nheap;
    bool advance; /* the record handed out last is the top run's current one */
};

RecordSort *record_sort_open(const RecordSortOptions *opt) {
    if (!opt || opt->size == 0 || opt->size > 4096 || !opt->cmp)
        return NULL;
    RecordSort *rs = calloc(1, sizeof *rs);
    if (!rs)
        return NULL;
    rs->opt = *opt;
    uint64_t memory = opt->memory < RECORD_SORT_MEMORY_MIN ? RECORD_SORT_MEMORY_MIN : opt->memory;
    rs->cap = (size_t)(memory / opt->size);
    if (rs->cap < 2)
        rs->cap = 2;
    return rs;
}

static bool write_run(RecordSort *rs, char *err, size_t err_len) {
    if (rs->n)
        qsort(rs->buf, rs->n, rs->opt.size, rs->opt.cmp);
    if (!rs->tf.f && !temp_file_create(&rs->tf, rs->opt.tmpdir, rs->opt.near, err, err_len))
        return false;
    if (rs->nruns == rs->runs_cap) {
        size_t c = rs->runs_cap ? rs->runs_cap * 2 : 16;
        uint64_t *q = realloc(rs->run_len, c * sizeof *q);
        if (!q)
            return error_set(err, err_len, "out of memory");
        rs->run_len = q;
        rs->runs_cap = c;
    }
    if (rs->n && fwrite(rs->buf, rs->opt.size, rs->n, rs->tf.f) != rs->n)
        return error_set(err, err_len, "cannot write to the scratch file %s: %s", rs->tf.path, strerror(errno));
    rs->run_len[rs->nruns++] = rs->n;
    rs->n = 0;
    return true;
}

bool record_sort_add(RecordSort *rs, const void *rec, char *err, size_t err_len) {
    if (rs->n == rs->cap && !write_run(rs, err, err_len))
        return false;
    if (rs->n == rs->alloc) {
        /* doubled up to cap: a small sort takes little */
        size_t want = rs->alloc ? rs->alloc * 2 : 256;
        if (want > rs->cap)
            want = rs->cap;
        uint8_t *q = realloc(rs->buf, want * rs->opt.size);
        if (!q)
            return error_set(err, err_len, "out of memory");
        rs->buf = q;
        rs->alloc = want;
    }
    memcpy(rs->buf + rs->n * rs->opt.size, rec, rs->opt.size);
    rs->n++;
    rs->count++;
    return true;
}

/* Records a run's read buffer holds while merging: an equal share of the memory. */
static size_t merge_buf_recs(const RecordSort *rs) {
    uint64_t memory = rs->opt.memory < RECORD_SORT_MEMORY_MIN ? RECORD_SORT_MEMORY_MIN : rs->opt.memory;
    size_t recs = (size_t)(memory / rs->nruns / rs->opt.size);
    return recs * rs->opt.size < 4096 ? (4096 + rs->opt.size - 1) / rs->opt.size : recs;
}

static const uint8_t *run_rec(const RecordSort *rs, size_t r) {
    return rs->runs[r].buf + rs->runs[r].pos * rs->opt.size;
}

/* run a before run b: their records, then the run order (runs hold the input in order) */
static bool heap_less(const RecordSort *rs, size_t a, size_t b) {
    int c = rs->opt.cmp(run_rec(rs, a), run_rec(rs, b));
    return c < 0 || (c == 0 && a < b);
}

static void sift_down(RecordSort *rs, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < rs->nheap && heap_less(rs, rs->heap[l], rs->heap[m]))
            m = l;
        if (l + 1 < rs->nheap && heap_less(rs, rs->heap[l + 1], rs->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t t = rs->heap[i];
        rs->heap[i] = rs->heap[m];
        rs->heap[m] = t;
        i = m;
    }
}

/* Reads the next records of run r into its buffer: 1, 0 when the run is done, -1. */
static int refill(RecordSort *rs, size_t r, size_t bufrecs, char *err, size_t err_len) {
    Run *run = &rs->runs[r];
    if (run->left == 0)
        return 0;
    size_t want = run->left < bufrecs ? (size_t)run->left : bufrecs, bytes = want * rs->opt.size, got = 0;
    while (got < bytes) {
        ssize_t k = pread(fileno(rs->tf.f), run->buf + got, bytes - got, (off_t)(run->off + got));
        if (k <= 0) {
            error_set(err, err_len, "cannot read the scratch file %s: %s", rs->tf.path,
                      k < 0 ? strerror(errno) : "it is shorter than written");
            return -1;
        }
        got += (size_t)k;
    }
    run->off += bytes;
    run->left -= want;
    run->pos = 0;
    run->len = want;
    return 1;
}

bool record_sort_finish(RecordSort *rs, char *err, size_t err_len) {
    rs->finished = true;
    if (!rs->nruns) {
        if (rs->n)
            qsort(rs->buf, rs->n, rs->opt.size, rs->opt.cmp);
        return true;
    }
    if (rs->n && !write_run(rs, err, err_len))
        return false;
    free(rs->buf);
    rs->buf = NULL;
    if (fflush(rs->tf.f) != 0)
        return error_set(err, err_len, "cannot write to the scratch file %s: %s", rs->tf.path, strerror(errno));
    size_t bufrecs = merge_buf_recs(rs);
    rs->runs = calloc(rs->nruns, sizeof *rs->runs);
    rs->heap = malloc(rs->nruns * sizeof *rs->heap);
    if (!rs->runs || !rs->heap)
        return error_set(err, err_len, "out of memory");
    uint64_t off = 0;
    for (size_t r = 0; r < rs->nruns; r++) {
        rs->runs[r].off = off;
        rs->runs[r].left = rs->run_len[r];
        off += rs->run_len[r] * rs->opt.size;
        if (!rs->run_len[r])
            continue;
        rs->runs[r].buf = malloc(bufrecs * rs->opt.size);
        if (!rs->runs[r].buf)
            return error_set(err, err_len, "out of memory");
        if (refill(rs, r, bufrecs, err, err_len) < 0)
            return false;
        rs->heap[rs->nheap++] = r;
    }
    for (size_t i = rs->nheap; i-- > 0;)
        sift_down(rs, i);
    return true;
}

int record_sort_next(RecordSort *rs, const void **rec, char *err, size_t err_len) {
    if (!rs->finished) {
        error_set(err, err_len, "record_sort_next() before record_sort_finish()");
        return -1;
    }
    if (!rs->nruns) {
        if (rs->next >= rs->n)
            return 0;
        *rec = rs->buf + rs->next++ * rs->opt.size;
        return 1;
    }
    if (rs->advance && rs->nheap) {
        size_t r = rs->heap[0];
        Run *run = &rs->runs[r];
        if (++run->pos == run->len) {
            int k = refill(rs, r, merge_buf_recs(rs), err, err_len);
            if (k < 0)
                return -1;
            if (k == 0) {
                free(run->buf);
                run->buf = NULL;
                rs->heap[0] = rs->heap[--rs->nheap];
            }
        }
        if (rs->nheap)
            sift_down(rs, 0);
    }
    rs->advance = false;
    if (!rs->nheap)
        return 0;
    *rec = run_rec(rs, rs->heap[0]);
    rs->advance = true;
    return 1;
}

uint64_t record_sort_count(const RecordSort *rs) { return rs->count; }

uint64_t record_sort_runs(const RecordSort *rs) { return rs->nruns; }

void record_sort_close(RecordSort *rs) {
    if (!rs)
        return;
    if (rs->runs)
        for (size_t r = 0; r < rs->nruns; r++)
            free(rs->runs[r].buf);
    free(rs->runs);
    free(rs->heap);
    free(rs->buf);
    free(rs->run_len);
    temp_file_remove(&rs->tf);
    free(rs);
}
