/* prune.c - see prune.h. */
#include "bookgen/prune.h"

#include <stdlib.h>
#include <string.h>

#include "shogi/movegen.h"
#include "util/error.h"

const BookKey *prune_roots(const PruneOptions *opt, BookKey *start, size_t *n) {
    if (opt->roots) {
        *n = opt->n_roots;
        return opt->roots;
    }
    Position pos;
    StateInfo s;
    position_set_startpos(&pos, &s);
    book_key_from_position(&pos, start);
    *n = 1;
    return start;
}

int prune_keep_moves(BookMoveList *list, int min_share, uint64_t *rare) {
    uint64_t total = 0;
    int kept = 0;
    for (int i = 0; i < list->n; i++)
        total += list->moves[i].count;
    for (int i = 0; i < list->n; i++) {
        if (total && min_share > 0 && list->moves[i].count * 100 < (uint64_t)min_share * total) {
            ++*rare;
            continue;
        }
        list->moves[kept++] = list->moves[i];
    }
    list->n = kept;
    return kept;
}

bool prune_children(Position *pos, const BookMoveList *kept, bool through_legal, ExtMove *legal, PruneChildFn fn,
                    void *ctx) {
    BookKey child;
    for (int i = 0; i < kept->n; i++) {
        Move m = position_legal_move_from16(pos, kept->moves[i].move);
        if (m != MOVE_NONE) {
            book_key_after_move(pos, m, &child);
            if (!fn(ctx, &child))
                return false;
        }
    }
    if (through_legal) {
        int nl = generate_moves(pos, GEN_LEGAL, legal);
        for (int i = 0; i < nl; i++) {
            book_key_after_move(pos, legal[i].move, &child);
            if (!fn(ctx, &child))
                return false;
        }
    }
    return true;
}

typedef struct {
    const Book *in;
    int32_t d, *dist;
    uint32_t *queue;
    size_t *tail;
} Visit;

/* Queues the book position child, when it is new. */
static bool visit(void *ctx, const BookKey *child) {
    Visit *v = ctx;
    uint32_t cid;
    if (book_find(v->in, child, &cid) && v->dist[cid] < 0) {
        v->dist[cid] = v->d;
        v->queue[(*v->tail)++] = cid;
    }
    return true;
}

Book *book_prune(const Book *in, const PruneOptions *opt, PruneStats *stats, char *err, size_t err_len) {
    PruneStats local = {0};
    PruneStats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    size_t n = book_position_count(in);
    Book *out = book_create();
    int32_t *dist = malloc((n ? n : 1) * sizeof *dist); /* plies from a root, -1 = not reached */
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    BookMoveList *list = malloc(sizeof *list);
    ExtMove *legal = malloc(MAX_MOVES * sizeof *legal);
    bool ok = out && dist && queue && list && legal;
    if (!ok)
        error_set(err, err_len, "out of memory");
    size_t head = 0, tail = 0;
    for (size_t i = 0; ok && i < n; i++)
        dist[i] = -1;
    BookKey start;
    size_t n_roots;
    const BookKey *roots = prune_roots(opt, &start, &n_roots);
    for (size_t r = 0; ok && r < n_roots; r++) {
        uint32_t id;
        if (book_find(in, &roots[r], &id) && dist[id] < 0) {
            dist[id] = 0;
            queue[tail++] = id;
        }
    }
    while (ok && head < tail) {
        uint32_t id = queue[head++];
        book_position_moves(in, id, list);
        int kept = prune_keep_moves(list, opt->min_share, &st->rare_moves);
        BookKey key;
        book_position_key(in, id, &key);
        Position pos;
        StateInfo s;
        int ply = book_position_ply(in, id);
        if (!book_key_to_position(&key, &pos, &s, ply > 0 ? ply : 1)) {
            ok = error_set(err, err_len, "position %u: the key does not decode", id);
            break;
        }
        uint32_t nid;
        if (!book_add_position(out, &key, ply, &nid) || !book_set_moves(out, nid, list->moves, kept) ||
            !book_copy_notes(out, nid, in, id)) {
            ok = error_set(err, err_len, "out of memory");
            break;
        }
        st->positions++;
        st->moves += (uint64_t)kept;
        if (opt->max_ply > 0 && dist[id] + 2 > opt->max_ply)
            continue; /* the children would lie beyond max_ply: the moves stay as leaves */
        Visit v = {in, dist[id] + 1, dist, queue, &tail};
        prune_children(&pos, list, opt->through_legal, legal, visit, &v);
    }
    st->unreached = n - st->positions;
    free(dist);
    free(queue);
    free(list);
    free(legal);
    if (!ok) {
        book_free(out);
        return NULL;
    }
    return out;
}
