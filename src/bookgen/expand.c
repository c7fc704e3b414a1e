/* expand.c - `book expand` (expand.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bookgen/expand.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "util/sort.h"

/* The book's best move at pos: the highest score (a move without one counts as 0), then
 * the most played, then the first; MOVE_NONE when no candidate is legal. */
static Move best_book_move(const Position *pos, const BookMoveList *l) {
    int best = -1;
    Move bm = MOVE_NONE;
    for (int i = 0; i < l->n; i++) {
        Move m = position_legal_move_from16(pos, l->moves[i].move);
        if (m == MOVE_NONE)
            continue;
        if (best < 0 || l->moves[i].score > l->moves[best].score ||
            (l->moves[i].score == l->moves[best].score && l->moves[i].count > l->moves[best].count)) {
            best = i;
            bm = m;
        }
    }
    return bm;
}

int expand_find_start(const Book *b, Game *g, int min_candidates) {
    BookMoveList *l = malloc(sizeof *l);
    int played = 0;
    /* MAX_PLY bounds a walk that would cycle through a repetition */
    while (l && played < MAX_PLY && book_lookup(b, &g->pos, l) && l->n >= min_candidates) {
        Move m = best_book_move(&g->pos, l);
        if (m == MOVE_NONE || !game_push(g, m))
            break;
        played++;
    }
    free(l);
    return played;
}

typedef struct {
    const Book *book;
    MctsTree *tree;
    Book *counts;
    uint64_t **visits;
    size_t *cap;
    BookMoveList *list;
    bool ok;
} CountWalk;

static bool add_count(CountWalk *w, const Position *pos, uint64_t visits) {
    BookKey k;
    book_key_from_position(pos, &k);
    uint32_t id;
    if (!book_add_position(w->counts, &k, pos->ply, &id))
        return false;
    if (id >= *w->cap) {
        size_t c = *w->cap ? *w->cap * 2 : 1024;
        while (c <= id)
            c *= 2;
        uint64_t *v = realloc(*w->visits, c * sizeof *v);
        if (!v)
            return false;
        memset(v + *w->cap, 0, (c - *w->cap) * sizeof *v);
        *w->visits = v;
        *w->cap = c;
    }
    (*w->visits)[id] += visits;
    return true;
}

/* A candidate: the book lacks the position or has no move for it. */
static bool is_candidate(CountWalk *w, const Position *pos) {
    return !book_lookup(w->book, pos, w->list) || w->list->n == 0;
}

static void walk(CountWalk *w, Position *pos, uint32_t id, int depth) {
    MctsNode *node = mcts_node(w->tree, id);
    if (!w->ok || depth > MAX_PLY || atomic_load(&node->state) != MCTS_NODE_READY)
        return;
    MctsEdge *e = mcts_edges(w->tree, node);
    for (int i = 0; i < node->edge_count && w->ok; i++) {
        uint32_t visits = atomic_load(&e[i].visits);
        if (!visits)
            continue;
        StateInfo st;
        position_do_move(pos, e[i].move, &st);
        if (is_candidate(w, pos))
            w->ok = add_count(w, pos, visits);
        else {
            uint32_t c = atomic_load(&e[i].child);
            if (c != MCTS_NULL)
                walk(w, pos, c, depth + 1);
        }
        position_undo_move(pos, e[i].move);
    }
}

bool expand_count(const Book *b, MctsTree *t, const Game *start, Book *counts, uint64_t **visits, size_t *cap) {
    CountWalk w = {b, t, counts, visits, cap, malloc(sizeof(BookMoveList)), true};
    Game g;
    if (!w.list || !game_copy(&g, start)) {
        free(w.list);
        return false;
    }
    uint32_t root = t->root;
    if (is_candidate(&w, &g.pos))
        w.ok = add_count(&w, &g.pos, atomic_load(&mcts_node(t, root)->visits) + 1);
    else
        walk(&w, &g.pos, root, 0);
    game_free(&g);
    free(w.list);
    return w.ok;
}

typedef struct {
    const Book *counts;
    const uint64_t *visits;
} PickCtx;

/* Most visited first; ties in key order, so the choice does not depend on hashing. */
static int compare_pick(const void *ctx, uint32_t x, uint32_t y) {
    const PickCtx *c = ctx;
    uint64_t vx = c->visits[x], vy = c->visits[y];
    if (vx != vy)
        return vx > vy ? -1 : 1;
    BookKey kx, ky;
    book_position_key(c->counts, x, &kx);
    book_position_key(c->counts, y, &ky);
    return memcmp(&kx, &ky, sizeof kx);
}

size_t expand_pick(const Book *counts, const uint64_t *visits, size_t top, ExpandTarget *out) {
    size_t n = book_position_count(counts);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return 0;
    for (size_t i = 0; i < n; i++)
        ids[i] = (uint32_t)i;
    PickCtx c = {counts, visits};
    if (!sort_ids(ids, n, compare_pick, &c)) {
        free(ids);
        return 0;
    }
    size_t k = n < top ? n : top;
    for (size_t i = 0; i < k; i++) {
        book_position_key(counts, ids[i], &out[i].key);
        out[i].ply = book_position_ply(counts, ids[i]);
        out[i].visits = visits[ids[i]];
    }
    free(ids);
    return k;
}

/* The extra starts: book positions with 0 < moves < min_candidates, smallest ply first
 * (ties in key order), other than main. Returns how many were written to keys/plies. */
