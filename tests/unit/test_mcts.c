/* test_mcts.c - the MCTS tree (PUCT selection, backup with virtual loss, proofs, the
 * memory bound, reuse), the PolicyBook mixer and the alpha-beta provider, against numbers
 * worked by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "book/sbk.h"
#include "mcts/mcts.h"
#include "usi/policybook.h"
#include "mcts/provider_ab.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define EPS 1e-5

/* A root with three edges (moves 1, 2, 3: the tree never plays them) and the given
 * priors, visits and results. */
static uint32_t make_root(MctsTree *t, const float *priors, const uint32_t *visits, const double *wins) {
    Move moves[3] = {1, 2, 3};
    assert_true(mcts_tree_init_exact(t, 16, 64));
    uint32_t r = t->root;
    assert_true(mcts_node_expand(t, r, moves, priors, 3, 0.5f));
    MctsNode *n = mcts_node(t, r);
    uint32_t sum = 0;
    double w = 0;
    for (int i = 0; i < 3; i++) {
        atomic_store(&mcts_edges(t, n)[i].visits, visits[i]);
        atomic_store(&mcts_edges(t, n)[i].win, wins[i]);
        sum += visits[i];
        w += wins[i];
    }
    atomic_store(&n->visits, sum);
    atomic_store(&n->win, w);
    return r;
}

/* Priors 0.6 / 0.3 / 0.1, visits 10 / 5 / 0, results 6 / 3.5 / 0: N = 15, W = 9.5.
 *  Root (c_init 1.16, c_base 25617, no fpu reduction):
 *    c = ln(25633 / 25617) + 1.16 = 1.160624; parent q = 9.5 / 15 = 0.633333
 *    edge 0: 0.6 + c * sqrt(15) / 11 * 0.6 = 0.845186
 *    edge 1: 0.7 + c * sqrt(15) / 6 * 0.3  = 0.924754
 *    edge 2: 0.633333 + c * sqrt(15) * 0.1 = 1.082841   -> edge 2
 *  Inside the tree (c_init 1.44, c_base 28288, fpu 0.27):
 *    c = ln(28304 / 28288) + 1.44 = 1.440565; fpu = 0.27 * sqrt(0.6 + 0.3) = 0.256140
 *    parent q = 0.633333 - 0.256140 = 0.377189
 *    edge 0: 0.6 + c * sqrt(15) / 11 * 0.6 = 0.904325
 *    edge 1: 0.7 + c * sqrt(15) / 6 * 0.3  = 0.978964   -> edge 1
 *    edge 2: 0.377189 + c * sqrt(15) * 0.1 = 0.935117 */
static void test_puct_selection(void **state) {
    (void)state;
    MctsTree t;
    float priors[3] = {0.6f, 0.3f, 0.1f};
    uint32_t visits[3] = {10, 5, 0};
    double wins[3] = {6, 3.5, 0};
    uint32_t r = make_root(&t, priors, visits, wins);
    MctsParams p;
    mcts_params_default(&p);
    assert_int_equal(mcts_select(&t, r, true, &p), 2);
    assert_int_equal(mcts_select(&t, r, false, &p), 1);
    /* Without the fpu reduction the tree would also take edge 2: parent q 0.633333 gives
     * 0.633333 + 1.440565 * 3.872983 * 0.1 = 1.191260 > 0.978964. */
    p.c_fpu_reduction = 0;
    assert_int_equal(mcts_select(&t, r, false, &p), 2);
    mcts_tree_free(&t);
}

/* An empty node: N = 0, so u = 1 for every edge and q = 0: the highest prior wins. */
static void test_puct_first_visit(void **state) {
    (void)state;
    MctsTree t;
    float priors[3] = {0.2f, 0.5f, 0.3f};
    uint32_t visits[3] = {0, 0, 0};
    double wins[3] = {0, 0, 0};
    uint32_t r = make_root(&t, priors, visits, wins);
    MctsParams p;
    mcts_params_default(&p);
    assert_int_equal(mcts_select(&t, r, false, &p), 1);
    mcts_tree_free(&t);
}

