/* merge_file.c - see merge_file.h. */
#include "bookgen/merge_file.h"

#include <stdlib.h>
#include <string.h>

#include "book/db2016.h"
#include "util/atomic_file.h"
#include "util/error.h"

bool book_merge_files(char *const *in, int n, const char *out, const double *weights, MergePolicy policy,
                      const ExtSortOptions *eo, MergeFileStats *stats, char *err, size_t err_len) {
    MergeFileStats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    ExtSortOptions o = *eo;
    o.keep_comments = true;
    if (!o.label)
        o.label = "merge";
    ExtSort *es = extsort_open(&o, out);
    Book *acc = book_create();
    BookMoveList *list = malloc(sizeof *list);
    bool ok = es && acc && list;
    if (!ok)
        error_set(err, err_len, "out of memory");
    for (int i = 0; ok && i < n; i++)
        ok = extsort_add_file(es, in[i], err, err_len);
    ok = ok && extsort_finish(es, err, err_len);
    AtomicFile af;
    bool opened = ok && atomic_file_open(&af, out, err, err_len);
    ok = opened;
    if (ok)
        fputs(DB2016_HEADER "\n", af.f);
    const char *key;
    const ExtSortEntry *e;
    int rc = 0;
    while (ok && (rc = extsort_next(es, &key, &e, err, err_len)) == 1) {
        book_clear(acc);
        for (int i = 0; ok && i < n; i++) {
            if (!e[i].book)
                continue;
            if (book_position_count(e[i].book) != 1) /* a stream held in memory: not with two or more */
                ok = error_set(err, err_len, "merge: a book was not sorted into runs");
            else if (!book_merge_policy(&acc, e[i].book, weights ? weights[i] : 1.0, policy))
                ok = error_set(err, err_len, "out of memory");
        }
        if (ok && !db2016_write_entry(af.f, acc, 0, key, true, false, list))
            ok = error_set(err, err_len, "corrupt key in the sorted runs");
        if (!ok)
            break;
        stats->positions += list->n > 0;
        stats->moves += (uint64_t)list->n;
        for (int i = 0; i < list->n; i++)
            stats->saturated += list->moves[i].count >= BOOK_COUNT_MAX;
    }
    ok = ok && rc == 0;
    if (opened) {
        if (ok)
            ok = atomic_file_commit(&af, err, err_len);
        else
            atomic_file_abort(&af);
    }
    if (es)
        stats->runs = extsort_runs(es);
    extsort_close(es);
    book_free(acc);
    free(list);
    return ok;
}
