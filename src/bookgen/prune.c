/* prune.c - see prune.h. */
#include "bookgen/prune.h"

#include <stdlib.h>
#include <string.h>

#include "shogi/movegen.h"
#include "util/error.h"

/* Queues the book position pos's move m leads to, when it is new. */
static void visit(const Book *in, Position *pos, Move m, int32_t d, int32_t *dist, uint32_t *queue, size_t *tail) {
    BookKey child;
    uint32_t cid;
    book_key_after_move(pos, m, &child);
    if (book_find(in, &child, &cid) && dist[cid] < 0) {
        dist[cid] = d;
        queue[(*tail)++] = cid;
    }
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
    {
        Position pos;
        StateInfo s;
        position_set_startpos(&pos, &s);
        book_key_from_position(&pos, &start);
    }
    const BookKey *roots = opt->roots ? opt->roots : &start;
    size_t n_roots = opt->roots ? opt->n_roots : 1;
    for (size_t r = 0; ok && r < n_roots; r++) {
        uint32_t id;
        if (book_find(in, &roots[r], &id) && dist[id] < 0) {
            dist[id] = 0;
            queue[tail++] = id;
        }
    }
    while (ok && head < tail) {
        uint32_t id = queue[head++];
        int k = book_position_moves(in, id, list), kept = 0;
        uint64_t total = 0;
        for (int i = 0; i < k; i++)
            total += list->moves[i].count;
        for (int i = 0; i < k; i++) {
            if (total && opt->min_share > 0 && list->moves[i].count * 100 < (uint64_t)opt->min_share * total) {
                st->rare_moves++;
                continue;
            }
            list->moves[kept++] = list->moves[i];
        }
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
        for (int i = 0; i < kept; i++) {
            Move m = position_legal_move_from16(&pos, list->moves[i].move);
            if (m != MOVE_NONE)
                visit(in, &pos, m, dist[id] + 1, dist, queue, &tail);
        }
        if (opt->through_legal) {
            int nl = generate_moves(&pos, GEN_LEGAL, legal);
            for (int i = 0; i < nl; i++)
                visit(in, &pos, legal[i].move, dist[id] + 1, dist, queue, &tail);
        }
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
