/* test_record_sort.c - the external sort of fixed-size records (util/record_sort.h): a
 * sort that fits is handed out from memory, one that does not goes through runs on disk
 * (counted) and a k-way merge; either way the records come out in order, each once
 * (checked against qsort of the same records, for random, sorted, reversed and tied keys), and nothing is left in the
 * directory. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/record_sort.h"

typedef struct {
    uint32_t key, tag; /* tag: the order added, so that the order is total */
    uint8_t pad[4];
} Rec;

static int cmp_rec(const void *a, const void *b) {
    const Rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Sorts n pseudo-random records in `memory` bytes; checks the order against qsort and the
 * runs written. */
static void sort_n(size_t n, uint64_t memory, bool expect_runs, int mode) {
    char dir[] = "/tmp/hayanagi_recsort_XXXXXX";
    assert_non_null(mkdtemp(dir));
    RecordSortOptions o = {.size = sizeof(Rec), .cmp = cmp_rec, .memory = memory, .tmpdir = dir, .near = NULL};
    RecordSort *rs = record_sort_open(&o);
    assert_non_null(rs);
    Rec *all = malloc((n ? n : 1) * sizeof *all);
    assert_non_null(all);
    uint64_t x = 88172645463325252ull;
    char err[256];
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* mode 0: random keys with many ties; 1: ascending; 2: descending; 3: all equal
         * but for an organ-pipe of tags (the sort's bad cases) */
        uint32_t key = mode == 0 ? (uint32_t)(x % 1000) : mode == 1 ? (uint32_t)i : mode == 2 ? (uint32_t)(n - i) : 7;
        uint32_t tag = mode == 3 ? (uint32_t)(i < n / 2 ? i : n - i) * 2 + (i >= n / 2) : (uint32_t)i;
        all[i] = (Rec){.key = key, .tag = tag};
        assert_true(record_sort_add(rs, &all[i], err, sizeof err));
    }
    assert_true(record_sort_finish(rs, err, sizeof err));
    assert_int_equal(record_sort_count(rs), n);
    if (expect_runs)
        assert_true(record_sort_runs(rs) > 1);
    else
        assert_int_equal(record_sort_runs(rs), 0);
    assert_int_equal(entries(dir), 0); /* the scratch file has no name */
    qsort(all, n, sizeof *all, cmp_rec);
    const void *r;
    size_t got = 0;
    int k;
    while ((k = record_sort_next(rs, &r, err, sizeof err)) == 1) {
        assert_true(got < n);
        assert_memory_equal(r, &all[got], sizeof(Rec));
        got++;
    }
    assert_int_equal(k, 0);
    assert_int_equal(got, n);
    assert_int_equal(record_sort_next(rs, &r, err, sizeof err), 0);
    record_sort_close(rs);
    free(all);
    assert_int_equal(entries(dir), 0);
    rmdir(dir);
}

static void test_in_memory(void **state) {
    (void)state;
    sort_n(0, RECORD_SORT_MEMORY_MIN, false, 0);
    sort_n(1, RECORD_SORT_MEMORY_MIN, false, 0);
    for (int mode = 0; mode < 4; mode++)
        sort_n(5000, RECORD_SORT_MEMORY_MIN, false, mode);
}

static void test_runs(void **state) {
    (void)state;
    /* 64 KiB hold 5461 records: 200 000 make 37 runs, each merged through 4 KiB */
    sort_n(200000, RECORD_SORT_MEMORY_MIN, true, 0);
    sort_n(5462, RECORD_SORT_MEMORY_MIN, true, 0); /* a last run of one record */
    sort_n(20000, RECORD_SORT_MEMORY_MIN, true, 2);
}

static void test_bad_options(void **state) {
    (void)state;
    RecordSortOptions o = {.size = 0, .cmp = cmp_rec};
    assert_null(record_sort_open(&o));
    o.size = 8;
    o.cmp = NULL;
    assert_null(record_sort_open(&o));
    char err[128];
    o.cmp = cmp_rec;
    RecordSort *rs = record_sort_open(&o);
    const void *r;
    assert_int_equal(record_sort_next(rs, &r, err, sizeof err), -1);
    record_sort_close(rs);
    record_sort_close(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_in_memory), cmocka_unit_test(test_runs),
                                       cmocka_unit_test(test_bad_options)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
