/* minimax.c - peta_shock-style back-propagation (minimax.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/minimax.h"
#include "shogi/movegen.h"

enum { VALUE_MAX_ = 32000, VALUE_INF_ = 32767, MAX_PLY_ = 256 };

typedef struct {
    int16_t value;
    uint16_t depth;
} VD;

typedef struct {
    Move16 move, ponder;
    bool leaf;
    VD vd;         /* leaf */
    uint32_t next; /* not leaf */
} Edge;

typedef struct {
    uint32_t first, n; /* edges */
    VD vd;             /* value for the parent */
    bool settled, checked, loop, visiting;
} Node;

/* x better than y for the side to move */
static bool vd_better(VD x, VD y) {
    if (x.value != y.value)
        return x.value > y.value;
    if (x.depth == MINIMAX_DEPTH_PERPETUAL_CHECK)
        return false;
    if (y.depth == MINIMAX_DEPTH_PERPETUAL_CHECK)
        return true;
    return x.value >= 0 ? x.depth < y.depth : x.depth > y.depth;
}

static VD for_parent(VD v) {
    VD r = {(int16_t)-v.value, (uint16_t)(v.depth + 1 > MINIMAX_DEPTH_MAX ? MINIMAX_DEPTH_MAX : v.depth + 1)};
    return r;
}

typedef struct {
    Node *nodes;
    Edge *edges;
} Graph;

static VD best_for_parent(const Graph *g, const Node *n) {
    VD best = {-VALUE_INF_, MINIMAX_DEPTH_MAX};
    for (uint32_t i = 0; i < n->n; i++) {
        const Edge *e = &g->edges[n->first + i];
        VD v = e->leaf ? e->vd : g->nodes[e->next].vd;
        if (vd_better(v, best))
            best = v;
    }
    return for_parent(best);
}

static VD dfs_loop(Graph *g, uint32_t id) {
    Node *n = &g->nodes[id];
    if (!n->loop)
        return n->vd;
    if (n->visiting) {
        VD r = n->checked ? (VD){-VALUE_MAX_, MINIMAX_DEPTH_PERPETUAL_CHECK}
                          : (VD){VALUE_MAX_, MINIMAX_DEPTH_PERPETUAL_CHECKED};
        return r;
    }
    n->visiting = true;
    VD best = {-VALUE_INF_, 0};
    for (uint32_t i = 0; i < n->n; i++) {
        const Edge *e = &g->edges[n->first + i];
        VD v = e->leaf ? e->vd : dfs_loop(g, e->next);
        if (vd_better(v, best))
            best = v;
    }
    g->nodes[id].visiting = false;
    return for_parent(best);
}

static int16_t clamp_score(const BookMove *m) {
    int32_t v = m->has_score ? m->score : 0;
    return (int16_t)(v > VALUE_MAX_ ? VALUE_MAX_ : v < -VALUE_MAX_ ? -VALUE_MAX_ : v);
}

static bool grow(Edge **edges, size_t *cap, size_t need) {
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 1024;
    while (c < need)
        c *= 2;
    Edge *p = realloc(*edges, c * sizeof *p);
    if (!p)
        return false;
    *edges = p;
    *cap = c;
    return true;
}

/* A copy of in where each position whose colour-flipped twin is in the book also holds
 * the mirrored moves of the twin that it lacks. NULL when memory runs out or a key does
 * not decode. */
static Book *with_twin_moves(const Book *in, MinimaxStats *stats, BookMoveList *own, BookMoveList *twin) {
    Book *out = book_create();
    if (!out || !book_merge(out, in)) {
        book_free(out);
        return NULL;
    }
    size_t n = book_position_count(in);
    for (uint32_t id = 0; id < n; id++) {
        BookKey k, fk;
        uint32_t tid, oid;
        book_position_key(in, id, &k);
        if (!book_key_flip(&k, &fk) || !book_find(in, &fk, &tid) || !book_find(out, &k, &oid))
            continue;
        stats->flipped_twins++;
        book_position_moves(in, id, own);
        book_position_moves(in, tid, twin);
        for (int i = 0; i < twin->n; i++) {
            BookMove m = twin->moves[i];
            m.move = book_move_flip(m.move);
            m.ponder = m.ponder == MOVE_NONE ? MOVE_NONE : book_move_flip(m.ponder);
            bool have = false;
            for (int j = 0; j < own->n && !have; j++)
                have = own->moves[j].move == m.move;
            if (have || m.move == MOVE_NONE)
                continue;
            if (!book_add_move(out, oid, &m, NULL)) {
                book_free(out);
                return NULL;
            }
            stats->flipped_moves++;
        }
    }
    return out;
}

