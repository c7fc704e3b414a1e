/* tree.h - the MCTS tree: a bounded node store, PUCT selection, backup with virtual loss,
 * and the propagation of proven wins, losses and draws.
 *
 * Store. Nodes and edges live in two arrays sized once from a memory budget; a node's
 * edges are one contiguous run, taken when it is expanded. When either array is full the
 * tree stops growing (mcts_tree_full()) and the search ends; nothing is allocated during
 * a search. Indices, not pointers, link the tree, so a subtree can be copied into a fresh
 * store to reuse it for the next move (mcts_tree_reroot()).
 *
 * Selection (dlshogi's UctSearch): at a node with N = sum of its edges' visits and W the
 * sum of their results,
 *     c = ln((N + c_base + 1) / c_base) + c_init,   u = sqrt(N) / (1 + n),
 *     score = q + c * u * P,
 * where n, q = w / n and P are the edge's visits, mean result and prior. An unvisited
 * edge takes q = max(0, W / N - fpu_reduction * sqrt(sum of the priors of the visited
 * edges)) (0 when W = 0) and u = sqrt(N) (1 when N = 0). The root uses its own c_init,
 * c_base and fpu reduction. Edges proven to lose for the mover are skipped; an edge
 * proven to win is taken at once.
 *
 * Results are win rates from the view of the side that chose the edge. Virtual loss: a
 * thread descending through an edge adds vloss visits with no result, so other threads
 * see a lower q there until the backup replaces them with one real visit.
 *
 * Threads. Counters are atomics; expanding a node is claimed with a compare-and-swap on
 * its state. Several threads may share one tree.
 */
#ifndef HAYANAGI_MCTS_TREE_H
#define HAYANAGI_MCTS_TREE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/types.h"

#define MCTS_NULL UINT32_MAX

/* A node's proof, from its side to move's view. */
enum { MCTS_UNPROVEN = 0, MCTS_PROVEN_WIN = 1, MCTS_PROVEN_LOSS = 2, MCTS_PROVEN_DRAW = 3 };
/* A node's life: made, being expanded by one thread, expanded (edges readable). */
enum { MCTS_NODE_NEW = 0, MCTS_NODE_BUSY = 1, MCTS_NODE_READY = 2 };

typedef struct {
    Move move;
    float prior;
    _Atomic uint32_t visits; /* real visits plus virtual losses in flight */
    _Atomic uint32_t child;  /* node index, MCTS_NULL until the move is first played */
    _Atomic double win;      /* sum of results, mover's view */
} MctsEdge;

typedef struct {
    _Atomic uint32_t visits; /* playouts that went on to an edge (virtual losses included) */
    _Atomic uint8_t state;   /* MCTS_NODE_* */
    _Atomic uint8_t proven;  /* MCTS_PROVEN_* or MCTS_UNPROVEN */
    uint16_t edge_count;
    uint32_t first_edge;
    float value;        /* the evaluation, side to move's view */
    _Atomic double win; /* sum of the results of those playouts, side to move's view */
} MctsNode;

typedef struct {
    MctsNode *nodes;
    MctsEdge *edges;
    uint32_t node_cap, edge_cap;
    _Atomic uint32_t node_used, edge_used;
    _Atomic bool full;
    uint32_t root;
} MctsTree;

typedef struct {
    double c_init, c_base, c_fpu_reduction;
    double c_init_root, c_base_root, c_fpu_reduction_root;
    int virtual_loss;  /* visits added while a playout is in flight (dlshogi: 1) */
    double draw_value; /* the result of a proven draw, for both sides */
} MctsParams;

/* dlshogi's defaults: 1.44 / 28288 / 0.27 in the tree, 1.16 / 25617 / 0 at the root,
 * virtual loss 1, draws 0.5. */
void mcts_params_default(MctsParams *p);

/* Average bytes a node costs with its edges, used to split a memory budget. */
enum { MCTS_EDGES_PER_NODE = 48 };

/* Allocates a store of about mb megabytes (at least 64 nodes) with a fresh root.
 * Returns false when memory runs out (t is then empty). */
bool mcts_tree_init(MctsTree *t, size_t mb);
/* Allocates a store of exactly node_cap nodes and edge_cap edges (tests). */
bool mcts_tree_init_exact(MctsTree *t, uint32_t node_cap, uint32_t edge_cap);
/* Frees the arrays. */
void mcts_tree_free(MctsTree *t);
/* Forgets every node and makes a fresh root. */
void mcts_tree_clear(MctsTree *t);
/* True once a node or edge allocation failed. */
static inline bool mcts_tree_full(const MctsTree *t) { return atomic_load_explicit(&t->full, memory_order_relaxed); }

/* A new unexpanded node, or MCTS_NULL when the store is full. */
uint32_t mcts_node_new(MctsTree *t);
/* Gives node id its edges (moves with their priors) and evaluation. The caller holds
 * the node (state BUSY) or is the only thread. n == 0 marks the node lost (mated). Returns
 * false when the edge store is full (the node stays unexpanded). */
bool mcts_node_expand(MctsTree *t, uint32_t id, const Move *moves, const float *priors, int n, float value);
/* Makes node id a terminal node with the given proof (MCTS_PROVEN_*) and no edges; the
 * caller holds the node (state BUSY) or is the only thread. */
void mcts_node_set_terminal(MctsTree *t, uint32_t id, int proof, float value);
/* The child node of an edge, made on first use; MCTS_NULL when the store is full. */
uint32_t mcts_edge_child(MctsTree *t, MctsEdge *e);

static inline MctsNode *mcts_node(MctsTree *t, uint32_t id) { return &t->nodes[id]; }
static inline MctsEdge *mcts_edges(MctsTree *t, const MctsNode *n) { return &t->edges[n->first_edge]; }

/* The edge PUCT picks at node id (root constants when is_root). Returns -1 when every
 * edge is proven lost for the mover (the node is then marked lost) or the node has no
 * edges. */
int mcts_select(MctsTree *t, uint32_t id, bool is_root, const MctsParams *p);

/* Adds the virtual loss of a playout going from node id through edge e. */
void mcts_add_virtual_loss(MctsTree *t, uint32_t id, int e, const MctsParams *p);

/* Backs up one playout: nodes[0..len] with edges[i] taken at nodes[i] to reach
 * nodes[i + 1]; leaf_value is the win rate of nodes[len] for its side to move (nodes[len]
 * may be MCTS_NULL: a position evaluated but not stored). Each edge
 * gets the result 1 - (its child's result) and its virtual loss is replaced by one real
 * visit; proofs are propagated from the leaf up. */
void mcts_backup(MctsTree *t, const uint32_t *nodes, const int *edges, int len, double leaf_value, const MctsParams *p);

/* Recomputes the proof of node id from its children: won when one child is lost, lost
 * when every child is won, drawn when every child is proven and one is a draw. Returns
 * the (possibly new) proof. */
int mcts_update_proof(MctsTree *t, uint32_t id);

/* The mean result of an edge (0 when unvisited). */
double mcts_edge_q(const MctsEdge *e);
/* The edge to play at node id: a proven win first, then the most visited edge not proven
 * lost (ties: higher q, then higher prior). -1 when the node has no edges. */
int mcts_best_edge(MctsTree *t, uint32_t id);

/* Makes the node reached from the root by moves[0..n) the new root, copying that subtree
 * into a fresh store of the same size and freeing the old one. When the path leaves the
 * tree, or memory for the copy is lacking, the tree is cleared. Returns true when a
 * subtree was kept. */
bool mcts_tree_reroot(MctsTree *t, const Move *moves, int n);

#endif
