/* prune_file.c - book prune of a DB2016 file in bounded memory (prune.h,
 * book_prune_file()).
 *
 * The walk of book_prune() is breadth first, so a position is kept when its shortest
 * distance from a root along followed moves is within max_ply; a walk ply by ply finds the
 * same set. Ply d's positions come sorted from an ExtSort of keys (positions without
 * moves), and one pass over the sorted copy of the book joins them with it: an entry whose
 * key is there and whose bit is clear is reached now (its bit set, its moves filtered and
 * counted) and, unless ply d + 1 lies beyond max_ply, the keys its followed moves lead to
 * go into the next ply's ExtSort, book positions or not (the join drops the others). A
 * pass stops reading once the ply's keys run out. The counts are sums over the reached
 * positions, so they equal book_prune()'s; the last pass writes the reached entries in the
 * copy's order, which is the writer's. */
#include <stdlib.h>
#include <string.h>

#include "book/db2016.h"
#include "bookgen/prune.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/temp_file.h"

enum { COPY_READ_BYTES = 1 << 20 };

typedef struct {
    const PruneOptions *opt;
    ExtSortOptions eo, keys; /* the book's sort; the plies' key sorts */
    const char *out;
    TempFile copy;
    uint8_t *reached;
    uint64_t n; /* positions in the copy */
    uint64_t *bloom, bloom_bits;
    Book *one, *kept;
    BookMoveList *list;
    ExtMove *legal;
    PruneStats *st;
    char *err;
    size_t err_len;
} Pruner;

/* The Bloom filter's three probes of key (double hashing of one 64-bit hash). */
static bool bloom_probe(Pruner *p, const BookKey *key, bool set) {
    uint64_t h = book_key_hash(key), step = (h >> 33) | 1;
    bool all = true;
    for (int i = 0; i < 3; i++) {
        uint64_t bit = (h + (uint64_t)i * step) % p->bloom_bits;
        if (set)
            p->bloom[bit >> 6] |= (uint64_t)1 << (bit & 63);
        else if (!(p->bloom[bit >> 6] & ((uint64_t)1 << (bit & 63))))
            all = false;
    }
    return all;
}

/* Sorts in and writes every position, with its moves as read, into the copy. */
static bool make_copy(Pruner *p, const char *in) {
    ExtSort *es = extsort_open(&p->eo, p->out);
    if (!es)
        return error_set(p->err, p->err_len, "out of memory");
    bool ok = extsort_add_file(es, in, p->err, p->err_len) && extsort_finish(es, p->err, p->err_len) &&
              temp_file_create(&p->copy, p->eo.tmpdir, p->out, p->err, p->err_len);
    const char *key;
    const ExtSortEntry *e;
    int rc = 0;
    if (ok)
        fputs(DB2016_HEADER "\n", p->copy.f);
    while (ok && (rc = extsort_next(es, &key, &e, p->err, p->err_len)) == 1) {
        if (!db2016_write_entry(p->copy.f, e[0].book, e[0].id, key, true, true, p->list))
            ok = error_set(p->err, p->err_len, "corrupt key in the sorted runs");
        BookKey k;
        book_position_key(e[0].book, e[0].id, &k);
        bloom_probe(p, &k, true);
        p->n++;
    }
    ok = ok && rc == 0;
    if (ok && (fflush(p->copy.f) != 0 || ferror(p->copy.f)))
        ok = error_set(p->err, p->err_len, "cannot write the sorted copy to %s", p->copy.path);
    extsort_close(es);
    return ok;
}

/* The entry's one-position IR in p->one, its moves filtered in p->list. */
static bool read_entry(Pruner *p, const char *text, size_t len, uint64_t *rare) {
    book_clear(p->one);
    Db2016ReadOptions ro = {.keep_comments = true};
    Db2016Stats ds;
    if (!db2016_read_memory(p->copy.path, text, len, p->one, &ro, &ds, p->err, p->err_len) ||
        book_position_count(p->one) != 1)
        return error_set(p->err, p->err_len, "%s: the sorted copy does not read back", p->copy.path);
    book_position_moves(p->one, 0, p->list);
    prune_keep_moves(p->list, p->opt->min_share, rare);
    return true;
}

