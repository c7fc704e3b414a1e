/* minimax.c - peta_shock-style back-propagation (minimax.h).
 *
 * Memory. The graph is 12 bytes per node and 8 per edge (a leaf edge keeps its score, an
 * inner edge the child's id), plus 4 bytes per inner edge for the parent lists, and the
 * results are written back into the book itself, so a 12-million-position book needs
 * little beyond the book. Time. Edges are found in parallel over position ranges; step 1
 * is a queue (retrograde analysis over the parent lists), linear in the edges. The graph
 * and its steps are shared (minimax_internal.h) with minimax_file.c, which builds the
 * same graph from a sorted file without the book. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/minimax.h"
#include "bookgen/minimax_internal.h"
#include "shogi/movegen.h"
#include "shogi/packed_sfen.h"

enum { VALUE_MAX_ = MINIMAX_VALUE_MAX, VALUE_INF_ = MINIMAX_VALUE_INF, MAX_PLY_ = 256, MINIMAX_THREADS_MAX = 64 };

bool minimax_filter_init(ChildFilters *f, size_t n, int sets) {
    uint64_t blocks = 16;
    while (blocks * 4 < (uint64_t)n) /* 64 bits a block: 4 positions, 16 bits each */
        blocks *= 2;
    f->mask = blocks - 1;
    f->sets = sets;
    f->words = calloc(blocks * (uint64_t)sets, sizeof *f->words);
    return f->words != NULL;
}

/* Fills the filters with the keys of every book position and, when twin_keys is non-null
 * (flipped), of its twin, whose keys also go to twin_keys[id] (n entries, caller-owned).
 * A key that does not decode is left out (its twin key is 0): building its node reports
 * it. Returns false when memory runs out. */
static bool child_filters_init(ChildFilters *f, const Book *b, Key *twin_keys) {
    size_t n = book_position_count(b);
    if (!minimax_filter_init(f, n, twin_keys ? 2 : 1))
        return false;
    for (uint32_t id = 0; id < n; id++) {
        BookKey k;
        Key key, twin = 0;
        book_position_key(b, id, &k);
        if (packed_sfen_keys(&k, &key, &twin)) {
            filter_add(f, FILTER_BOOK, key);
            if (twin_keys)
                filter_add(f, FILTER_MIRROR, twin);
        }
        if (twin_keys)
            twin_keys[id] = twin;
    }
    return true;
}

static VD edge_vd(const Graph *g, const Edge *e) {
    return e->next == NO_NEXT ? (VD){e->leaf, 0} : g->nodes[e->next].vd;
}