/* Root -> edge 1 -> child (one edge, move 7) -> grandchild evaluated 0.8 for its mover.
 * Results: the child's edge gets 1 - 0.8 = 0.2, the root's edge 1 - 0.2 = 0.8.
 * Virtual loss 3: the descent adds 3 visits, the backup takes 2 back. */
static void test_backup_and_virtual_loss(void **state) {
    (void)state;
    MctsTree t;
    float priors[3] = {0.6f, 0.3f, 0.1f};
    uint32_t visits[3] = {10, 5, 0};
    double wins[3] = {6, 3.5, 0};
    uint32_t r = make_root(&t, priors, visits, wins);
    MctsParams p;
    mcts_params_default(&p);
    p.virtual_loss = 3;
    MctsEdge *e1 = &mcts_edges(&t, mcts_node(&t, r))[1];
    uint32_t child = mcts_edge_child(&t, e1);
    Move m7 = 7;
    float one = 1.0f;
    assert_true(mcts_node_expand(&t, child, &m7, &one, 1, 0.4f));
    MctsEdge *ce = &mcts_edges(&t, mcts_node(&t, child))[0];
    uint32_t grand = mcts_edge_child(&t, ce);

    mcts_add_virtual_loss(&t, r, 1, &p);
    mcts_add_virtual_loss(&t, child, 0, &p);
    /* in flight: edge 1 has 8 visits and still 3.5 wins: q = 0.4375 */
    assert_int_equal(atomic_load(&e1->visits), 8);
    assert_float_equal(mcts_edge_q(e1), 3.5 / 8, EPS);
    uint32_t nodes[3] = {r, child, grand};
    int edges[2] = {1, 0};
    mcts_backup(&t, nodes, edges, 2, 0.8, &p);
    assert_int_equal(atomic_load(&e1->visits), 6);
    assert_float_equal(atomic_load(&e1->win), 4.3, EPS); /* 3.5 + 0.8 */
    assert_int_equal(atomic_load(&mcts_node(&t, r)->visits), 16);
    assert_float_equal(atomic_load(&mcts_node(&t, r)->win), 10.3, EPS);
    assert_int_equal(atomic_load(&ce->visits), 1);
    assert_float_equal(atomic_load(&ce->win), 0.2, EPS);
    assert_int_equal(atomic_load(&mcts_node(&t, child)->visits), 1);
    mcts_tree_free(&t);
}

/* Proofs: a child lost for its mover makes the parent won; children all won for their
 * movers make it lost; all proven with a draw among them make it a draw. Propagation
 * through a backup: root -> A -> G where G is mated; A (only move into G) is won for A's
 * mover, and the root, with its other child still open, stays unproven until that child
 * is won for its mover too, and then is lost. */
