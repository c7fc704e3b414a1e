/* test_expand.c - `book expand` (docs/mcts.md, "`hayanagi book expand`") on tiny books:
 * the walk to the start, the visit counting and choice on a hand-made tree, and one whole
 * round whose choice follows from the PUCT formula by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "bookgen/expand.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define START       "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define AFTER_76    "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
#define AFTER_76_84 "lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"

static Book *load_text(const char *text) {
    Book *b = book_create();
    char err[256];
    if (!db2016_read_memory("mem", text, strlen(text), b, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    return b;
}

static Move usi(const Position *pos, const char *s) {
    Move m = position_parse_usi_move(pos, s);
    assert_true(m != MOVE_NONE);
    return m;
}

/* With K = 4: the start has 4 moves, best by score 7g7f (50); after it 5 moves, of the
 * two scored 20 the more played 8c8d; after that only 2 moves < 4: the start is there,
 * 2 plies down. With K = 2 the walk goes on with 2g2f (score 10 beats 0) and stops at a
 * position the book lacks: 3 plies. With K = 5 it stops at once. */
static void test_find_start(void **state) {
    (void)state;
    Book *b = load_text("#YANEURAOU-DB2016 1.00\n"
                        "sfen " START "\n7g7f none 50 10 1\n2g2f none 30 10 9\n5g5f none -10 10 1\n1g1f none 0 10 1\n"
                        "sfen " AFTER_76 "\n3c3d none 20 10 1\n8c8d none 20 10 5\n1c1d none -5 10 1\n"
                        "9c9d none -9 10 1\n4a3b none 0 10 1\n"
                        "sfen " AFTER_76_84 "\n2g2f none 10 10 1\n6g6f none 0 10 3\n");
    Game g;
    game_init(&g);
    assert_int_equal(expand_find_start(b, &g, 4), 2);
    char sfen[SFEN_MAX];
    assert_string_equal(position_to_sfen(&g.pos, sfen, true), AFTER_76_84);
    game_free(&g);
    game_init(&g);
    assert_int_equal(expand_find_start(b, &g, 2), 3);
    char mv[USI_MOVE_MAX];
    assert_string_equal(move_to_usi(g.moves[2], mv), "2g2f");
    game_free(&g);
    game_init(&g);
    assert_int_equal(expand_find_start(b, &g, 5), 0);
    game_free(&g);
    book_free(b);
}

/* Gives node id the moves (USI) with visits and returns it; priors do not matter here. */
static void set_edges(MctsTree *t, uint32_t id, const Position *pos, const char *const *moves, const uint32_t *visits,
                      int n) {
    Move mv[8];
    float pr[8];
    for (int i = 0; i < n; i++) {
        mv[i] = usi(pos, moves[i]);
        pr[i] = 1.0f / (float)n;
    }
    assert_true(mcts_node_expand(t, id, mv, pr, n, 0.5f));
    for (int i = 0; i < n; i++)
        atomic_store(&mcts_edges(t, mcts_node(t, id))[i].visits, visits[i]);
}

static uint32_t child(MctsTree *t, uint32_t id, int e) {
    return mcts_edge_child(t, &mcts_edges(t, mcts_node(t, id))[e]);
}

/* The book holds the start, after 7g7f, after 2g2f, after 7g7f 3c3d and after 2g2f 3c3d.
 * Tree (visits):  start: 7g7f 10, 2g2f 6, 5g5f 3, 1g1f 0
 *                 after 7g7f: 3c3d 7, 8c8d 2      after 2g2f: 3c3d 5, 8c8d 1
 *                 after 7g7f 3c3d: 2g2f 4, 6g6f 2  after 2g2f 3c3d: 7g7f 3
 * Candidates (positions the book lacks, first on their path):
 *   7g7f 3c3d 2g2f = 2g2f 3c3d 7g7f (a transposition): 4 + 3 = 7
 *   5g5f: 3;  7g7f 8c8d: 2;  7g7f 3c3d 6g6f: 2;  2g2f 8c8d: 1;  1g1f: never visited.
 * The top two are the transposition (7) and 5g5f (3). */