Book *book_minimax(const Book *src, const MinimaxOptions *opt, MinimaxStats *stats, char *err, size_t err_len) {
    MinimaxOptions none = {0};
    MinimaxStats dummy;
    if (!opt)
        opt = &none;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    const Book *in = src;
    Book *joined = NULL; /* src with the twins' moves (flipped) */
    if (opt->flipped) {
        BookMoveList *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        joined = a && b ? with_twin_moves(src, stats, a, b) : NULL;
        free(a);
        free(b);
        if (!joined) {
            snprintf(err, err_len, "out of memory");
            return NULL;
        }
        in = joined;
    }
    size_t n = book_position_count(in);
    stats->positions = n;
    Graph g = {calloc(n ? n : 1, sizeof(Node)), NULL};
    size_t ecap = 0, ne = 0;
    BookMoveList *list = malloc(sizeof *list);
    ExtMove *gen = malloc(sizeof(ExtMove) * MAX_MOVES);
    uint32_t *loop_ids = NULL;
    Book *out = NULL;
    if (!g.nodes || !list || !gen)
        goto oom;
    if (opt->progress)
        progress_start(opt->progress, opt->progress->out, "minimax: graph", n, opt->progress->quiet);
    /* the graph */
    for (uint32_t id = 0; id < n; id++) {
        BookKey k;
        Position pos;
        StateInfo st, st2;
        book_position_key(in, id, &k);
        if (!book_key_to_position(&k, &pos, &st, 1)) {
            snprintf(err, err_len, "position %u: corrupt key", id);
            goto fail;
        }
        Node *node = &g.nodes[id];
        node->first = (uint32_t)ne;
        node->checked = position_in_check(&pos);
        book_position_moves(in, id, list);
        /* edges to book positions: every legal move (converge) or the book's moves */
        int cnt = 0;
        if (opt->converge) {
            cnt = generate_moves(&pos, GEN_LEGAL, gen);
        } else {
            for (int i = 0; i < list->n; i++) {
                Move m = position_legal_move_from16(&pos, list->moves[i].move);
                if (m != MOVE_NONE)
                    gen[cnt++].move = m;
            }
        }
        for (int i = 0; i < cnt; i++) {
            Move m = gen[i].move;
            position_do_move(&pos, m, &st2);
            BookKey ck;
            book_key_from_position(&pos, &ck);
            position_undo_move(&pos, m);
            uint32_t child;
            bool mirror = false;
            if (!book_find(in, &ck, &child)) {
                BookKey fk;
                mirror = opt->flipped && book_key_flip(&ck, &fk) && book_find(in, &fk, &child);
                if (!mirror)
                    continue;
            }
            Move16 m16 = move_to_move16(m);
            bool dup = false;
            for (uint32_t j = node->first; j < ne; j++)
                dup |= g.edges[j].move == m16;
            if (dup)
                continue;
            if (!grow(&g.edges, &ecap, ne + 1))
                goto oom;
            Edge e = {.move = m16, .ponder = MOVE_NONE, .leaf = false, .next = child};
            bool in_book = false;
            for (int j = 0; j < list->n; j++)
                if (list->moves[j].move == m16) {
                    e.ponder = list->moves[j].ponder;
                    in_book = true;
                }
            stats->converged_moves += !in_book;
            stats->flipped_edges += mirror;
            g.edges[ne++] = e;
        }
        node->settled = ne == node->first; /* no child in the book: a leaf node */
        for (int i = 0; i < list->n; i++) {
            const BookMove *bm = &list->moves[i];
            if (bm->move == MOVE_NONE)
                continue;
            bool dup = false;
            for (uint32_t j = node->first; j < ne; j++)
                dup |= g.edges[j].move == bm->move;
            if (dup)
                continue;
            if (!grow(&g.edges, &ecap, ne + 1))
                goto oom;
            Edge e = {.move = bm->move, .ponder = bm->ponder, .leaf = true, .vd = {clamp_score(bm), 0}};
            g.edges[ne++] = e;
        }
        node->n = (uint32_t)(ne - node->first);
        if (node->settled)
            node->vd = best_for_parent(&g, node);
        if (opt->progress)
            progress_update(opt->progress, id + 1);
    }
    if (opt->progress)
        progress_finish(opt->progress);
    stats->settled = 0;
    for (size_t i = 0; i < n; i++)
        stats->settled += g.nodes[i].settled;
    /* 1. settle what has no cycle below it */
    for (int round = 0; round < MAX_PLY_; round++) {
        uint64_t changed = 0;
        for (uint32_t id = 0; id < n; id++) {
            Node *node = &g.nodes[id];
            if (node->settled)
                continue;
            bool all = true;
            for (uint32_t i = 0; i < node->n && all; i++) {
                const Edge *e = &g.edges[node->first + i];
                all = e->leaf || g.nodes[e->next].settled;
            }
            if (!all)
                continue;
            node->vd = best_for_parent(&g, node);
            node->settled = true;
            changed++;
        }
        stats->settled += changed;
        if (!changed)
            break;
    }
    /* 2. perpetual-check loops */
    for (uint32_t id = 0; id < n; id++)
        g.nodes[id].loop = g.nodes[id].checked;
    for (int round = 0; round < MAX_PLY_; round++) {
        uint64_t changed = 0;
        for (uint32_t id = 0; id < n; id++) {
            Node *node = &g.nodes[id];
            if (!node->loop)
                continue;
            bool found = false;
            for (uint32_t i = 0; i < node->n && !found; i++) {
                const Edge *e = &g.edges[node->first + i];
                if (e->leaf)
                    continue;
                const Node *c = &g.nodes[e->next];
                for (uint32_t j = 0; j < c->n && !found; j++) {
                    const Edge *e2 = &g.edges[c->first + j];
                    found = !e2->leaf && g.nodes[e2->next].loop;
                }
            }
            if (!found) {
                node->loop = false;
                changed++;
            }
        }
        if (!changed)
            break;
    }
    size_t nloop = 0;
    for (uint32_t id = 0; id < n; id++)
        nloop += g.nodes[id].loop;
    loop_ids = malloc(sizeof *loop_ids * (nloop * 2 + 1));
    if (!loop_ids)
        goto oom;
    {
        size_t k = 0;
        for (uint32_t id = 0; id < n; id++)
            if (g.nodes[id].loop)
                loop_ids[k++] = id;
        size_t checked_loops = k;
        for (size_t a = 0; a < checked_loops; a++) {
            const Node *node = &g.nodes[loop_ids[a]];
            for (uint32_t i = 0; i < node->n; i++) {
                const Edge *e = &g.edges[node->first + i];
                if (e->leaf)
                    continue;
                Node *c = &g.nodes[e->next];
                for (uint32_t j = 0; j < c->n; j++) {
                    const Edge *e2 = &g.edges[c->first + j];
                    if (!e2->leaf && g.nodes[e2->next].loop && !c->loop) {
                        c->loop = true;
                        loop_ids[k++] = e->next;
                    }
                }
            }
        }
        nloop = k;
    }
    stats->check_loop = nloop;
    /* 3. start values of the cycles */
    for (uint32_t id = 0; id < n; id++) {
        Node *node = &g.nodes[id];
        if (node->settled)
            continue;
        if (!node->loop)
            node->vd = (VD){0, MINIMAX_DEPTH_MAX};
        else
            node->vd = (VD){(int16_t)(node->checked ? -VALUE_MAX_ : VALUE_MAX_), MINIMAX_DEPTH_MAX};
    }
    /* 4. propagate */
    for (int round = 0; round < MAX_PLY_ + 100; round++) {
        uint64_t changed = 0;
        for (uint32_t id = 0; id < n; id++) {
            Node *node = &g.nodes[id];
            if (node->settled || node->loop)
                continue;
            VD b = best_for_parent(&g, node);
            if (b.depth > MAX_PLY_)
                b.depth = MINIMAX_DEPTH_MAX;
            changed += b.value != node->vd.value || b.depth != node->vd.depth;
            node->vd = b;
        }
        for (size_t i = 0; i < nloop; i++)
            g.nodes[loop_ids[i]].vd = dfs_loop(&g, loop_ids[i]);
        stats->rounds++;
        if (!changed)
            break;
    }
    /* 5. the output */
    out = book_create();
    if (!out)
        goto oom;
    for (uint32_t id = 0; id < n; id++) {
        const Node *node = &g.nodes[id];
        BookKey k;
        book_position_key(in, id, &k);
        uint32_t oid;
        if (!book_add_position(out, &k, book_position_ply(in, id), &oid))
            goto oom;
        int m = 0;
        for (uint32_t i = 0; i < node->n && m < BOOK_MAX_MOVES; i++) {
            const Edge *e = &g.edges[node->first + i];
            VD v = e->vd;
            if (!e->leaf) {
                const Node *c = &g.nodes[e->next];
                v = c->vd;
                if (c->loop && c->checked)
                    v.depth = MINIMAX_DEPTH_PERPETUAL_CHECK;
            }
            BookMove bm = {.move = e->move,
                           .ponder = e->ponder,
                           .score = v.value,
                           .depth = v.depth,
                           .count = 1,
                           .has_score = true,
                           .has_depth = true};
            /* insertion keeps equal entries in their order (a stable sort by vd) */
            int j = m;
            while (j > 0 && vd_better((VD){(int16_t)bm.score, (uint16_t)bm.depth},
                                      (VD){(int16_t)list->moves[j - 1].score, (uint16_t)list->moves[j - 1].depth})) {
                list->moves[j] = list->moves[j - 1];
                j--;
            }
            list->moves[j] = bm;
            m++;
        }
        for (int i = 1; i < m; i++)
            if (list->moves[i].score == list->moves[0].score && list->moves[i].depth != list->moves[0].depth)
                list->moves[i].score--;
        for (int i = 0; i < m; i++)
            if (!book_add_move(out, oid, &list->moves[i], NULL))
                goto oom;
    }
    free(g.nodes);
    free(g.edges);
    free(list);
    free(gen);
    free(loop_ids);
    book_free(joined);
    return out;
oom:
    snprintf(err, err_len, "out of memory");
fail:
    book_free(out);
    free(g.nodes);
    free(g.edges);
    free(list);
    free(gen);
    free(loop_ids);
    book_free(joined);
    return NULL;
}