static void test_proofs(void **state) {
    (void)state;
    MctsTree t;
    float priors[3] = {0.4f, 0.4f, 0.2f};
    uint32_t visits[3] = {0, 0, 0};
    double wins[3] = {0, 0, 0};
    uint32_t r = make_root(&t, priors, visits, wins);
    MctsParams p;
    mcts_params_default(&p);
    MctsEdge *e = mcts_edges(&t, mcts_node(&t, r));
    uint32_t c[3];
    for (int i = 0; i < 3; i++)
        c[i] = mcts_edge_child(&t, &e[i]);
    mcts_node_set_terminal(&t, c[0], MCTS_PROVEN_WIN, 1);
    mcts_node_set_terminal(&t, c[1], MCTS_PROVEN_DRAW, 0.5f);
    assert_int_equal(mcts_update_proof(&t, r), MCTS_UNPROVEN);
    /* the winning-for-the-opponent edge 0 is never chosen */
    for (int k = 0; k < 5; k++)
        assert_int_not_equal(mcts_select(&t, r, false, &p), 0);
    mcts_node_set_terminal(&t, c[2], MCTS_PROVEN_WIN, 1);
    assert_int_equal(mcts_update_proof(&t, r), MCTS_PROVEN_DRAW);
    mcts_tree_free(&t);

    r = make_root(&t, priors, visits, wins);
    e = mcts_edges(&t, mcts_node(&t, r));
    for (int i = 0; i < 3; i++)
        c[i] = mcts_edge_child(&t, &e[i]);
    mcts_node_set_terminal(&t, c[0], MCTS_PROVEN_WIN, 1);
    mcts_node_set_terminal(&t, c[1], MCTS_PROVEN_WIN, 1);
    mcts_node_set_terminal(&t, c[2], MCTS_PROVEN_LOSS, 0);
    assert_int_equal(mcts_select(&t, r, false, &p), 2); /* the mating move at once */
    assert_int_equal(mcts_node(&t, r)->proven, MCTS_PROVEN_WIN);
    assert_int_equal(mcts_best_edge(&t, r), 2);
    mcts_tree_free(&t);

    /* root -> A -> G mated, by a backup */
    r = make_root(&t, priors, visits, wins);
    e = mcts_edges(&t, mcts_node(&t, r));
    uint32_t a = mcts_edge_child(&t, &e[0]);
    Move m = 9;
    float one = 1;
    assert_true(mcts_node_expand(&t, a, &m, &one, 1, 0.5f));
    uint32_t g = mcts_edge_child(&t, &mcts_edges(&t, mcts_node(&t, a))[0]);
    mcts_node_set_terminal(&t, g, MCTS_PROVEN_LOSS, 0);
    mcts_add_virtual_loss(&t, r, 0, &p);
    mcts_add_virtual_loss(&t, a, 0, &p);
    uint32_t nodes[3] = {r, a, g};
    int edges[2] = {0, 0};
    mcts_backup(&t, nodes, edges, 2, 0.0, &p);
    assert_int_equal(mcts_node(&t, a)->proven, MCTS_PROVEN_WIN);
    assert_int_equal(mcts_node(&t, r)->proven, MCTS_UNPROVEN);
    uint32_t b = mcts_edge_child(&t, &e[1]), d = mcts_edge_child(&t, &e[2]);
    mcts_node_set_terminal(&t, b, MCTS_PROVEN_WIN, 1);
    mcts_node_set_terminal(&t, d, MCTS_PROVEN_WIN, 1);
    assert_int_equal(mcts_select(&t, r, false, &p), -1);
    assert_int_equal(mcts_node(&t, r)->proven, MCTS_PROVEN_LOSS);
    mcts_tree_free(&t);
}

/* ---- searches with a provider whose answers are known: mcts_provider_uniform() ---- */

static bool is_legal(const Position *pos, Move m) {
    ExtMove list[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, list);
    for (int i = 0; i < n; i++)
        if (list[i].move == m)
            return true;
    return false;
}

/* A 40-node budget: the search stops when the store is full, well before its 100000
 * playouts, and still answers a legal move. */
static void test_memory_bound(void **state) {
    (void)state;
    MctsSearch *m = mcts_create();
    Game g;
    game_init(&g);
    MctsOptions o;
    mcts_options_default(&o);
    o.tree_mb = 0; /* the minimum: 64 nodes */
    o.info_interval_ms = 0;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = 100000;
    MctsResult r = mcts_run(m, &g, &lim, &o, mcts_provider_uniform(), NULL);
    MctsTree *t = mcts_tree(m);
    assert_int_equal(t->node_cap, 64);
    assert_true(mcts_tree_full(t));
    assert_true(atomic_load(&t->node_used) <= t->node_cap);
    assert_true(r.playouts < 1000);
    assert_true(is_legal(&g.pos, r.best));
    mcts_destroy(m);
    game_free(&g);
}

/* Tree reuse: after 300 playouts from the start and the move played, the new root is the
 * old child with its visits. */
static void test_reuse(void **state) {
    (void)state;
    MctsSearch *m = mcts_create();
    Game g;
    game_init(&g);
    MctsOptions o;
    mcts_options_default(&o);
    o.tree_mb = 4;
    o.info_interval_ms = 0;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = 300;
    MctsResult r = mcts_run(m, &g, &lim, &o, mcts_provider_uniform(), NULL);
    MctsTree *t = mcts_tree(m);
    int e = mcts_best_edge(t, t->root);
    MctsEdge *edge = &mcts_edges(t, mcts_node(t, t->root))[e];
    assert_int_equal(edge->move, r.best);
    uint32_t child_visits = atomic_load(&mcts_node(t, atomic_load(&edge->child))->visits);
    assert_true(child_visits > 0);
    assert_true(game_push(&g, r.best));
    assert_true(mcts_tree_reroot(t, &r.best, 1));
    assert_int_equal(atomic_load(&mcts_node(t, t->root)->visits), child_visits);
    assert_int_equal(mcts_node(t, t->root)->state, MCTS_NODE_READY);
    mcts_destroy(m);
    game_free(&g);
}

