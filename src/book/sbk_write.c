/* sbk_write.c - SBK into the book IR (entry_from_sbk) and the SBK writer from the IR;
 * see sbk.h. */
#include "book/sbk_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/error.h"

/* ---- into the IR ---- */

bool sbk_entry_to_book(Book *book, const SbkEntry *e, SbkImportStats *st) {
    uint32_t id;
    if (!book_add_position(book, &e->key, e->ply, &id))
        return false;
    if (e->n_evals && !book_set_evals(book, id, e->evals, e->n_evals))
        return false;
    if (st) {
        st->positions++;
        st->evals += e->n_evals;
    }
    if (e->games || e->won_black || e->won_white || e->comment) {
        BookStats s = {.games = (uint32_t)e->games,
                       .black_wins = (uint32_t)e->won_black,
                       .white_wins = (uint32_t)e->won_white,
                       .comment = e->comment};
        if (!book_set_stats(book, id, MOVE_NONE, &s))
            return false;
    }
    for (size_t k = 0; k < e->n_moves; k++) {
        const SbkMove *m = &e->moves[k];
        if (!m->legal) {
            if (st)
                st->illegal_moves++;
            continue;
        }
        BookMove bm = {.move = m->move, .count = m->weight > 0 ? (uint64_t)m->weight : 0};
        if (m->has_child_eval) {
            bm.score = m->child_score, bm.has_score = true;
            bm.depth = m->child_depth, bm.has_depth = true;
        }
        if (!book_add_move(book, id, &bm, NULL))
            return false;
        if (m->evaluation || m->weight < 0) {
            BookStats s = {.weight = m->weight, .eval_symbol = (uint8_t)m->evaluation};
            if (!book_set_stats(book, id, m->move, &s))
                return false;
        }
        if (st)
            st->moves++;
    }
    return true;
}

bool sbk_to_book(const SbkBook *b, Book *book, Progress *progress, SbkImportStats *st, char *err, size_t err_len) {
    SbkImportStats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    book_reserve(book, b->n_rec);
    for (size_t k = 0; k < b->n_rec; k++) {
        SbkEntry e;
        if (sbki_read_entry(b, k, &e, err, err_len) < 0)
            return false;
        bool ok = sbk_fill_child_evals(b, &e, err, err_len);
        if (ok && !sbk_entry_to_book(book, &e, st)) {
            SAY("out of memory");
            ok = false;
        }
        sbk_entry_clear(&e);
        if (!ok)
            return false;
        if (progress)
            progress_update(progress, k + 1);
    }
    return true;
}

/* ---- writer ---- */

static size_t varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

const char *sbki_io_reason(void) { return errno ? strerror(errno) : "short write"; }

bool sbki_put_field(FILE *f, unsigned number, const void *data, size_t len) {
    errno = 0; /* what is set now is this write's reason (sbki_io_reason) */
    uint8_t head[16];
    size_t n = varint_put(head, (uint64_t)number << 3 | 2);
    n += varint_put(head + n, len);
    return fwrite(head, 1, n, f) == n && (len == 0 || fwrite(data, 1, len, f) == len);
}

/* Grows the message arrays for n analyses. */
bool sbki_reserve_evals(SBookEval **msgs, SBookEval ***ptrs, size_t *cap, size_t n) {
    if (n <= *cap)
        return true;
    SBookEval *m = realloc(*msgs, n * sizeof *m);
    if (m)
        *msgs = m;
    SBookEval **p = m ? realloc(*ptrs, n * sizeof *p) : NULL;
    if (!p)
        return false;
    *ptrs = p;
    *cap = n;
    return true;
}

typedef struct {
    const Book *book;
    uint32_t *order, *out_index;
    size_t n_order;
    BookMoveList *list;
} Layout;

/* Child position id of move k in list (pos is the parent), or UINT32_MAX. */
uint32_t sbki_child_of(const Book *book, Position *pos, Move16 m16) {
    Move m = position_legal_move_from16(pos, m16);
    if (!m)
        return UINT32_MAX;
    BookKey key;
    book_key_after_move(pos, m, &key);
    uint32_t id;
    return book_find(book, &key, &id) ? id : UINT32_MAX;
}

static void assign(Layout *l, uint32_t id) {
    l->out_index[id] = (uint32_t)l->n_order;
    l->order[l->n_order++] = id;
}

/* Breadth-first from l->order[head..]. */
static void bfs(Layout *l, size_t head) {
    while (head < l->n_order) {
        uint32_t p = l->order[head++];
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(l->book, p, &key);
        if (!book_key_to_position(&key, &pos, &st, 1))
            continue;
        book_position_moves(l->book, p, l->list);
        for (int k = 0; k < l->list->n; k++) {
            uint32_t c = sbki_child_of(l->book, &pos, l->list->moves[k].move);
            if (c != UINT32_MAX && l->out_index[c] == UINT32_MAX)
                assign(l, c);
        }
    }
}

