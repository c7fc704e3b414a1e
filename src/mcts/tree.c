/* tree.c - the MCTS node store, PUCT selection and backup (tree.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcts/tree.h"

void mcts_params_default(MctsParams *p) {
    p->c_init = 1.44;
    p->c_base = 28288;
    p->c_fpu_reduction = 0.27;
    p->c_init_root = 1.16;
    p->c_base_root = 25617;
    p->c_fpu_reduction_root = 0.0;
    p->virtual_loss = 1;
    p->draw_value = 0.5;
}

/* C11 has no atomic add for floating point: a compare-and-swap loop. */
static void atomic_add_double(_Atomic double *x, double v) {
    double old = atomic_load_explicit(x, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(x, &old, old + v, memory_order_relaxed, memory_order_relaxed)) {
    }
}

static void node_reset(MctsNode *n) {
    atomic_init(&n->visits, 0);
    atomic_init(&n->state, MCTS_NODE_NEW);
    atomic_init(&n->proven, MCTS_UNPROVEN);
    n->edge_count = 0;
    n->first_edge = 0;
    n->value = 0.5f;
    atomic_init(&n->win, 0.0);
}

void mcts_tree_clear(MctsTree *t) {
    atomic_store(&t->node_used, 0);
    atomic_store(&t->edge_used, 0);
    atomic_store(&t->full, false);
    t->root = mcts_node_new(t);
}

bool mcts_tree_init_exact(MctsTree *t, uint32_t node_cap, uint32_t edge_cap) {
    memset(t, 0, sizeof *t);
    if (node_cap < 1)
        node_cap = 1;
    t->nodes = malloc((size_t)node_cap * sizeof *t->nodes);
    t->edges = malloc((size_t)(edge_cap ? edge_cap : 1) * sizeof *t->edges);
    if (!t->nodes || !t->edges) {
        mcts_tree_free(t);
        return false;
    }
    t->node_cap = node_cap;
    t->edge_cap = edge_cap;
    mcts_tree_clear(t);
    return true;
}

bool mcts_tree_init(MctsTree *t, size_t mb) {
    size_t per_node = sizeof(MctsNode) + MCTS_EDGES_PER_NODE * sizeof(MctsEdge);
    size_t nodes = mb * 1024 * 1024 / per_node;
    if (nodes < 64)
        nodes = 64;
    if (nodes > UINT32_MAX / MCTS_EDGES_PER_NODE - 1)
        nodes = UINT32_MAX / MCTS_EDGES_PER_NODE - 1;
    return mcts_tree_init_exact(t, (uint32_t)nodes, (uint32_t)(nodes * MCTS_EDGES_PER_NODE));
}

void mcts_tree_free(MctsTree *t) {
    free(t->nodes);
    free(t->edges);
    t->nodes = NULL;
    t->edges = NULL;
    t->node_cap = t->edge_cap = 0;
}

uint32_t mcts_node_new(MctsTree *t) {
    uint32_t id = atomic_fetch_add(&t->node_used, 1);
    if (id >= t->node_cap) {
        atomic_store(&t->node_used, t->node_cap);
        atomic_store(&t->full, true);
        return MCTS_NULL;
    }
    node_reset(&t->nodes[id]);
    return id;
}

/* Takes n edges from the store; returns the first index, or MCTS_NULL when full. */
static uint32_t take_edges(MctsTree *t, int n) {
    if (n == 0)
        return 0;
    uint32_t used = atomic_load(&t->edge_used);
    do {
        if ((uint64_t)used + (uint64_t)n > t->edge_cap) {
            atomic_store(&t->full, true);
            return MCTS_NULL;
        }
    } while (!atomic_compare_exchange_weak(&t->edge_used, &used, used + (uint32_t)n));
    return used;
}

bool mcts_node_expand(MctsTree *t, uint32_t id, const Move *moves, const float *priors, int n, float value) {
    MctsNode *node = &t->nodes[id];
    uint32_t first = take_edges(t, n);
    if (first == MCTS_NULL)
        return false;
    for (int i = 0; i < n; i++) {
        MctsEdge *e = &t->edges[first + (uint32_t)i];
        e->move = moves[i];
        e->prior = priors[i];
        atomic_init(&e->visits, 0);
        atomic_init(&e->child, MCTS_NULL);
        atomic_init(&e->win, 0.0);
    }
    node->first_edge = first;
    node->edge_count = (uint16_t)n;
    node->value = value;
    if (n == 0)
        atomic_store(&node->proven, MCTS_PROVEN_LOSS);
    atomic_store_explicit(&node->state, MCTS_NODE_READY, memory_order_release);
    return true;
}

void mcts_node_set_terminal(MctsTree *t, uint32_t id, int proof, float value) {
    MctsNode *node = &t->nodes[id];
    node->first_edge = 0;
    node->edge_count = 0;
    node->value = value;
    atomic_store(&node->proven, (uint8_t)proof);
    atomic_store_explicit(&node->state, MCTS_NODE_READY, memory_order_release);
}