/* A node proven by the rules (say a repetition draw) has no edges; when the game goes
 * there it must not become the reused root (which would have nothing to play): the search
 * starts afresh and answers a legal move after all its playouts. */
static void test_reuse_skips_rule_proven_root(void **state) {
    (void)state;
    MctsSearch *m = mcts_create();
    Game g;
    game_init(&g);
    MctsOptions o;
    mcts_options_default(&o);
    o.tree_mb = 4;
    o.info_interval_ms = 0;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = 100;
    mcts_run(m, &g, &lim, &o, mcts_provider_uniform(), NULL);
    MctsTree *t = mcts_tree(m);
    MctsEdge *e = &mcts_edges(t, mcts_node(t, t->root))[0];
    uint32_t c = atomic_load(&e->child);
    assert_int_not_equal(c, MCTS_NULL);
    mcts_node_set_terminal(t, c, MCTS_PROVEN_DRAW, 0.5f);
    assert_true(game_push(&g, e->move));
    MctsResult r = mcts_run(m, &g, &lim, &o, mcts_provider_uniform(), NULL);
    assert_int_equal(r.playouts, 100);
    assert_true(is_legal(&g.pos, r.best));
    mcts_destroy(m);
    game_free(&g);
}

/* ---- PolicyBook ---- */

static Move usi(const Position *pos, const char *s) {
    Move m = position_parse_usi_move(pos, s);
    assert_true(m != MOVE_NONE);
    return m;
}

/* moves 2g2f, 7g7f, 5g5f with priors 0.5 / 0.3 / 0.2 and value 0.6; the book has 7g7f
 * (count 3, score 100) and 5g5f (count 1, score -50); alpha 0.5.
 *   bookrate: 0, 3/4, 1/4 -> priors 0.25, 0.15 + 0.375 = 0.525, 0.1 + 0.125 = 0.225
 *   top entry 7g7f: value = 0.5 * 0.6 + 0.5 / (1 + exp(-100 / 756)) = 0.5665103 */
static void test_policybook_mix(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    Move moves[3] = {usi(&g.pos, "2g2f"), usi(&g.pos, "7g7f"), usi(&g.pos, "5g5f")};
    BookMoveList *bl = calloc(1, sizeof *bl);
    bl->n = 2;
    bl->moves[0] = (BookMove){.move = move_to_move16(moves[2]), .score = -50, .count = 1, .has_score = true};
    bl->moves[1] = (BookMove){.move = move_to_move16(moves[1]), .score = 100, .count = 3, .has_score = true};
    float priors[3] = {0.5f, 0.3f, 0.2f};
    double v = 0.6;
    assert_true(policybook_mix(bl, moves, 3, 0.5, priors, &v));
    assert_float_equal(priors[0], 0.25, EPS);
    assert_float_equal(priors[1], 0.525, EPS);
    assert_float_equal(priors[2], 0.225, EPS);
    assert_float_equal(v, 0.5665103, 1e-6);

    /* every count 0: equal shares; of equal counts the better score is the top entry.
     * alpha 0.25, priors 0.2 / 0.2 / 0.6, value 0.4, book 2g2f (-200) and 5g5f (50):
     *   priors 0.75 * 0.2 + 0.25 * 0.5 = 0.275, 0.15, 0.75 * 0.6 + 0.125 = 0.575
     *   value 0.75 * 0.4 + 0.25 / (1 + exp(-50 / 756)) = 0.4291321 */
    bl->moves[0] = (BookMove){.move = move_to_move16(moves[0]), .score = -200, .count = 0, .has_score = true};
    bl->moves[1] = (BookMove){.move = move_to_move16(moves[2]), .score = 50, .count = 0, .has_score = true};
    float p2[3] = {0.2f, 0.2f, 0.6f};
    v = 0.4;
    assert_true(policybook_mix(bl, moves, 3, 0.25, p2, &v));
    assert_float_equal(p2[0], 0.275, EPS);
    assert_float_equal(p2[1], 0.15, EPS);
    assert_float_equal(p2[2], 0.575, EPS);
    assert_float_equal(v, 0.4291321, 1e-6);

    /* a book without any of these moves changes nothing */
    bl->n = 1;
    bl->moves[0] = (BookMove){.move = move_to_move16(usi(&g.pos, "1g1f")), .count = 5};
    float p3[2] = {0.5f, 0.5f};
    v = 0.3;
    assert_false(policybook_mix(bl, moves, 2, 0.5, p3, &v));
    assert_float_equal(p3[0], 0.5, EPS);
    assert_float_equal(v, 0.3, EPS);
    free(bl);
    game_free(&g);
}

