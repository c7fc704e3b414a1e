/* record_sort.c - see record_sort.h. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "util/record_sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
    uint8_t *buf; /* collecting: cap records, mapped (untouched pages take no memory) */
    size_t cap, n;
    uint64_t count;
    TempFile tf;
    uint64_t *run_len; /* records of each run, one after the other in tf */
    size_t nruns, runs_cap;
    bool finished;
    size_t next;   /* in memory: the next record */
    Run *runs;     /* merging */
    uint8_t *bufs; /* the runs' read buffers, one mapping */
    size_t bufs_len;
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

/* ---- an in-place sort: glibc's qsort() merge-sorts through a copy of the whole array,
 * which would double the memory a run takes ---- */

typedef struct {
    uint8_t *base;
    size_t size;
    RecordCompare cmp;
    uint8_t tmp[4096];
} Sorter;

static uint8_t *at(Sorter *z, size_t i) { return z->base + i * z->size; }

static void swap(Sorter *z, size_t i, size_t j) {
    memcpy(z->tmp, at(z, i), z->size);
    memcpy(at(z, i), at(z, j), z->size);
    memcpy(at(z, j), z->tmp, z->size);
}

static int cmp_at(Sorter *z, size_t i, size_t j) { return z->cmp(at(z, i), at(z, j)); }

static void heap_down(Sorter *z, size_t lo, size_t i, size_t n) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && cmp_at(z, lo + l, lo + m) > 0)
            m = l;
        if (l + 1 < n && cmp_at(z, lo + l + 1, lo + m) > 0)
            m = l + 1;
        if (m == i)
            return;
        swap(z, lo + i, lo + m);
        i = m;
    }
}

/* [lo, hi): quicksort (median of three, the smaller side first), insertion below 16
 * records, heapsort when the partitions go badly (introsort: O(n log n) always) */
static void sort_range(Sorter *z, size_t lo, size_t hi, int depth) {
    while (hi - lo > 16) {
        size_t n = hi - lo;
        if (depth-- == 0) {
            for (size_t i = n / 2; i-- > 0;)
                heap_down(z, lo, i, n);
            for (size_t e = n; e-- > 1;) {
                swap(z, lo, lo + e);
                heap_down(z, lo, 0, e);
            }
            return;
        }
        size_t mid = lo + n / 2, last = hi - 1;
        if (cmp_at(z, mid, lo) < 0)
            swap(z, mid, lo);
        if (cmp_at(z, last, mid) < 0) {
            swap(z, last, mid);
            if (cmp_at(z, mid, lo) < 0)
                swap(z, mid, lo);
        }
        swap(z, mid, lo); /* the pivot at lo */
        size_t i = lo + 1, j = last;
        for (;;) {
            while (cmp_at(z, i, lo) < 0)
                i++;
            while (cmp_at(z, lo, j) < 0)
                j--;
            if (i >= j)
                break;
            swap(z, i, j);
            i++;
            j--;
        }
        swap(z, lo, j);
        if (j - lo < hi - j - 1) {
            sort_range(z, lo, j, depth);
            lo = j + 1;
        } else {
            sort_range(z, j + 1, hi, depth);
            hi = j;
        }
    }
    for (size_t i = lo + 1; i < hi; i++)
        for (size_t j = i; j > lo && cmp_at(z, j - 1, j) > 0; j--)
            swap(z, j - 1, j);
}

static void sort_buffer(RecordSort *rs) {
    Sorter *z = malloc(sizeof *z);
    if (!z) { /* 4 KiB: qsort() then, whatever it takes */
        qsort(rs->buf, rs->n, rs->opt.size, rs->opt.cmp);
        return;
    }
    *z = (Sorter){.base = rs->buf, .size = rs->opt.size, .cmp = rs->opt.cmp};
    int depth = 0;
    for (size_t n = rs->n; n > 1; n >>= 1)
        depth += 2;
    sort_range(z, 0, rs->n, depth);
    free(z);
}

static bool write_run(RecordSort *rs, char *err, size_t err_len) {
    if (rs->n)
        sort_buffer(rs);
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
    if (!rs->buf) {
        /* mapped, not malloc'd: glibc raises its mmap threshold when a mapped block is
         * freed, and the sorts' later buffers would then come from the heap and stay
         * resident as holes after they are freed */
        void *q = mmap(NULL, rs->cap * rs->opt.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            return error_set(err, err_len, "out of memory");
        rs->buf = q;
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
            sort_buffer(rs);
        return true;
    }
    if (rs->n && !write_run(rs, err, err_len))
        return false;
    munmap(rs->buf, rs->cap * rs->opt.size);
    rs->buf = NULL;
    if (fflush(rs->tf.f) != 0)
        return error_set(err, err_len, "cannot write to the scratch file %s: %s", rs->tf.path, strerror(errno));
    size_t bufrecs = merge_buf_recs(rs);
    rs->runs = calloc(rs->nruns, sizeof *rs->runs);
    rs->heap = malloc(rs->nruns * sizeof *rs->heap);
    rs->bufs_len = rs->nruns * bufrecs * rs->opt.size;
    void *q = mmap(NULL, rs->bufs_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        rs->bufs_len = 0;
    else
        rs->bufs = q;
    if (!rs->runs || !rs->heap || !rs->bufs)
        return error_set(err, err_len, "out of memory");
    uint64_t off = 0;
    for (size_t r = 0; r < rs->nruns; r++) {
        rs->runs[r].off = off;
        rs->runs[r].left = rs->run_len[r];
        off += rs->run_len[r] * rs->opt.size;
        if (!rs->run_len[r])
            continue;
        rs->runs[r].buf = rs->bufs + r * bufrecs * rs->opt.size;
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
            if (k == 0)
                rs->heap[0] = rs->heap[--rs->nheap];
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
    free(rs->runs);
    free(rs->heap);
    if (rs->bufs)
        munmap(rs->bufs, rs->bufs_len);
    if (rs->buf)
        munmap(rs->buf, rs->cap * rs->opt.size);
    free(rs->run_len);
    temp_file_remove(&rs->tf);
    free(rs);
}