uint32_t mcts_edge_child(MctsTree *t, MctsEdge *e) {
    uint32_t c = atomic_load_explicit(&e->child, memory_order_acquire);
    if (c != MCTS_NULL)
        return c;
    uint32_t fresh = mcts_node_new(t);
    if (fresh == MCTS_NULL)
        return MCTS_NULL;
    /* Another thread may have made the child meanwhile: its node wins, ours is left
     * unused (a few nodes at most per search). */
    if (atomic_compare_exchange_strong(&e->child, &c, fresh))
        return fresh;
    return c;
}

static int child_proof(const MctsTree *t, const MctsEdge *e) {
    uint32_t c = atomic_load_explicit(&((MctsEdge *)e)->child, memory_order_acquire);
    return c == MCTS_NULL ? MCTS_UNPROVEN : atomic_load(&t->nodes[c].proven);
}

int mcts_select(MctsTree *t, uint32_t id, bool is_root, const MctsParams *p) {
    MctsNode *node = &t->nodes[id];
    MctsEdge *edges = mcts_edges(t, node);
    int n = node->edge_count;
    double sum = atomic_load_explicit(&node->visits, memory_order_relaxed);
    double sum_win = atomic_load_explicit(&node->win, memory_order_relaxed);
    double c_init = is_root ? p->c_init_root : p->c_init, c_base = is_root ? p->c_base_root : p->c_base;
    double c = log((sum + c_base + 1.0) / c_base) + c_init;
    double visited_prior = 0;
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&edges[i].visits, memory_order_relaxed) > 0)
            visited_prior += edges[i].prior;
    double fpu = (is_root ? p->c_fpu_reduction_root : p->c_fpu_reduction) * sqrt(visited_prior);
    double parent_q = sum_win > 0 ? fmax(0.0, sum_win / sum - fpu) : 0.0;
    double sqrt_sum = sqrt(sum), init_u = sum == 0 ? 1.0 : sqrt_sum;
    int best = -1;
    double best_score = -DBL_MAX;
    for (int i = 0; i < n; i++) {
        int proof = child_proof(t, &edges[i]);
        if (proof == MCTS_PROVEN_WIN)
            continue; /* the opponent wins after this move */
        if (proof == MCTS_PROVEN_LOSS) {
            atomic_store(&node->proven, MCTS_PROVEN_WIN);
            return i;
        }
        uint32_t visits = atomic_load_explicit(&edges[i].visits, memory_order_relaxed);
        double q, u;
        if (visits == 0) {
            q = parent_q;
            u = init_u;
        } else {
            q = atomic_load_explicit(&edges[i].win, memory_order_relaxed) / visits;
            u = sqrt_sum / (1 + visits);
        }
        double score = q + c * u * edges[i].prior;
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    if (best < 0 && n > 0)
        atomic_store(&node->proven, MCTS_PROVEN_LOSS);
    return best;
}

void mcts_add_virtual_loss(MctsTree *t, uint32_t id, int e, const MctsParams *p) {
    MctsNode *node = &t->nodes[id];
    atomic_fetch_add_explicit(&node->visits, (uint32_t)p->virtual_loss, memory_order_relaxed);
    atomic_fetch_add_explicit(&mcts_edges(t, node)[e].visits, (uint32_t)p->virtual_loss, memory_order_relaxed);
}

int mcts_update_proof(MctsTree *t, uint32_t id) {
    MctsNode *node = &t->nodes[id];
    int cur = atomic_load(&node->proven);
    if (cur != MCTS_UNPROVEN || atomic_load(&node->state) != MCTS_NODE_READY)
        return cur;
    MctsEdge *edges = mcts_edges(t, node);
    bool all_proven = true, any_draw = false;
    for (int i = 0; i < node->edge_count; i++) {
        int proof = child_proof(t, &edges[i]);
        if (proof == MCTS_PROVEN_LOSS) {
            atomic_store(&node->proven, MCTS_PROVEN_WIN);
            return MCTS_PROVEN_WIN;
        }
        if (proof == MCTS_UNPROVEN)
            all_proven = false;
        any_draw |= proof == MCTS_PROVEN_DRAW;
    }
    if (!all_proven)
        return MCTS_UNPROVEN;
    int r = any_draw ? MCTS_PROVEN_DRAW : MCTS_PROVEN_LOSS;
    atomic_store(&node->proven, (uint8_t)r);
    return r;
}

void mcts_backup(MctsTree *t, const uint32_t *nodes, const int *edges, int len, double leaf_value,
                 const MctsParams *p) {
    double v = leaf_value;
    bool proof_changed = nodes[len] != MCTS_NULL && atomic_load(&t->nodes[nodes[len]].proven) != MCTS_UNPROVEN;
    uint32_t back = (uint32_t)(p->virtual_loss - 1);
    for (int i = len - 1; i >= 0; i--) {
        double r = 1.0 - v;
        MctsNode *node = &t->nodes[nodes[i]];
        MctsEdge *e = &mcts_edges(t, node)[edges[i]];
        atomic_add_double(&e->win, r);
        atomic_add_double(&node->win, r);
        if (back) {
            atomic_fetch_sub_explicit(&e->visits, back, memory_order_relaxed);
            atomic_fetch_sub_explicit(&node->visits, back, memory_order_relaxed);
        }
        if (proof_changed)
            proof_changed = mcts_update_proof(t, nodes[i]) != MCTS_UNPROVEN;
        v = r;
    }
}