/* The provider route: a DB2016 book with the start position, looked up by position. */
static void test_policybook_provider(void **state) {
    (void)state;
    const char *text = "#YANEURAOU-DB2016 1.00\n"
                       "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n"
                       "7g7f 3c3d 100 20 3\n5g5f none -50 20 1\n";
    Book *b = book_create();
    char err[256];
    assert_true(db2016_read_memory("mem", text, strlen(text), b, NULL, NULL, err, sizeof err));
    PolicyBookProvider pb = {mcts_provider_uniform(), b, 0.5};
    MctsProvider p = policybook_provider(&pb);
    MctsEvaluator *ev = p.new_evaluator(p.ctx);
    Game g;
    game_init(&g);
    Move moves[3] = {usi(&g.pos, "2g2f"), usi(&g.pos, "7g7f"), usi(&g.pos, "5g5f")};
    float priors[3];
    double v = ev->evaluate(ev, &g.pos, moves, 3, priors);
    /* uniform 1/3 mixed with 0, 3/4, 1/4 at alpha 0.5; value 0.5 with 100 cp's 0.5330207 */
    assert_float_equal(priors[0], 1.0 / 6, EPS);
    assert_float_equal(priors[1], 1.0 / 6 + 0.375, EPS);
    assert_float_equal(priors[2], 1.0 / 6 + 0.125, EPS);
    assert_float_equal(v, 0.5 * 0.5 + 0.5 * 0.5330207, 1e-6);
    /* one move later the position is not in the book: the inner answer unchanged */
    assert_true(game_push(&g, moves[0]));
    Move reply = usi(&g.pos, "8c8d");
    float pr;
    assert_float_equal(ev->evaluate(ev, &g.pos, &reply, 1, &pr), 0.5, EPS);
    assert_float_equal(pr, 1.0, EPS);
    ev->destroy(ev);
    book_free(b);
    game_free(&g);
}

/* A ShogiHome SBK book (../shared/refdata/sbk/shogihome/shogigui01.sbk) holds the start
 * position with 2g2f and 7g7f, weight 1 each and no score (`book lookup` shows them).
 * Uniform priors over the 30 legal moves mixed at alpha 0.5: the two book moves get
 * 0.5 / 30 + 0.5 * 0.5 = 0.2666667, the others 0.5 / 30 = 0.0166667; the value stays 0.5
 * because the top entry has no score. */
static void test_policybook_sbk(void **state) {
    (void)state;
    char err[256];
    SbkBook *sb = sbk_open("../shared/refdata/sbk/shogihome/shogigui01.sbk", NULL, NULL, err, sizeof err);
    if (!sb)
        fail_msg("%s", err);
    Book *b = book_create();
    assert_true(sbk_to_book(sb, b, NULL, NULL, err, sizeof err));
    sbk_close(sb);
    PolicyBookProvider pb = {mcts_provider_uniform(), b, 0.5};
    MctsProvider p = policybook_provider(&pb);
    MctsEvaluator *ev = p.new_evaluator(p.ctx);
    Game g;
    game_init(&g);
    ExtMove list[MAX_MOVES];
    int n = generate_moves(&g.pos, GEN_LEGAL, list);
    assert_int_equal(n, 30);
    Move moves[MAX_MOVES];
    for (int i = 0; i < n; i++)
        moves[i] = list[i].move;
    float priors[MAX_MOVES];
    double v = ev->evaluate(ev, &g.pos, moves, n, priors);
    assert_float_equal(v, 0.5, EPS);
    Move a = usi(&g.pos, "2g2f"), c = usi(&g.pos, "7g7f");
    for (int i = 0; i < n; i++)
        assert_float_equal(priors[i], moves[i] == a || moves[i] == c ? 0.5 / 30 + 0.25 : 0.5 / 30, EPS);
    ev->destroy(ev);
    book_free(b);
    game_free(&g);
}