typedef struct {
    Pruner *p;
    ExtSort *next;
} ChildSink;

static bool sink_child(void *ctx, const BookKey *child) {
    ChildSink *c = ctx;
    return !bloom_probe(c->p, child, false) || extsort_add_position(c->next, child, 0, c->p->err, c->p->err_len);
}

/* One ply: joins the sorted keys of ply with the copy; the children into next (NULL:
 * beyond max_ply). */
static bool pass(Pruner *p, ExtSort *ply, ExtSort *next, int d) {
    ExtSortReader *r = extsort_reader_open(fileno(p->copy.f), p->copy.path, COPY_READ_BYTES, p->err, p->err_len);
    if (!r)
        return false;
    Progress *pr = p->eo.progress;
    if (pr) {
        char label[48];
        snprintf(label, sizeof label, "prune: ply %d", d + 1);
        progress_start(pr, pr->out, label, p->n, pr->quiet);
    }
    const char *fk = NULL, *key, *text;
    const ExtSortEntry *fe;
    size_t len;
    int frc = extsort_next(ply, &fk, &fe, p->err, p->err_len), rc = 0;
    bool ok = frc >= 0;
    for (uint64_t i = 0; ok && frc == 1 && (rc = extsort_reader_next(r, &key, &text, &len, p->err, p->err_len)) == 1;
         i++) {
        int c;
        while (frc == 1 && (c = strcmp(fk, key)) < 0)
            frc = extsort_next(ply, &fk, &fe, p->err, p->err_len);
        if (frc < 0) {
            ok = false;
            break;
        }
        if (pr && (i & 4095) == 0)
            progress_update(pr, i);
        if (frc == 0 || c != 0 || (p->reached[i >> 3] & (1u << (i & 7))))
            continue;
        p->reached[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (!read_entry(p, text, len, &p->st->rare_moves)) {
            ok = false;
            break;
        }
        p->st->positions++;
        p->st->moves += (uint64_t)p->list->n;
        if (!next)
            continue;
        BookKey k;
        Position pos;
        StateInfo s;
        int ply_no = book_position_ply(p->one, 0);
        book_position_key(p->one, 0, &k);
        if (!book_key_to_position(&k, &pos, &s, ply_no > 0 ? ply_no : 1)) {
            ok = error_set(p->err, p->err_len, "%s: a key does not decode", p->copy.path);
            break;
        }
        ChildSink cs = {p, next};
        ok = prune_children(&pos, p->list, p->opt->through_legal, p->legal, sink_child, &cs);
    }
    if (rc < 0 || frc < 0)
        ok = false;
    if (pr)
        progress_finish(pr);
    extsort_reader_close(r);
    return ok;
}

/* The last pass: the reached entries, their moves filtered, into out. */
static bool write_reached(Pruner *p, uint64_t written[2]) {
    ExtSortReader *r = extsort_reader_open(fileno(p->copy.f), p->copy.path, COPY_READ_BYTES, p->err, p->err_len);
    if (!r)
        return false;
    AtomicFile af;
    bool opened = atomic_file_open(&af, p->out, p->err, p->err_len), ok = opened;
    if (ok)
        fputs(DB2016_HEADER "\n", af.f);
    Progress *pr = p->eo.progress;
    if (pr)
        progress_start(pr, pr->out, "prune: write", p->n, pr->quiet);
    const char *key, *text;
    size_t len;
    int rc = 0;
    uint64_t rare = 0;
    for (uint64_t i = 0; ok && (rc = extsort_reader_next(r, &key, &text, &len, p->err, p->err_len)) == 1; i++) {
        if (pr && (i & 4095) == 0)
            progress_update(pr, i);
        if (!(p->reached[i >> 3] & (1u << (i & 7))))
            continue;
        if (!read_entry(p, text, len, &rare)) {
            ok = false;
            break;
        }
        BookKey k;
        uint32_t id;
        book_position_key(p->one, 0, &k);
        book_clear(p->kept);
        if (!book_add_position(p->kept, &k, book_position_ply(p->one, 0), &id) ||
            !book_set_moves(p->kept, id, p->list->moves, p->list->n) || !book_copy_notes(p->kept, id, p->one, 0)) {
            ok = error_set(p->err, p->err_len, "out of memory");
            break;
        }
        if (!db2016_write_entry(af.f, p->kept, id, key, true, false, p->list)) {
            ok = error_set(p->err, p->err_len, "%s: a key does not decode", p->copy.path);
            break;
        }
        written[0] += p->list->n > 0;
        written[1] += (uint64_t)p->list->n;
        if (interrupt_requested())
            ok = error_set(p->err, p->err_len, "interrupted");
    }
    ok = ok && rc == 0;
    if (pr)
        progress_finish(pr);
    extsort_reader_close(r);
    if (opened) {
        if (ok)
            ok = atomic_file_commit(&af, p->err, p->err_len);
        else
            atomic_file_abort(&af);
    }
    return ok;
}

bool book_prune_file(const char *in, const char *out, const PruneOptions *opt, const ExtSortOptions *eo,
                     PruneStats *stats, uint64_t written[2], uint64_t *passes, char *err, size_t err_len) {
    PruneStats local;
    uint64_t wlocal[2], plocal;
    if (!stats)
        stats = &local;
    if (!written)
        written = wlocal;
    if (!passes)
        passes = &plocal;
    memset(stats, 0, sizeof *stats);
    written[0] = written[1] = 0;
    *passes = 0;
    Pruner p = {.opt = opt, .eo = *eo, .out = out, .st = stats, .err = err, .err_len = err_len};
    p.eo.keep_comments = true;
    if (!p.eo.label)
        p.eo.label = "prune";
    /* an eighth of the memory for the filter; the book's sort takes the rest, then the
     * plies' keys take it (the finished ply and the next share it) */
    uint64_t memory = eo->memory < EXTSORT_MEMORY_MIN ? EXTSORT_MEMORY_MIN : eo->memory;
    p.eo.memory = memory - memory / 8;
    p.keys = p.eo;
    p.keys.memory = memory / 8 * 3;
    p.keys.progress = NULL;
    p.one = book_create();
    p.kept = book_create();
    p.list = malloc(sizeof *p.list);
    p.legal = malloc(MAX_MOVES * sizeof *p.legal);
    p.bloom_bits = (memory / 8 / 8) * 64;
    p.bloom = calloc(p.bloom_bits / 64, sizeof *p.bloom);
    bool ok = p.one && p.kept && p.list && p.legal && p.bloom;
    if (!ok)
        error_set(err, err_len, "out of memory");
    ok = ok && make_copy(&p, in);
    if (ok && !(p.reached = calloc(p.n / 8 + 1, 1)))
        ok = error_set(err, err_len, "out of memory");
    ExtSort *ply = ok ? extsort_open(&p.keys, out) : NULL;
    if (ok && !ply)
        ok = error_set(err, err_len, "out of memory");
    BookKey start;
    size_t n_roots;
    const BookKey *roots = prune_roots(opt, &start, &n_roots);
    for (size_t i = 0; ok && i < n_roots; i++)
        ok = extsort_add_position(ply, &roots[i], 0, err, err_len);
    ok = ok && extsort_finish(ply, err, err_len);
    for (int d = 0; ok; d++) {
        bool expand = !(opt->max_ply > 0 && d + 2 > opt->max_ply);
        ExtSort *next = expand ? extsort_open(&p.keys, out) : NULL;
        if (expand && !next) {
            ok = error_set(err, err_len, "out of memory");
            break;
        }
        uint64_t before = stats->positions;
        ok = pass(&p, ply, next, d);
        ++*passes;
        extsort_close(ply);
        ply = next;
        if (!ok || !next || stats->positions == before)
            break;
        ok = extsort_finish(ply, err, err_len);
    }
    extsort_close(ply);
    if (ok) {
        stats->unreached = p.n - stats->positions;
        ok = write_reached(&p, written);
        ++*passes;
    }
    temp_file_remove(&p.copy);
    free(p.reached);
    free(p.bloom);
    book_free(p.one);
    book_free(p.kept);
    free(p.list);
    free(p.legal);
    return ok;
}