static int extra_starts(const Book *b, int min_candidates, const BookKey *main, int want, BookKey *keys, int *plies) {
    size_t n = book_position_count(b);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = book_position_move_count(b, (uint32_t)i);
        BookKey key;
        book_position_key(b, (uint32_t)i, &key);
        if (c > 0 && c < min_candidates && memcmp(&key, main, sizeof key) != 0)
            ids[k++] = (uint32_t)i;
    }
    /* selection of the `want` smallest (ply, key): want is small */
    int got = 0;
    for (; got < want && (size_t)got < k; got++) {
        size_t best = (size_t)got;
        for (size_t i = (size_t)got + 1; i < k; i++) {
            int pi = book_position_ply(b, ids[i]), pb = book_position_ply(b, ids[best]);
            BookKey ki, kb;
            book_position_key(b, ids[i], &ki);
            book_position_key(b, ids[best], &kb);
            if (pi < pb || (pi == pb && memcmp(&ki, &kb, sizeof ki) < 0))
                best = i;
        }
        uint32_t t = ids[got];
        ids[got] = ids[best];
        ids[best] = t;
        book_position_key(b, ids[got], &keys[got]);
        plies[got] = book_position_ply(b, ids[got]);
    }
    free(ids);
    return got;
}

/* Steps 2-3 from one start. */
static bool search_and_count(Book *b, const ExpandOptions *o, MctsSearch *m, const Game *start, Book *counts,
                             uint64_t **visits, size_t *cap) {
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = o->playouts;
    MctsOptions mo = o->mcts;
    mo.reuse_tree = false;
    mo.info_interval_ms = 0;
    mo.external_stop = o->stop;
    mcts_clear(m);
    mcts_run(m, start, &lim, &mo, o->provider, NULL);
    return expand_count(b, mcts_tree(m), start, counts, visits, cap);
}

bool book_expand(Book *b, const ExpandOptions *o, ExpandStats *stats, char *err, size_t err_len) {
    memset(stats, 0, sizeof *stats);
    MctsSearch *m = mcts_create();
    ExpandTarget *targets = malloc((o->top ? o->top : 1) * sizeof *targets);
    BookKey *keys = malloc((o->top ? o->top : 1) * sizeof *keys);
    int *plies = malloc((o->top ? o->top : 1) * sizeof *plies);
    int nextra = o->extra_starts > 0 ? o->extra_starts : 0;
    BookKey *xkeys = malloc((size_t)(nextra + 1) * sizeof *xkeys);
    int *xplies = malloc((size_t)(nextra + 1) * sizeof *xplies);
    Book *seen = book_create();
    bool ok = false;
    if (!m || !targets || !keys || !plies || !xkeys || !xplies || !seen) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    if (o->progress)
        progress_start(o->progress, o->progress->out, "expanding (rounds)", (uint64_t)o->rounds, o->progress->quiet);
    for (int round = 1; round <= o->rounds; round++) {
        if (o->stop && *o->stop) {
            stats->interrupted = true;
            break;
        }
        Book *counts = book_create();
        uint64_t *visits = NULL;
        size_t cap = 0;
        Game g;
        game_init(&g);
        bool good = counts != NULL;
        if (good && o->root_sfen && !game_set_sfen(&g, o->root_sfen, err, err_len)) {
            book_free(counts);
            game_free(&g);
            goto out;
        }
        if (good) {
            expand_find_start(b, &g, o->min_candidates);
            good = search_and_count(b, o, m, &g, counts, &visits, &cap);
            BookKey main;
            book_key_from_position(&g.pos, &main);
            int nx = extra_starts(b, o->min_candidates, &main, nextra, xkeys, xplies);
            for (int i = 0; good && i < nx && !(o->stop && *o->stop); i++) {
                Position pos;
                StateInfo st;
                Game xg;
                game_init(&xg);
                if (book_key_to_position(&xkeys[i], &pos, &st, xplies[i] > 0 ? xplies[i] : 1) &&
                    game_set_position(&xg, &pos, NULL, 0))
                    good = search_and_count(b, o, m, &xg, counts, &visits, &cap);
                game_free(&xg);
            }
        }
        size_t k = good ? expand_pick(counts, visits, o->top, targets) : 0;
        for (size_t i = 0; i < k; i++) {
            uint32_t sid;
            if (!book_add_position(seen, &targets[i].key, 0, &sid))
                good = false;
        }
        stats->candidates = book_position_count(seen);
        book_free(counts);
        free(visits);
        game_free(&g);
        if (!good) {
            snprintf(err, err_len, "out of memory");
            goto out;
        }
        if (o->stop && *o->stop) {
            stats->interrupted = true;
            break;
        }
        /* step 4 */
        for (size_t i = 0; i < k; i++) {
            keys[i] = targets[i].key;
            plies[i] = targets[i].ply;
        }
        ThinkOptions to = o->think;
        to.multipv = 1;
        to.only_keys = keys;
        to.only_plies = plies;
        to.only_count = k;
        to.max_positions = 0;
        to.stop = o->stop;
        ThinkStats ts;
        if (!book_think(b, &to, &ts, err, err_len))
            goto out;
        stats->thought += ts.searched;
        stats->moves_added += ts.moves_added;
        if (ts.interrupted) {
            stats->interrupted = true;
            break;
        }
        stats->rounds_done = round;
        if (o->checkpoint && !o->checkpoint(o->ctx, b, round)) {
            snprintf(err, err_len, "cannot write the checkpoint after round %d", round);
            goto out;
        }
        /* the round is in b (and the checkpoint): the next round's journal starts empty,
         * or book_think would merge this round's moves a second time */
        if (to.journal)
            unlink(to.journal);
        if (o->progress)
            progress_update(o->progress, (uint64_t)round);
    }
    if (o->progress)
        progress_finish(o->progress);
    ok = true;
out:
    mcts_destroy(m);
    free(targets);
    free(keys);
    free(plies);
    free(xkeys);
    free(xplies);
    book_free(seen);
    return ok;
}