static bool sbk_write_stream(FILE *f, const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, char *err,
                             size_t err_len) {
    memset(rep, 0, sizeof *rep);
    size_t n = book_position_count(book);
    if (n == 0) {
        SAY("the book is empty: an SBK book needs at least one state");
        return false;
    }
    Layout l = {book, malloc(n * sizeof(uint32_t)), malloc(n * sizeof(uint32_t)), 0, malloc(sizeof(BookMoveList))};
    uint8_t *reached = calloc(n, 1);
    uint32_t *sorted = book_sorted_ids(book);
    bool *is_root = calloc(n, sizeof(bool));
    bool ok = l.order && l.out_index && l.list && reached && sorted && is_root;
    if (!ok)
        SAY("out of memory");
    for (size_t p = 0; ok && p < n; p++) {
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, (uint32_t)p, &key);
        if (!book_key_to_position(&key, &pos, &st, 1)) {
            SAY("position %zu has a key that does not decode", p);
            ok = false;
            break;
        }
        book_position_moves(book, (uint32_t)p, l.list);
        for (int k = 0; k < l.list->n; k++) {
            uint32_t c = sbki_child_of(book, &pos, l.list->moves[k].move);
            if (c != UINT32_MAX && c != p)
                reached[c] = 1;
        }
    }
    if (ok) {
        /* Roots: the start position, the positions no move reaches, then (found by a dry
         * run) one position of every component nothing else reaches. */
        Position sp;
        StateInfo sst;
        BookKey skey;
        position_set_startpos(&sp, &sst);
        book_key_from_position(&sp, &skey);
        uint32_t start;
        bool has_start = book_find(book, &skey, &start);
        for (int run = 0; run < 2; run++) {
            memset(l.out_index, 0xff, n * sizeof(uint32_t));
            l.n_order = 0;
            if (has_start) {
                is_root[start] = true;
                assign(&l, start);
            }
            for (size_t k = 0; k < n; k++)
                if (sorted[k] != (has_start ? start : UINT32_MAX) && (!reached[sorted[k]] || is_root[sorted[k]])) {
                    is_root[sorted[k]] = true;
                    assign(&l, sorted[k]);
                }
            bfs(&l, 0);
            bool complete = true;
            for (size_t k = 0; k < n; k++)
                if (l.out_index[sorted[k]] == UINT32_MAX) {
                    complete = false;
                    is_root[sorted[k]] = true;
                    assign(&l, sorted[k]);
                    bfs(&l, l.n_order - 1);
                }
            if (complete)
                break;
        }
    }
    if (ok && opt && opt->author)
        ok = sbki_put_field(f, 1, opt->author, strlen(opt->author));
    if (ok && opt && opt->description)
        ok = sbki_put_field(f, 2, opt->description, strlen(opt->description));
    uint8_t *buf = NULL;
    size_t cap = 0, ev_cap = 0;
    SBookEval *ev_msgs = NULL;
    SBookEval **ev_ptrs = NULL;
    SBookMove *moves = malloc(BOOK_MAX_MOVES * sizeof *moves);
    SBookMove **mptr = malloc(BOOK_MAX_MOVES * sizeof *mptr);
    if (ok && (!moves || !mptr)) {
        SAY("out of memory");
        ok = false;
    }
    for (size_t i = 0; ok && i < l.n_order; i++) {
        uint32_t p = l.order[i];
        BookKey key;
        Position pos;
        StateInfo st;
        book_position_key(book, p, &key);
        int ply = book_position_ply(book, p);
        if (ply < 1 || ply > SBK_MAX_PLY)
            ply = 1;
        book_key_to_position(&key, &pos, &st, ply);
        SBookState s = SBOOK_STATE__INIT;
        s.has_id = i != 0;
        s.id = (int32_t)i;
        BookStats ps;
        if (book_get_stats(book, p, MOVE_NONE, &ps)) {
            s.has_games = ps.games != 0, s.games = (int32_t)ps.games;
            s.has_wonblack = ps.black_wins != 0, s.wonblack = (int32_t)ps.black_wins;
            s.has_wonwhite = ps.white_wins != 0, s.wonwhite = (int32_t)ps.white_wins;
            s.comment = (char *)ps.comment;
        }
        char sfen[SFEN_MAX];
        if (is_root[p]) {
            s.position = position_to_sfen(&pos, sfen, true);
            rep->roots++;
        }
        const BookEval *evals;
        size_t n_evals = book_get_evals(book, p, &evals);
        if (n_evals && !sbki_reserve_evals(&ev_msgs, &ev_ptrs, &ev_cap, n_evals)) {
            SAY("out of memory");
            ok = false;
            break;
        }
        for (size_t k = 0; k < n_evals; k++) {
            sbki_eval_to_msg(&evals[k], &ev_msgs[k]);
            ev_ptrs[k] = &ev_msgs[k];
        }
        s.n_evals = n_evals;
        s.evals = ev_ptrs;
        book_position_moves(book, p, l.list);
        size_t nm = 0;
        for (int k = 0; k < l.list->n; k++) {
            const BookMove *bm = &l.list->moves[k];
            SBookMove *o = &moves[nm];
            sbook_move__init(o);
            int32_t word;
            if (!sbk_move_encode(&pos, bm->move, &word)) {
                rep->illegal_moves++;
                continue;
            }
            o->has_move = true, o->move = word;
            uint32_t c = sbki_child_of(book, &pos, bm->move);
            o->has_nextstateid = true;
            o->nextstateid = c == UINT32_MAX ? -1 : (int32_t)l.out_index[c];
            if (c != UINT32_MAX)
                rep->linked_moves++;
            BookStats ms;
            int64_t weight;
            bool has_stats = book_get_stats(book, p, bm->move, &ms);
            if (has_stats)
                o->has_evaluation = ms.eval_symbol != 0, o->evaluation = ms.eval_symbol;
            /* The weight of the statistics when they hold one, else the count (what ShogiHome
             * and we read back as the count): a statistics record made only for a comment or
             * a mark holds weight 0, which must not erase the count. */
            if (has_stats && ms.weight != 0) {
                weight = ms.weight;
            } else {
                weight = bm->count > INT32_MAX ? INT32_MAX : (int64_t)bm->count;
                if (bm->count > INT32_MAX)
                    rep->weight_clamped++;
            }
            if (weight < 0 ? bm->count != 0 : (uint64_t)weight != bm->count)
                rep->counts++;
            o->has_weight = weight != 0, o->weight = (int32_t)weight;
            /* A score and depth the child's first analysis gives back are carried by it. */
            int32_t child_score = 0, child_depth = 0;
            bool derived = c != UINT32_MAX && sbki_child_eval_in_book(book, c, pos.side, &child_score, &child_depth);
            rep->ponders += bm->ponder != MOVE_NONE;
            rep->depths += bm->has_depth && !(derived && bm->depth == child_depth);
            rep->scores += bm->has_score && !(derived && bm->score == child_score);
            mptr[nm++] = o;
        }
        s.n_moves = nm;
        s.moves = mptr;
        size_t len = sbook_state__get_packed_size(&s);
        if (!sbki_reserve(&buf, &cap, len)) {
            SAY("out of memory");
            ok = false;
            break;
        }
        sbook_state__pack(&s, buf);
        ok = sbki_put_field(f, 3, buf, len);
        if (!ok)
            SAY("write error: %s", sbki_io_reason());
        rep->states++;
        rep->moves += nm;
        if (opt && opt->progress)
            progress_update(opt->progress, i + 1);
    }
    free(buf);
    free(moves);
    free(mptr);
    free(ev_msgs);
    free(ev_ptrs);
    free(l.order);
    free(l.out_index);
    free(l.list);
    free(reached);
    free(sorted);
    free(is_root);
    return ok;
}

bool sbk_write_file(const char *path, const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, char *err,
                    size_t err_len) {
    SbkWriteReport local;
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, err_len))
        return false;
    if (!sbk_write_stream(af.f, book, opt, rep ? rep : &local, err, err_len)) {
        atomic_file_abort(&af);
        if (err && err_len) { /* name the file: "OUT: write error: No space left on device" */
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            error_set(err, err_len, "%s: %s", path, why);
        }
        return false;
    }
    return atomic_file_commit(&af, err, err_len);
}

bool sbk_write_memory(const Book *book, const SbkWriteOptions *opt, SbkWriteReport *rep, uint8_t **out, size_t *len,
                      char *err, size_t err_len) {
    SbkWriteReport local;
    char *data = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&data, &size);
    if (!f) {
        SAY("out of memory");
        return false;
    }
    bool ok = sbk_write_stream(f, book, opt, rep ? rep : &local, err, err_len);
    if (fclose(f) != 0 && ok) {
        SAY("out of memory");
        ok = false;
    }
    if (!ok) {
        free(data);
        return false;
    }
    *out = (uint8_t *)data;
    *len = size;
    return true;
}