static void test_count_and_pick(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    Book *b = book_create();
    const char *const lines[][4] = {{""}, {"7g7f"}, {"2g2f"}, {"7g7f", "3c3d"}, {"2g2f", "3c3d"}};
    const int lens[] = {0, 1, 1, 2, 2};
    for (int i = 0; i < 5; i++) {
        Game h;
        game_init(&h);
        for (int k = 0; k < lens[i]; k++)
            assert_true(game_push(&h, usi(&h.pos, lines[i][k])));
        BookKey key;
        book_key_from_position(&h.pos, &key);
        uint32_t id;
        assert_true(book_add_position(b, &key, h.pos.ply, &id));
        ExtMove l[MAX_MOVES];
        generate_moves(&h.pos, GEN_LEGAL, l);
        BookMove bm = {.move = move_to_move16(l[0].move), .count = 1};
        assert_true(book_add_move(b, id, &bm, NULL));
        game_free(&h);
    }
    MctsTree t;
    assert_true(mcts_tree_init_exact(&t, 64, 256));
    Position *pos = &g.pos;
    StateInfo st[4];
    const char *const root_moves[] = {"7g7f", "2g2f", "5g5f", "1g1f"};
    set_edges(&t, t.root, pos, root_moves, (const uint32_t[]){10, 6, 3, 0}, 4);
    uint32_t a = child(&t, t.root, 0), bb = child(&t, t.root, 1);
    child(&t, t.root, 2);
    position_do_move(pos, usi(pos, "7g7f"), &st[0]);
    set_edges(&t, a, pos, (const char *const[]){"3c3d", "8c8d"}, (const uint32_t[]){7, 2}, 2);
    uint32_t a1 = child(&t, a, 0);
    position_do_move(pos, usi(pos, "3c3d"), &st[1]);
    set_edges(&t, a1, pos, (const char *const[]){"2g2f", "6g6f"}, (const uint32_t[]){4, 2}, 2);
    position_undo_move(pos, pos->st->last_move);
    position_undo_move(pos, pos->st->last_move);
    position_do_move(pos, usi(pos, "2g2f"), &st[0]);
    set_edges(&t, bb, pos, (const char *const[]){"3c3d", "8c8d"}, (const uint32_t[]){5, 1}, 2);
    uint32_t b1 = child(&t, bb, 0);
    position_do_move(pos, usi(pos, "3c3d"), &st[1]);
    set_edges(&t, b1, pos, (const char *const[]){"7g7f"}, (const uint32_t[]){3}, 1);
    position_undo_move(pos, pos->st->last_move);
    position_undo_move(pos, pos->st->last_move);

    Book *counts = book_create();
    uint64_t *visits = NULL;
    size_t cap = 0;
    assert_true(expand_count(b, &t, &g, counts, &visits, &cap));
    assert_int_equal(book_position_count(counts), 5);
    ExpandTarget out[10];
    assert_int_equal(expand_pick(counts, visits, 10, out), 5);
    uint64_t sum = 0;
    for (int i = 0; i < 5; i++)
        sum += out[i].visits;
    assert_int_equal(sum, 7 + 3 + 2 + 2 + 1);
    assert_int_equal(expand_pick(counts, visits, 2, out), 2);
    Game want;
    game_init(&want);
    const char *const line[] = {"7g7f", "3c3d", "2g2f"};
    for (int k = 0; k < 3; k++)
        assert_true(game_push(&want, usi(&want.pos, line[k])));
    BookKey k0, k1;
    book_key_from_position(&want.pos, &k0);
    assert_int_equal(out[0].visits, 7);
    assert_memory_equal(&out[0].key, &k0, sizeof k0);
    game_free(&want);
    game_init(&want);
    assert_true(game_push(&want, usi(&want.pos, "5g5f")));
    book_key_from_position(&want.pos, &k1);
    assert_int_equal(out[1].visits, 3);
    assert_memory_equal(&out[1].key, &k1, sizeof k1);
    game_free(&want);
    free(visits);
    book_free(counts);
    mcts_tree_free(&t);
    book_free(b);
    game_free(&g);
}

/* ---- one whole round with a provider whose answers are known (mcts_provider_uniform) ---- */

/* The book: the start position with 2 moves (< K = 4, so the start is the root). Uniform
 * priors (1/30) and every value 0.5, at the root (fpu reduction 0):
 *   playout 1 expands the root;
 *   playout 2: N = 0, W = 0: every edge scores c * 1 * 1/30, the first wins;
 *   then an unvisited edge (q = W/N = 0.5, u = sqrt(N)) beats a visited one (q = 0.5,
 *   u = sqrt(N)/2), the first of equals winning: playouts 2..31 visit the 30 moves in
 *   order; from then on the least visited come first again, so playouts 32..36 give the
 *   first five moves their second visit.
 * Every child is a position the book lacks, so with 36 playouts the five most visited
 * (2 visits; the rest have 1) are the positions after the first five legal moves in
 * generation order, and thinking them adds exactly those five to the book. */
static void test_one_round(void **state) {
    (void)state;
    Book *b = load_text("#YANEURAOU-DB2016 1.00\nsfen " START "\n7g7f none 50 10 1\n2g2f none 30 10 1\n");
    char journal[64];
    snprintf(journal, sizeof journal, "/tmp/test_expand_%d.journal", (int)getpid());
    unlink(journal);
    ExpandOptions o;
    memset(&o, 0, sizeof o);
    o.playouts = 36;
    o.top = 5;
    o.min_candidates = 4;
    o.rounds = 1;
    o.provider = mcts_provider_uniform();
    mcts_options_default(&o.mcts);
    o.mcts.tree_mb = 1;
    o.think.depth = 1;
    o.think.threads = 1;
    o.think.hash_mb = 1;
    o.think.journal = journal;
    ExpandStats st;
    char err[256];
    assert_true(book_expand(b, &o, &st, err, sizeof err));
    assert_int_equal(st.rounds_done, 1);
    assert_int_equal(st.thought, 5);
    assert_int_equal(book_position_count(b), 6);
    Game g;
    game_init(&g);
    ExtMove l[MAX_MOVES];
    int n = generate_moves(&g.pos, GEN_LEGAL, l);
    assert_int_equal(n, 30);
    for (int i = 0; i < n; i++) {
        StateInfo s;
        position_do_move(&g.pos, l[i].move, &s);
        BookKey k;
        book_key_from_position(&g.pos, &k);
        uint32_t id;
        bool in = book_find(b, &k, &id);
        assert_int_equal(in, i < 5);
        if (in)
            assert_int_equal(book_position_move_count(b, id), 1);
        position_undo_move(&g.pos, l[i].move);
    }
    assert_int_equal(access(journal, F_OK), -1); /* removed after the round */
    game_free(&g);
    book_free(b);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_start),
        cmocka_unit_test(test_count_and_pick),
        cmocka_unit_test(test_one_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