static VD best_for_parent(const Graph *g, const Node *n) {
    VD best = {-VALUE_INF_, MINIMAX_DEPTH_MAX};
    for (uint32_t i = 0; i < n->n; i++) {
        VD v = edge_vd(g, &g->edges[n->first + i]);
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
        VD v = e->next == NO_NEXT ? (VD){e->leaf, 0} : dfs_loop(g, e->next);
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

/* Each position whose colour-flipped twin is in the book gets the mirrored moves of the
 * twin that it lacks; the twin is flipped and looked up only when its key (twin_keys[id])
 * is in the filter of the book's keys. Returns false when memory runs out. */
static bool add_twin_moves(Book *b, const ChildFilters *filters, const Key *twin_keys, MinimaxStats *stats,
                           BookMoveList *own, BookMoveList *twin) {
    size_t n = book_position_count(b);
    for (uint32_t id = 0; id < n; id++) {
        BookKey k, fk;
        uint32_t tid;
        if (!filter_may_hold(filters, FILTER_BOOK, twin_keys[id]))
            continue;
        book_position_key(b, id, &k);
        if (!book_key_flip(&k, &fk) || !book_find(b, &fk, &tid))
            continue;
        stats->flipped_twins++;
        book_position_moves(b, id, own);
        book_position_moves(b, tid, twin);
        for (int i = 0; i < twin->n; i++) {
            BookMove m = minimax_mirror_move(twin->moves[i]);
            bool have = false;
            for (int j = 0; j < own->n && !have; j++)
                have = own->moves[j].move == m.move;
            if (have || m.move == MOVE_NONE)
                continue;
            if (!book_add_move(b, id, &m, NULL))
                return false;
            stats->flipped_moves++;
        }
    }
    return true;
}

/* ---- the graph, built in parallel over ranges of ids ---- */

typedef struct Part {
    const Book *b;
    EdgeSink s;
    uint32_t lo, hi; /* ids */
    uint64_t done;
    bool oom, corrupt;
    uint32_t corrupt_id;
    struct Part *all; /* set on the part the calling thread runs: it reports the progress */
    int nall;
} Part;

static bool push_edge(EdgeSink *p, Edge e) {
    if (p->ne == p->cap) {
        size_t c = p->cap ? p->cap * 2 : 4096;
        Edge *q = realloc(p->edges, c * sizeof *q);
        if (!q)
            return false;
        p->edges = q;
        p->cap = c;
    }
    p->edges[p->ne++] = e;
    return true;
}

bool minimax_node_edges(EdgeSink *p, uint32_t id, Position *pos, const BookMoveList *list, ExtMove *gen) {
    Node *node = &p->nodes[id];
    size_t first = p->ne;
    node->first = (uint32_t)first;
    node->checked = position_in_check(pos);
    node->built = true;
    /* edges to book positions: every legal move (converge) or the book's moves */
    int cnt = 0;
    if (p->opt->converge) {
        cnt = generate_moves(pos, GEN_LEGAL, gen);
    } else {
        for (int i = 0; i < list->n; i++) {
            Move m = position_legal_move_from16(pos, list->moves[i].move);
            if (m != MOVE_NONE)
                gen[cnt++].move = m;
        }
    }
    for (int i = 0; i < cnt; i++) {
        Move m = gen[i].move;
        bool may_book = true, may_mirror = p->opt->flipped;
        Key z = 0;
        if (p->filters) {
            z = position_key_after(pos, m);
            may_book = filter_may_hold(p->filters, FILTER_BOOK, z);
            may_mirror = may_mirror && filter_may_hold(p->filters, FILTER_MIRROR, z);
            if (!may_book && !may_mirror)
                continue;
        }
        BookKey ck;
        uint32_t child;
        bool mirror = false;
        if (may_book)
            book_key_after_move(pos, m, &ck);
        if (!may_book || !p->find(p->find_ctx, &ck, p->filters ? &z : NULL, &child)) {
            BookKey fk;
            if (may_mirror)
                book_key_flipped_after_move(pos, m, &fk);
            mirror = may_mirror && p->find(p->find_ctx, &fk, NULL, &child);
            if (!mirror)
                continue;
        }
        Move16 m16 = move_to_move16(m);
        bool dup = false;
        for (size_t j = first; j < p->ne; j++)
            dup |= p->edges[j].move == m16;
        if (dup)
            continue;
        bool in_book = false;
        for (int j = 0; j < list->n && !in_book; j++)
            in_book = list->moves[j].move == m16;
        p->converged += !in_book;
        p->mirrored += mirror;
        if (!push_edge(p, (Edge){.next = child, .leaf = mirror, .move = m16}))
            return false;
    }
    node->settled = p->ne == first; /* no child in the book: a leaf node */
    for (int i = 0; i < list->n; i++) {
        const BookMove *bm = &list->moves[i];
        if (bm->move == MOVE_NONE)
            continue;
        bool dup = false;
        for (size_t j = first; j < p->ne; j++)
            dup |= p->edges[j].move == bm->move;
        if (dup)
            continue;
        if (!push_edge(p, (Edge){.next = NO_NEXT, .leaf = clamp_score(bm), .move = bm->move}))
            return false;
    }
    node->n = (uint16_t)(p->ne - first);
    return true;
}

static bool find_in_book(const void *ctx, const BookKey *key, const Key *zob, uint32_t *id) {
    (void)zob;
    return book_find(ctx, key, id);
}

/* minimax_node_edges() with the node's moves from the book, and the progress. */
static bool part_node_edges(Part *p, uint32_t id, Position *pos, BookMoveList *list, ExtMove *gen) {
    book_position_moves(p->b, id, list);
    if (!minimax_node_edges(&p->s, id, pos, list, gen))
        return false;
    __atomic_store_n(&p->done, p->done + 1, __ATOMIC_RELAXED); /* read by the reporting thread */
    if (p->all && p->s.opt->progress && (p->done & 4095) == 0) {
        uint64_t done = 0;
        for (int t = 0; t < p->nall; t++)
            done += __atomic_load_n(&p->all[t].done, __ATOMIC_RELAXED);
        progress_update(p->s.opt->progress, done);
    }
    return true;
}

enum { WALK_DEPTH_MAX = 512 };

/* Builds the nodes lo..hi-1. Decoding a key is the slow part, so from each node decoded
 * the walk goes on through its edges, making the moves, to the children of the same
 * range not built yet (not through a mirror edge, marked by leaf 1: that child is not the
 * position the move makes). */
static void *build_part(void *arg) {
    Part *p = arg;
    BookMoveList *list = malloc(sizeof *list);
    ExtMove *gen = malloc(sizeof(ExtMove) * MAX_MOVES);
    StateInfo *st = malloc(sizeof *st * (WALK_DEPTH_MAX + 1));
    struct {
        uint32_t id, edge;
        Move move; /* the move that led here */
    } *stack = malloc(sizeof *stack * (WALK_DEPTH_MAX + 1));
    if (!list || !gen || !st || !stack) {
        p->oom = true;
        goto out;
    }
    for (uint32_t root = p->lo; root < p->hi; root++) {
        if (p->s.nodes[root].built)
            continue;
        BookKey k;
        Position pos;
        book_position_key(p->b, root, &k);
        if (!book_key_to_position(&k, &pos, &st[0], 1)) {
            p->corrupt = true;
            p->corrupt_id = root;
            break;
        }
        if (!part_node_edges(p, root, &pos, list, gen)) {
            p->oom = true;
            break;
        }
        int top = 0;
        stack[0].id = root;
        stack[0].edge = 0;
        stack[0].move = MOVE_NONE;
        while (top >= 0) {
            Node *node = &p->s.nodes[stack[top].id];
            if (stack[top].edge >= node->n || top == WALK_DEPTH_MAX) {
                if (top > 0)
                    position_undo_move(&pos, stack[top].move);
                top--;
                continue;
            }
            const Edge e = p->s.edges[node->first + stack[top].edge++];
            if (e.next == NO_NEXT || e.leaf || e.next < p->lo || e.next >= p->hi || p->s.nodes[e.next].built)
                continue;
            Move m = position_legal_move_from16(&pos, e.move);
            position_do_move(&pos, m, &st[top + 1]);
            if (!part_node_edges(p, e.next, &pos, list, gen)) {
                p->oom = true;
                goto out;
            }
            top++;
            stack[top].id = e.next;
            stack[top].edge = 0;
            stack[top].move = m;
        }
    }
out:
    free(list);
    free(gen);
    free(st);
    free(stack);
    return NULL;
}

/* Builds g (nodes and one edge array) with up to threads workers. Returns false with the
 * reason in err. */
static bool build_graph(const Book *in, const MinimaxOptions *opt, const ChildFilters *filters, Graph *g,
                        MinimaxStats *stats, char *err, size_t err_len) {
    size_t n = book_position_count(in);
    int nt = opt->threads < 1 ? 1 : opt->threads > MINIMAX_THREADS_MAX ? MINIMAX_THREADS_MAX : opt->threads;
    if ((size_t)nt > n / 1024 + 1)
        nt = (int)(n / 1024 + 1);
    Part parts[MINIMAX_THREADS_MAX];
    pthread_t th[MINIMAX_THREADS_MAX];
    bool started[MINIMAX_THREADS_MAX] = {false};
    memset(parts, 0, sizeof parts);
    for (int t = 0; t < nt; t++) {
        parts[t] =
            (Part){.b = in,
                   .s = {.opt = opt, .filters = filters, .find = find_in_book, .find_ctx = in, .nodes = g->nodes},
                   .lo = (uint32_t)(n * (size_t)t / (size_t)nt),
                   .hi = (uint32_t)(n * (size_t)(t + 1) / (size_t)nt)};
        started[t] = t > 0 && pthread_create(&th[t], NULL, build_part, &parts[t]) == 0;
    }
    /* the calling thread does the first range itself (and reports the progress), then
     * the ranges no thread took */
    parts[0].all = parts;
    parts[0].nall = nt;
    build_part(&parts[0]);
    for (int t = 1; t < nt; t++)
        if (!started[t])
            build_part(&parts[t]);
    for (int t = 1; t < nt; t++)
        if (started[t])
            pthread_join(th[t], NULL);
    if (opt->progress)
        progress_update(opt->progress, n);
    bool ok = true;
    size_t total = 0;
    for (int t = 0; t < nt; t++) {
        if (parts[t].corrupt && ok) {
            snprintf(err, err_len, "position %u: corrupt key", parts[t].corrupt_id);
            ok = false;
        }
        if (parts[t].oom && ok) {
            snprintf(err, err_len, "out of memory");
            ok = false;
        }
        total += parts[t].s.ne;
        stats->converged_moves += parts[t].s.converged;
        stats->flipped_edges += parts[t].s.mirrored;
    }
    if (ok && total >= NO_NEXT) {
        snprintf(err, err_len, "too many moves (%zu)", total);
        ok = false;
    }
    if (ok && nt == 1) {
        g->edges = parts[0].s.edges;
        parts[0].s.edges = NULL;
    } else if (ok) {
        g->edges = malloc((total ? total : 1) * sizeof(Edge));
        if (!g->edges) {
            snprintf(err, err_len, "out of memory");
            ok = false;
        }
        size_t off = 0;
        for (int t = 0; ok && t < nt; t++) {
            memcpy(g->edges + off, parts[t].s.edges, parts[t].s.ne * sizeof(Edge));
            for (uint32_t id = parts[t].lo; id < parts[t].hi; id++)
                g->nodes[id].first += (uint32_t)off;
            off += parts[t].s.ne;
        }
    }
    for (int t = 0; t < nt; t++)
        free(parts[t].s.edges);
    return ok;
}

/* ---- the propagation ---- */

/* Step 1: retrograde analysis from the nodes without children in the book, over parent
 * lists (pstart/plist, the parents of node i are plist[pstart[i]..pstart[i+1]), one entry
 * per inner edge). Returns false when memory runs out. */
bool minimax_settle(Graph *g, size_t n, MinimaxStats *stats) {
    uint32_t *outdeg = calloc(n ? n : 1, sizeof *outdeg), *pstart = calloc(n + 1, sizeof *pstart);
    uint32_t *plist = NULL, *queue = NULL;
    bool ok = false;
    if (!outdeg || !pstart)
        goto out;
    size_t inner = 0;
    for (uint32_t id = 0; id < n; id++)
        for (uint32_t i = 0; i < g->nodes[id].n; i++) {
            const Edge *e = &g->edges[g->nodes[id].first + i];
            if (e->next != NO_NEXT) {
                outdeg[id]++;
                pstart[e->next + 1]++;
                inner++;
            }
        }
    for (size_t i = 0; i < n; i++)
        pstart[i + 1] += pstart[i];
    plist = malloc((inner ? inner : 1) * sizeof *plist);
    queue = malloc((n ? n : 1) * sizeof *queue);
    if (!plist || !queue)
        goto out;
    for (uint32_t id = 0; id < n; id++)
        for (uint32_t i = 0; i < g->nodes[id].n; i++) {
            const Edge *e = &g->edges[g->nodes[id].first + i];
            if (e->next != NO_NEXT)
                plist[pstart[e->next]++] = id; /* pstart[c] ends at the start of c + 1 */
        }
    for (size_t i = n; i > 0; i--)
        pstart[i] = pstart[i - 1];
    pstart[0] = 0;
    size_t head = 0, tail = 0;
    for (uint32_t id = 0; id < n; id++)
        if (!outdeg[id]) {
            g->nodes[id].settled = true;
            g->nodes[id].vd = best_for_parent(g, &g->nodes[id]);
            queue[tail++] = id;
        }
    while (head < tail) {
        uint32_t c = queue[head++];
        for (uint32_t i = pstart[c]; i < pstart[c + 1]; i++) {
            uint32_t p = plist[i];
            if (--outdeg[p] == 0) {
                g->nodes[p].settled = true;
                g->nodes[p].vd = best_for_parent(g, &g->nodes[p]);
                queue[tail++] = p;
            }
        }
    }
    stats->settled = tail;
    ok = true;
out:
    free(outdeg);
    free(pstart);
    free(plist);
    free(queue);
    return ok;
}

/* Steps 2-4 over the nodes step 1 left. Returns false when memory runs out. */
bool minimax_propagate(Graph *g, size_t n, MinimaxStats *stats) {
    /* 2. perpetual-check loops: start from the positions in check, repeatedly drop those
     * from which no loop position is reached two plies later */
    size_t ncand = 0, nopen = 0;
    for (uint32_t id = 0; id < n; id++) {
        g->nodes[id].loop = g->nodes[id].checked;
        ncand += g->nodes[id].checked;
        nopen += !g->nodes[id].settled;
    }
    uint32_t *loop_ids = malloc(sizeof *loop_ids * (ncand * 2 + 1));
    uint32_t *open = malloc(sizeof *open * (nopen + 1));
    if (!loop_ids || !open) {
        free(loop_ids);
        free(open);
        return false;
    }
    size_t k = 0;
    for (uint32_t id = 0; id < n; id++)
        if (g->nodes[id].checked)
            loop_ids[k++] = id;
    for (int round = 0; round < MAX_PLY_; round++) {
        uint64_t changed = 0;
        size_t keep = 0;
        for (size_t a = 0; a < k; a++) {
            Node *node = &g->nodes[loop_ids[a]];
            bool found = false;
            for (uint32_t i = 0; i < node->n && !found; i++) {
                const Edge *e = &g->edges[node->first + i];
                if (e->next == NO_NEXT)
                    continue;
                const Node *c = &g->nodes[e->next];
                for (uint32_t j = 0; j < c->n && !found; j++) {
                    const Edge *e2 = &g->edges[c->first + j];
                    found = e2->next != NO_NEXT && g->nodes[e2->next].loop;
                }
            }
            if (!found) {
                node->loop = false;
                changed++;
            } else
                loop_ids[keep++] = loop_ids[a];
        }
        k = keep;
        if (!changed)
            break;
    }
    /* join the positions in between */
    size_t checked_loops = k;
    for (size_t a = 0; a < checked_loops; a++) {
        const Node *node = &g->nodes[loop_ids[a]];
        for (uint32_t i = 0; i < node->n; i++) {
            const Edge *e = &g->edges[node->first + i];
            if (e->next == NO_NEXT)
                continue;
            Node *c = &g->nodes[e->next];
            for (uint32_t j = 0; j < c->n; j++) {
                const Edge *e2 = &g->edges[c->first + j];
                if (e2->next != NO_NEXT && g->nodes[e2->next].loop && !c->loop) {
                    c->loop = true;
                    loop_ids[k++] = e->next;
                }
            }
        }
    }
    size_t nloop = k;
    stats->check_loop = nloop;
    /* 3. start values of the cycles */
    size_t no = 0;
    for (uint32_t id = 0; id < n; id++) {
        Node *node = &g->nodes[id];
        if (node->settled)
            continue;
        if (!node->loop) {
            node->vd = (VD){0, MINIMAX_DEPTH_MAX};
            open[no++] = id;
        } else
            node->vd = (VD){(int16_t)(node->checked ? -VALUE_MAX_ : VALUE_MAX_), MINIMAX_DEPTH_MAX};
    }
    /* 4. propagate */
    for (int round = 0; round < MAX_PLY_ + 100; round++) {
        uint64_t changed = 0;
        for (size_t a = 0; a < no; a++) {
            Node *node = &g->nodes[open[a]];
            VD b = best_for_parent(g, node);
            if (b.depth > MAX_PLY_)
                b.depth = MINIMAX_DEPTH_MAX;
            changed += b.value != node->vd.value || b.depth != node->vd.depth;
            node->vd = b;
        }
        for (size_t i = 0; i < nloop; i++)
            g->nodes[loop_ids[i]].vd = dfs_loop(g, loop_ids[i]);
        stats->rounds++;
        if (!changed)
            break;
    }
    free(loop_ids);
    free(open);
    return true;
}

int minimax_node_result(const Graph *g, uint32_t id, const BookMoveList *old, BookMoveList *list) {
    const Node *node = &g->nodes[id];
    int m = 0;
    for (uint32_t i = 0; i < node->n && m < BOOK_MAX_MOVES; i++) {
        const Edge *e = &g->edges[node->first + i];
        VD v = edge_vd(g, e);
        if (e->next != NO_NEXT) {
            const Node *c = &g->nodes[e->next];
            if (c->loop && c->checked)
                v.depth = MINIMAX_DEPTH_PERPETUAL_CHECK;
        }
        BookMove bm = {.move = e->move,
                       .ponder = MOVE_NONE,
                       .score = v.value,
                       .depth = v.depth,
                       .count = 1,
                       .has_score = true,
                       .has_depth = true};
        for (int j = 0; j < old->n; j++)
            if (old->moves[j].move == e->move) {
                bm.ponder = old->moves[j].ponder;
                if (old->moves[j].count > 0)
                    bm.count = old->moves[j].count; /* the games' counts stay (lossless) */
            }
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
    list->n = m;
    return m;
}

/* Step 5: each position's moves, sorted by (score, depth), written back into b. */
static bool write_back(Book *b, const Graph *g, size_t n, BookMoveList *old, BookMoveList *list) {
    for (uint32_t id = 0; id < n; id++) {
        book_position_moves(b, id, old);
        int m = minimax_node_result(g, id, old, list);
        if (!book_set_moves(b, id, list->moves, m))
            return false;
    }
    return true;
}

bool book_minimax_in_place(Book *b, const MinimaxOptions *opt, MinimaxStats *stats, char *err, size_t err_len) {
    MinimaxOptions none = {0};
    MinimaxStats dummy;
    if (!opt)
        opt = &none;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    size_t n = book_position_count(b);
    stats->positions = n;
    Graph g = {calloc(n ? n : 1, sizeof(Node)), NULL};
    BookMoveList *l1 = malloc(sizeof *l1), *l2 = malloc(sizeof *l2);
    ChildFilters filters = {NULL, 0, 0};
    bool ok = false;
    if (!g.nodes || !l1 || !l2)
        goto oom;
    if (opt->flipped) {
        /* the twin keys live only until the twins have their moves (before the graph) */
        Key *twin_keys = malloc((n ? n : 1) * sizeof *twin_keys);
        bool done = twin_keys && child_filters_init(&filters, b, twin_keys) &&
                    add_twin_moves(b, &filters, twin_keys, stats, l1, l2);
        free(twin_keys);
        if (!done)
            goto oom;
    } else if (opt->converge && !child_filters_init(&filters, b, NULL))
        goto oom;
    if (opt->progress)
        progress_start(opt->progress, opt->progress->out, "minimax: graph", n, opt->progress->quiet);
    ok = build_graph(b, opt, opt->converge ? &filters : NULL, &g, stats, err, err_len);
    if (opt->progress)
        progress_finish(opt->progress);
    if (!ok)
        goto out;
    ok = false;
    if (!minimax_settle(&g, n, stats) || !minimax_propagate(&g, n, stats) || !write_back(b, &g, n, l1, l2))
        goto oom;
    ok = true;
    goto out;
oom:
    snprintf(err, err_len, "out of memory");
out:
    free(filters.words);
    free(g.nodes);
    free(g.edges);
    free(l1);
    free(l2);
    return ok;
}

Book *book_minimax(const Book *in, const MinimaxOptions *opt, MinimaxStats *stats, char *err, size_t err_len) {
    Book *out = book_create();
    if (!out || !book_merge(out, in)) {
        book_free(out);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    if (!book_minimax_in_place(out, opt, stats, err, err_len)) {
        book_free(out);
        return NULL;
    }
    return out;
}
