/* db2016_write.c - YANEURAOU-DB2016 writer (sorted, atomic); see db2016.h. */
#include "book/db2016.h"

#include <stdlib.h>
#include <string.h>

#include "shogi/notation.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/sort.h"

/* Appends the decimal text of v to p; returns the new end. */
static char *put_int(char *p, int64_t v) {
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void write_comment_lines(FILE *f, const char *c) {
    while (c) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        fputc('#', f);
        fwrite(c, 1, n, f);
        fputc('\n', f);
        c = nl ? nl + 1 : NULL;
    }
}

typedef struct {
    const char *arena;
    const uint64_t *offset; /* by id */
} SfenOrder;

static int cmp_sfen_ids(const void *ctx, uint32_t a, uint32_t b) {
    const SfenOrder *o = ctx;
    return strcmp(o->arena + o->offset[a], o->arena + o->offset[b]);
}

bool db2016_write_entry(FILE *f, const Book *book, uint32_t id, const char *sfen, bool comments, bool as_read,
                        BookMoveList *list) {
    char line[SFEN_MAX + 160], own[SFEN_MAX];
    if (book_position_moves(book, id, list) == 0 && !as_read)
        return true;
    if (!sfen) {
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, id, &key);
        if (!book_key_to_position(&key, &pos, &st, 1))
            return false;
        position_to_sfen(&pos, own, false);
        sfen = own;
    }
    int ply = book_position_ply(book, id);
    char *p = line;
    memcpy(p, "sfen ", 5);
    p += 5;
    size_t slen = strlen(sfen);
    memcpy(p, sfen, slen);
    p += slen;
    *p++ = ' ';
    p = put_int(p, ply ? ply : 1);
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), f);
    BookStats s;
    if (comments && book_get_stats(book, id, MOVE_NONE, &s) && s.comment)
        write_comment_lines(f, s.comment);
    if (!as_read)
        book_sort_moves(list->moves, list->n);
    for (int k = 0; k < list->n; k++) {
        const BookMove *bm = &list->moves[k];
        char usi[USI_MOVE_MAX];
        p = line;
        p += strlen(strcpy(p, move_to_usi(bm->move, usi)));
        *p++ = ' ';
        p += strlen(strcpy(p, move_to_usi(bm->ponder, usi)));
        *p++ = ' ';
        if (bm->has_score)
            p = put_int(p, bm->score);
        else
            p += strlen(strcpy(p, "none"));
        *p++ = ' ';
        if (bm->has_depth)
            p = put_int(p, bm->depth);
        else
            p += strlen(strcpy(p, "none"));
        *p++ = ' ';
        p = put_int(p, (int64_t)bm->count);
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), f);
        if (comments && book_get_stats(book, id, bm->move, &s) && s.comment)
            write_comment_lines(f, s.comment);
    }
    return true;
}

bool db2016_write_stream(FILE *f, const Book *book, const Db2016WriteOptions *opt, char *err, size_t err_len) {
    shogi_init();
    size_t n = book_position_count(book);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    uint64_t *offset = malloc((n ? n : 1) * sizeof *offset);
    BookMoveList *list = malloc(sizeof *list);
    /* About 100 bytes of SFEN per position; small books get a small arena (it doubles). */
    size_t arena_cap = n < (1 << 20) / 128 ? n * 128 + 2 * SFEN_MAX : 1 << 20, arena_len = 0;
    char *arena = malloc(arena_cap);
    bool ok = ids && offset && list && arena;
    if (!ok)
        error_set(err, err_len, "out of memory");
    size_t m = 0;
    /* The SFEN text of every position, once: it is both the sort key and the output. */
    for (uint32_t id = 0; ok && id < n; id++) {
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, id, &key);
        if (book_position_moves(book, id, list) == 0 && !(opt && opt->as_read))
            continue;
        if (!book_key_to_position(&key, &pos, &st, 1)) {
            ok = error_set(err, err_len, "position %u: corrupt key", id);
            break;
        }
        if (arena_len + SFEN_MAX > arena_cap) {
            char *a = realloc(arena, arena_cap * 2);
            if (!a) {
                ok = error_set(err, err_len, "out of memory");
                break;
            }
            arena = a;
            arena_cap *= 2;
        }
        position_to_sfen(&pos, arena + arena_len, false);
        offset[id] = arena_len;
        arena_len += strlen(arena + arena_len) + 1;
        ids[m++] = id;
    }
    SfenOrder order = {arena, offset};
    if (ok && !sort_ids(ids, m, cmp_sfen_ids, &order))
        ok = error_set(err, err_len, "out of memory");
    if (ok) {
        fputs(DB2016_HEADER "\n", f);
        bool comments = opt && opt->write_comments && book_has_stats(book);
        uint64_t moves_written = 0;
        for (size_t i = 0; i < m; i++) {
            uint32_t id = ids[i];
            db2016_write_entry(f, book, id, arena + offset[id], comments, opt && opt->as_read, list);
            moves_written += (uint64_t)list->n;
            if (opt && opt->progress && (i & 0xfff) == 0)
                progress_update(opt->progress, i);
        }
        if (opt && opt->progress)
            progress_update(opt->progress, m);
        if (opt && opt->counts)
            *opt->counts = (Db2016WriteCounts){.positions = m, .moves = moves_written};
    }
    free(ids);
    free(offset);
    free(list);
    free(arena);
    return ok;
}

bool db2016_write_file(const char *path, const Book *book, const Db2016WriteOptions *opt, char *err, size_t err_len) {
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, err_len))
        return false;
    if (!db2016_write_stream(af.f, book, opt, err, err_len)) {
        atomic_file_abort(&af);
        return false;
    }
    return atomic_file_commit(&af, err, err_len);
}