double mcts_edge_q(const MctsEdge *e) {
    uint32_t n = atomic_load(&((MctsEdge *)e)->visits);
    return n ? atomic_load(&((MctsEdge *)e)->win) / n : 0.0;
}

int mcts_best_edge(MctsTree *t, uint32_t id) {
    MctsNode *node = &t->nodes[id];
    if (atomic_load(&node->state) != MCTS_NODE_READY || node->edge_count == 0)
        return -1;
    MctsEdge *edges = mcts_edges(t, node);
    int best = -1;
    for (int i = 0; i < node->edge_count; i++) {
        int proof = child_proof(t, &edges[i]);
        if (proof == MCTS_PROVEN_LOSS)
            return i;
        if (best < 0) {
            best = i;
            continue;
        }
        int bp = child_proof(t, &edges[best]);
        bool lost = proof == MCTS_PROVEN_WIN, best_lost = bp == MCTS_PROVEN_WIN;
        if (lost != best_lost) {
            if (best_lost)
                best = i;
            continue;
        }
        uint32_t vi = atomic_load(&edges[i].visits), vb = atomic_load(&edges[best].visits);
        double qi = mcts_edge_q(&edges[i]), qb = mcts_edge_q(&edges[best]);
        if (vi > vb || (vi == vb && (qi > qb || (qi == qb && edges[i].prior > edges[best].prior))))
            best = i;
    }
    return best;
}

/* Copies the subtree of src node `from` into dst; returns its new index or MCTS_NULL.
 * Recursion depth is the subtree's depth (bounded by the game's move limit). */
static uint32_t copy_subtree(MctsTree *dst, MctsTree *src, uint32_t from) {
    uint32_t to = mcts_node_new(dst);
    if (to == MCTS_NULL)
        return MCTS_NULL;
    MctsNode *s = &src->nodes[from], *d = &dst->nodes[to];
    atomic_store(&d->visits, atomic_load(&s->visits));
    atomic_store(&d->win, atomic_load(&s->win));
    atomic_store(&d->proven, atomic_load(&s->proven));
    d->value = s->value;
    if (atomic_load(&s->state) != MCTS_NODE_READY)
        return to; /* an interrupted expansion: expand again later */
    int n = s->edge_count;
    uint32_t first = take_edges(dst, n);
    if (first == MCTS_NULL)
        return MCTS_NULL;
    d->first_edge = first;
    d->edge_count = (uint16_t)n;
    atomic_store(&d->state, MCTS_NODE_READY);
    MctsEdge *se = mcts_edges(src, s), *de = mcts_edges(dst, d);
    for (int i = 0; i < n; i++) {
        de[i].move = se[i].move;
        de[i].prior = se[i].prior;
        atomic_init(&de[i].visits, atomic_load(&se[i].visits));
        atomic_init(&de[i].win, atomic_load(&se[i].win));
        atomic_init(&de[i].child, MCTS_NULL);
        uint32_t c = atomic_load(&se[i].child);
        if (c != MCTS_NULL) {
            uint32_t nc = copy_subtree(dst, src, c);
            if (nc == MCTS_NULL)
                return MCTS_NULL;
            atomic_store(&de[i].child, nc);
        }
    }
    return to;
}

bool mcts_tree_reroot(MctsTree *t, const Move *moves, int n) {
    uint32_t id = t->root;
    for (int k = 0; k < n && id != MCTS_NULL; k++) {
        MctsNode *node = &t->nodes[id];
        if (atomic_load(&node->state) != MCTS_NODE_READY) {
            id = MCTS_NULL;
            break;
        }
        MctsEdge *e = mcts_edges(t, node);
        uint32_t next = MCTS_NULL;
        for (int i = 0; i < node->edge_count; i++)
            if (e[i].move == moves[k])
                next = atomic_load(&e[i].child);
        id = next;
    }
    if (id == MCTS_NULL || (n == 0 && atomic_load(&t->nodes[id].state) != MCTS_NODE_READY)) {
        mcts_tree_clear(t);
        return false;
    }
    if (n == 0)
        return true;
    MctsTree fresh;
    if (!mcts_tree_init_exact(&fresh, t->node_cap, t->edge_cap)) {
        mcts_tree_clear(t);
        return false;
    }
    atomic_store(&fresh.node_used, 0);
    uint32_t root = copy_subtree(&fresh, t, id);
    if (root == MCTS_NULL) {
        mcts_tree_free(&fresh);
        mcts_tree_clear(t);
        return false;
    }
    fresh.root = root;
    atomic_store(&fresh.full, false);
    mcts_tree_free(t);
    memcpy(t, &fresh, sizeof *t);
    return true;
}