/* ---- the alpha-beta provider and the value scale ---- */

static void test_value_scale(void **state) {
    (void)state;
    assert_float_equal(score_to_value(0), 0.5, 1e-12);
    assert_float_equal(score_to_value(756), 1 / (1 + exp(-1.0)), 1e-12);
    /* 0.75 is 756 * ln 3 = 830.55 cp */
    assert_int_equal(value_to_score(0.75), 831);
    assert_int_equal(value_to_score(0.25), -831);
    assert_int_equal(value_to_score(1.0), 30000);
    assert_int_equal(value_to_score(score_to_value(-345)), -345);
}

/* Black's rook can take an undefended gold: the capture has the highest prior and the
 * position is worth more than even. */
static void test_ab_provider(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    assert_true(game_set_sfen(&g, "4k4/9/9/9/2g6/9/9/9/2R1K4 b - 1", NULL, 0));
    ExtMove list[MAX_MOVES];
    int n = generate_moves(&g.pos, GEN_LEGAL, list);
    Move moves[MAX_MOVES];
    for (int i = 0; i < n; i++)
        moves[i] = list[i].move;
    AbProviderOptions o;
    ab_provider_defaults(&o);
    MctsProvider p = ab_provider(&o);
    MctsEvaluator *ev = p.new_evaluator(p.ctx);
    float priors[MAX_MOVES];
    double v = ev->evaluate(ev, &g.pos, moves, n, priors);
    Move take = usi(&g.pos, "7i7e");
    int best = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += priors[i];
        if (priors[i] > priors[best])
            best = i;
    }
    assert_float_equal(sum, 1.0, 1e-4);
    assert_int_equal(moves[best], take);
    assert_true(v > 0.5);
    ev->destroy(ev);
    game_free(&g);
}

/* No illegal bestmove: 24 positions after random legal moves from the start, 150
 * playouts each with the alpha-beta provider (two threads on every other one). */
static void test_random_positions_legal(void **state) {
    (void)state;
    MctsSearch *m = mcts_create();
    AbProviderOptions ao;
    ab_provider_defaults(&ao);
    ao.hash_mb = 1;
    MctsOptions o;
    mcts_options_default(&o);
    o.tree_mb = 8;
    o.info_interval_ms = 0;
    uint64_t rng = 12345;
    for (int k = 0; k < 24; k++) {
        Game g;
        game_init(&g);
        int plies = 10 + k * 3;
        for (int i = 0; i < plies; i++) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            if (n == 0)
                break;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            assert_true(game_push(&g, list[(rng >> 33) % (uint64_t)n].move));
        }
        SearchLimits lim;
        memset(&lim, 0, sizeof lim);
        lim.nodes = 150;
        o.threads = 1 + k % 2;
        MctsResult r = mcts_run(m, &g, &lim, &o, ab_provider(&ao), NULL);
        if (position_has_legal_move(&g.pos))
            assert_true(is_legal(&g.pos, r.best) || r.best == MOVE_RESIGN || r.best == MOVE_WIN);
        else
            assert_int_equal(r.best, MOVE_RESIGN);
        game_free(&g);
    }
    mcts_destroy(m);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_puct_selection),
        cmocka_unit_test(test_puct_first_visit),
        cmocka_unit_test(test_backup_and_virtual_loss),
        cmocka_unit_test(test_proofs),
        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_reuse_skips_rule_proven_root),
        cmocka_unit_test(test_policybook_mix),
        cmocka_unit_test(test_policybook_provider),
        cmocka_unit_test(test_policybook_sbk),
        cmocka_unit_test(test_value_scale),
        cmocka_unit_test(test_ab_provider),
        cmocka_unit_test(test_random_positions_legal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
