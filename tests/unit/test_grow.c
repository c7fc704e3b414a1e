/* test_grow.c - the tree of `book grow` (bookgen/grow.h) on hand-built games whose
 * counts, expansions and values are worked out by hand below.
 *
 * Three games, player "P" against opponent "O", max_ply 4, K = 2, prior G = 2, no book:
 *   A: 7g7f 3c3d 2g2f 8c8d   black (P) wins
 *   B: 7g7f 3c3d 2g2f 4c4d   white (P) wins
 *   C: 7g7f 8c8d             draw, P black
 * Walks: A exits after 7g7f (1 exit); B exits there too (2: it becomes a node P1, and A
 * and B walk on to P2 = after 3c3d, then P3 = after 2g2f, each reaching 2 exits); C is
 * credited 7g7f and 8c8d at P1 and exits after 8c8d (1 exit: no node). So: 4 nodes (3
 * grown), 4 + 4 + 2 = 10 plies in book; root 7g7f 3 games +1 =1 -1 (black's view).
 * Values (no scores: p is the position's mean result for the side to move shrunk by 2
 * games, which is 1/2 at every node here: root 1.5 of 3, P1 1.5 of 3, P2 1 of 2, P3 1 of
 * 2; so a leaf's q = (W + D/2 + 1) / (n + 2)):
 *   P3 (white to move): 8c8d n1 W0 q 1/3 (by O), 4c4d n1 W1 q 2/3 (by P):
 *       Vp = 2/3, Vo = 1/3 (only O's reply).
 *   P2 (black): 2g2f n2: as P's move q = (2 (1 - 1/3) + 1) / 4 = 7/12; Vo = the move valued
 *       against Vp(P3): (2 (1 - 2/3) + 1) / 4 = 5/12.
 *   P1 (white): 3c3d n2: q = (2 (1 - 5/12) + 1) / 4 = 13/24; 8c8d n1 draw, leaf q 1/2.
 *       Vo = mean of O's replies (3c3d in A, 8c8d in C) valued against Vp(P2) = 7/12:
 *       3c3d (2 (5/12) + 1) / 4 = 11/24, 8c8d 1/2: Vo = 23/48.
 *   root: 7g7f q = (3 (1 - 23/48) + 1) / 5 = 123/240.
 * Scores: 600 ln(q / (1 - q)): 123/240 -> 30, 7/12 -> 202, 13/24 -> 100, 2/3 -> 416,
 * 1/3 -> -416, 1/2 -> 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/open.h"
#include "bookgen/grow.h"
#include "match/node_jitter.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

static const GrowOptions OPTS = {.max_ply = 4, .expand_after = 2, .prior = 2, .explore = 0, .player = "P"};

/* Adds the game usi with the event of its record (NULL: none). */
static void add_event(GrowTree *t, const char *usi, RecordResult r, const char *black, const char *white,
                      const char *event) {
    Game g;
    game_init(&g);
    char err[256];
    assert_true(game_set_from_usi(&g, usi, err, sizeof err));
    assert_int_equal(grow_tree_add_game(t, STARTPOS_SFEN, g.moves, g.count, r, black, white, event), GROW_ADDED);
    game_free(&g);
}

/* Adds a game as book grow writes it (its event marks it as grow's own). */
static void add(GrowTree *t, const char *usi, RecordResult r, const char *black, const char *white) {
    add_event(t, usi, r, black, white, GROW_EVENT "1");
}

static const char *const GAMES[3] = {"startpos moves 7g7f 3c3d 2g2f 8c8d", "startpos moves 7g7f 3c3d 2g2f 4c4d",
                                     "startpos moves 7g7f 8c8d"};
static const RecordResult RESULTS[3] = {REC_BLACK_WIN, REC_WHITE_WIN, REC_DRAW};
static const char *const BLACKS[3] = {"P", "O", "P"}, *const WHITES[3] = {"O", "P", "O"};

/* True when m is the move u in USI. */
static bool is_move(Move m, const char *u) {
    char buf[USI_MOVE_MAX];
    return !strcmp(move_to_usi(m, buf), u);
}

/* The move usi of the position after `moves` in b: its BookMove, asserted present. */
static BookMove move_at(const Book *b, const char *moves, const char *usi) {
    Game g;
    game_init(&g);
    char err[256];
    assert_true(game_set_from_usi(&g, moves, err, sizeof err));
    BookMoveList *l = malloc(sizeof *l);
    assert_true(book_lookup(b, &g.pos, l));
    BookMove found = {0};
    bool hit = false;
    for (int i = 0; i < l->n; i++) {
        char u[USI_MOVE_MAX];
        if (!strcmp(move_to_usi(l->moves[i].move, u), usi)) {
            found = l->moves[i];
            hit = true;
        }
    }
    free(l);
    game_free(&g);
    if (!hit)
        fail_msg("%s not found after '%s'", usi, moves);
    return found;
}

static void test_counts_and_values(void **state) {
    (void)state;
    GrowTree *t = grow_tree_create(NULL, &OPTS);
    assert_non_null(t);
    for (int i = 0; i < 3; i++)
        add(t, GAMES[i], RESULTS[i], BLACKS[i], WHITES[i]);
    GrowSummary s;
    grow_tree_summary(t, &s);
    assert_int_equal(s.games, 3);
    assert_int_equal(s.nodes, 4);
    assert_int_equal(s.grown, 3);
    assert_int_equal(s.book_plies, 10);
    Book *b = grow_tree_book(t);
    assert_non_null(b);
    assert_int_equal(book_position_count(b), 4);
    BookMove m = move_at(b, "startpos", "7g7f");
    assert_int_equal(m.count, 3);
    assert_int_equal(m.score, 30);
    m = move_at(b, "startpos moves 7g7f", "3c3d");
    assert_int_equal(m.count, 2);
    assert_int_equal(m.score, 100);
    m = move_at(b, "startpos moves 7g7f", "8c8d");
    assert_int_equal(m.count, 1);
    assert_int_equal(m.score, 0);
    m = move_at(b, "startpos moves 7g7f 3c3d", "2g2f");
    assert_int_equal(m.score, 202);
    assert_int_equal(move_at(b, "startpos moves 7g7f 3c3d 2g2f", "4c4d").score, 416);
    assert_int_equal(move_at(b, "startpos moves 7g7f 3c3d 2g2f", "8c8d").score, -416);
    /* the evidence: games and wins by colour on the root move (black: +1 =1 -1) */
    uint32_t id;
    BookKey key;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    book_key_from_position(&pos, &key);
    assert_true(book_find(b, &key, &id));
    BookStats bs;
    Move16 m7;
    assert_true(move16_from_usi("7g7f", 4, &m7));
    assert_true(book_get_stats(b, id, m7, &bs));
    assert_int_equal(bs.games, 3);
    assert_int_equal(bs.black_wins, 1);
    assert_int_equal(bs.white_wins, 1);
    book_free(b);
    grow_tree_free(t);
}

/* The tree and OUT do not depend on the order of the games. */
static void test_order_independent(void **state) {
    (void)state;
    char p1[] = "/tmp/test_grow_a_XXXXXX", p2[] = "/tmp/test_grow_b_XXXXXX";
    int f1 = mkstemp(p1), f2 = mkstemp(p2);
    assert_true(f1 >= 0 && f2 >= 0);
    close(f1);
    close(f2);
    const int orders[2][3] = {{0, 1, 2}, {2, 1, 0}};
    for (int o = 0; o < 2; o++) {
        GrowTree *t = grow_tree_create(NULL, &OPTS);
        for (int i = 0; i < 3; i++) {
            int k = orders[o][i];
            add(t, GAMES[k], RESULTS[k], BLACKS[k], WHITES[k]);
        }
        Book *b = grow_tree_book(t);
        char err[256];
        BookWriteOptions wo = {.write_comments = true};
        assert_true(book_write(o ? p2 : p1, NULL, b, &wo, NULL, err, sizeof err));
        book_free(b);
        grow_tree_free(t);
    }
    FILE *a = fopen(p1, "rb"), *c = fopen(p2, "rb");
    char x[8192], y[8192];
    size_t nx = fread(x, 1, sizeof x, a), ny = fread(y, 1, sizeof y, c);
    fclose(a);
    fclose(c);
    unlink(p1);
    unlink(p2);
    assert_true(nx > 100);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    assert_non_null(strstr(x, "grow 7g7f: 3 games +1 =1 -1"));
}

/* K = 1: a game enters the tree up to max_ply at once. Its one line of single games keeps
 * its result through the backup (priors: the position's mean, shrunk by G = 2: 2/3 where
 * black moves, black having won, 1/3 where white moves):
 *   8c8d (leaf, lost): (0 + 2 (1/3)) / 3 = 2/9                 -> -752
 *   2g2f: (1 (1 - 2/9) + 2 (2/3)) / 3 = 19/27                    -> +519
 *   3c3d: (1 (1 - 19/27) + 2 (1/3)) / 3 = 26/81                  -> -450
 *   7g7f: (1 (1 - 26/81) + 2 (2/3)) / 3 = 163/243                -> +427
 * (a prior of 1/2 at every ply would wash the result out to 1/2 within a few plies). */
static void test_growth_k1(void **state) {
    (void)state;
    GrowOptions o = OPTS;
    o.expand_after = 1;
    GrowTree *t = grow_tree_create(NULL, &o);
    add(t, "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e", REC_BLACK_WIN, "P", "O");
    GrowSummary s;
    grow_tree_summary(t, &s);
    assert_int_equal(s.nodes, 4); /* the root and the positions after plies 1-3 */
    assert_int_equal(s.grown, 3);
    assert_int_equal(s.book_plies, 4);
    Book *b = grow_tree_book(t);
    assert_int_equal(move_at(b, "startpos", "7g7f").score, 427);
    assert_int_equal(move_at(b, "startpos moves 7g7f", "3c3d").score, -450);
    assert_int_equal(move_at(b, "startpos moves 7g7f 3c3d", "2g2f").score, 519);
    assert_int_equal(move_at(b, "startpos moves 7g7f 3c3d 2g2f", "8c8d").score, -752);
    book_free(b);
    grow_tree_free(t);
}

/* Not from the root, or no result: refused. */
static void test_foreign(void **state) {
    (void)state;
    GrowTree *t = grow_tree_create(NULL, &OPTS);
    Move m[1] = {MOVE_NONE};
    assert_int_equal(grow_tree_add_game(t, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2", m, 0,
                                        REC_DRAW, "P", "O", NULL),
                     GROW_NOT_ROOT);
    assert_int_equal(grow_tree_add_game(t, STARTPOS_SFEN, m, 0, REC_RESULT_UNKNOWN, "P", "O", GROW_EVENT "1"),
                     GROW_NO_RESULT);
    grow_tree_free(t);
}

/* A new book holding the start position (pos, set to it), no move yet: its id in *id. */
static Book *startpos_book(Position *pos, StateInfo *st, uint32_t *id) {
    Book *b = book_create();
    assert_non_null(b);
    position_set_startpos(pos, st);
    BookKey key;
    book_key_from_position(pos, &key);
    assert_true(book_add_position(b, &key, 1, id));
    return b;
}

/* The policy: the prior decides before any game, results after; a game in progress
 * counts as a loss until released; off the tree the player searches. */
static void test_policy(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    uint32_t id;
    Book *in = startpos_book(&pos, &st, &id);
    Move16 a = MOVE_NONE, b = MOVE_NONE;
    assert_true(move16_from_usi("7g7f", 4, &a));
    assert_true(move16_from_usi("2g2f", 4, &b));
    BookMove ma = {.move = a, .score = 0, .has_score = true}, mb = {.move = b, .score = 10, .has_score = true};
    assert_true(book_add_move(in, id, &ma, NULL) && book_add_move(in, id, &mb, NULL));
    GrowOptions o = OPTS;
    o.prior = 4;
    GrowTree *t = grow_tree_create(in, &o);
    Move out, first;
    assert_true(grow_tree_choose(t, NULL, 0, &first));
    assert_int_equal(move_to_move16(first), b); /* E(10) > E(0) */
    /* 2g2f in progress: (4 E(10)) / 5 = 0.403 < 0.5 */
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_int_equal(move_to_move16(out), a);
    grow_tree_release(t, NULL, 0, first);
    Move again;
    assert_true(grow_tree_choose(t, NULL, 0, &again));
    assert_int_equal(move_to_move16(again), b);
    grow_tree_release(t, NULL, 0, again);
    grow_tree_release(t, NULL, 0, out);
    /* two lost games with 2g2f: the policy's (0 + 4 E(10)) / 6 = 0.336 */
    add(t, "startpos moves 2g2f 3c3d", REC_WHITE_WIN, "P", "O");
    add(t, "startpos moves 2g2f 8c8d", REC_WHITE_WIN, "P", "O");
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_int_equal(move_to_move16(out), a);
    grow_tree_release(t, NULL, 0, out);
    /* after 7g7f (no exit yet): not in the tree */
    Move moves[1] = {out};
    assert_false(grow_tree_choose(t, moves, 1, &out));
    /* the unplayed book move keeps its input score, with count 0 */
    Book *bk = grow_tree_book(t);
    assert_int_equal(move_at(bk, "startpos", "7g7f").score, 0);
    assert_int_equal(move_at(bk, "startpos", "7g7f").count, 0);
    assert_int_equal(move_at(bk, "startpos", "2g2f").count, 2);
    /* the two games made the position after 2g2f a node (K = 2) whose replies both won for
     * the opponent: its prior (2 + 4 / 2) / 6 = 2/3, leaf q (1 + 4 (2/3)) / 5 = 11/15 each,
     * Vo = 11/15, so 2g2f's value backs up to (2 (4/15) + 4 E(10)) / 6 = 0.425: -181 */
    assert_int_equal(move_at(bk, "startpos", "2g2f").score, -181);
    book_free(bk);
    grow_tree_free(t);
    book_free(in);
}

static void test_logistic(void **state) {
    (void)state;
    assert_int_equal(grow_score_cp(0.5), 0);
    assert_int_equal(grow_score_cp(2.0 / 3), 416);                                       /* 600 ln 2 = 415.9 */
    assert_true(grow_expected_score(600) > 0.7310 && grow_expected_score(600) < 0.7311); /* 1 / (1 + e^-1) */
    assert_int_equal(grow_score_cp(grow_expected_score(-250)), -250);
}

/* --nodes-jitter: the same arguments give the same budget; every budget lies in
 * [N - floor(N P / 100), N + floor(N P / 100)]; over 1000 games the budgets vary (a
 * constant budget would replay one game) and reach both halves of the range; 0 % and tiny
 * budgets give N itself or at least 1. */
static void test_jitter(void **state) {
    (void)state;
    int64_t lo = 5000 - 500, hi = 5000 + 500, min = INT64_MAX, max = 0;
    int differ = 0, sides_differ = 0;
    for (uint64_t game = 1; game <= 1000; game++) {
        int64_t a = match_jittered_nodes(5000, 10, 7, game, 0), b = match_jittered_nodes(5000, 10, 7, game, 1);
        assert_int_equal(a, match_jittered_nodes(5000, 10, 7, game, 0));
        assert_true(a >= lo && a <= hi && b >= lo && b <= hi);
        differ += a != match_jittered_nodes(5000, 10, 7, game + 1, 0);
        sides_differ += a != b;
        min = a < min ? a : min;
        max = a > max ? a : max;
    }
    assert_true(differ > 990 && sides_differ > 990); /* 1001 values: a repeat is rare */
    assert_true(min < 4600 && max > 5400);
    int seeds_differ = 0;
    for (uint64_t game = 1; game <= 100; game++)
        seeds_differ += match_jittered_nodes(5000, 10, 7, game, 0) != match_jittered_nodes(5000, 10, 8, game, 0);
    assert_true(seeds_differ > 90);
    assert_int_equal(match_jittered_nodes(5000, 0, 7, 3, 0), 5000);
    assert_int_equal(match_jittered_nodes(9, 10, 7, 3, 0), 9); /* d = floor(0.9) = 0 */
    for (uint64_t game = 1; game <= 100; game++) {
        int64_t v = match_jittered_nodes(1, 100, 7, game, 1);
        assert_true(v >= 1 && v <= 2);
        assert_true(match_jittered_nodes(INT64_MAX, 100, 7, game, 0) >= 1);
    }
}

/* Progressive widening, W = 1, no book: after one game the root lists 7g7f alone, k = 1 is
 * not below sqrt(1), so the tree plays it; after two, 1 < sqrt(2): the tree declines and
 * names the other 29 legal moves of the start position (30 in all, counted by perft 1);
 * with a second arm (2g2f played), 2 < sqrt(N) first holds at N = 5. W = 0 never widens. */
static void test_widen(void **state) {
    (void)state;
    Book *in = book_create();
    GrowOptions o = OPTS;
    o.widen = 1;
    GrowTree *t = grow_tree_create(in, &o), *off = grow_tree_create(in, &OPTS);
    Move out, only[MAX_MOVES];
    add(t, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O");
    add(off, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O");
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_true(is_move(out, "7g7f"));
    grow_tree_release(t, NULL, 0, out);
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    add(t, "startpos moves 7g7f 8c8d", REC_BLACK_WIN, "P", "O");
    add(off, "startpos moves 7g7f 8c8d", REC_BLACK_WIN, "P", "O");
    assert_false(grow_tree_choose(t, NULL, 0, &out));
    int n = grow_tree_widen(t, NULL, 0, only);
    assert_int_equal(n, 29);
    for (int i = 0; i < n; i++)
        assert_false(is_move(only[i], "7g7f"));
    assert_true(grow_tree_choose(off, NULL, 0, &out)); /* W = 0 */
    assert_int_equal(grow_tree_widen(off, NULL, 0, only), 0);
    add(t, "startpos moves 2g2f 8c8d", REC_WHITE_WIN, "P", "O"); /* N = 3, k = 2 */
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    grow_tree_release(t, NULL, 0, out);
    add(t, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O"); /* N = 4: 2 < 2 is false */
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    add(t, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O"); /* N = 5 */
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 28);
    grow_tree_free(t);
    grow_tree_free(off);
    book_free(in);
}

/* The bytes book_write() makes of b (DB2016 with comments), in buf; their length. */
static size_t book_bytes(const Book *b, char *buf, size_t cap) {
    char path[] = "/tmp/test_grow_w_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    BookWriteOptions wo = {.write_comments = true};
    assert_true(book_write(path, NULL, b, &wo, NULL, err, sizeof err));
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    unlink(path);
    assert_true(n > 0 && n < cap);
    return n;
}

/* Widening counts book grow's own games only. W = 1, no book: 100 imported games (other
 * matches' records, or none named) through the root list 7g7f alone; with the old N (every
 * game) 1 < sqrt(100) would widen at once, but no game there is grow's, so N = 0 and the
 * tree plays 7g7f. One grow game: 1 < sqrt(1) is false, still no widening; a second: 1 <
 * sqrt(2), the tree declines and names the other 29 legal moves. A game in progress counts
 * too: after the first grow game, one chosen move in flight makes N = 2. OUT does not
 * depend on the events: the same games with every event blank give the same bytes. */
static void test_widen_counts_grow_games(void **state) {
    (void)state;
    GrowOptions o = OPTS;
    o.widen = 1;
    GrowTree *t = grow_tree_create(NULL, &o), *blank = grow_tree_create(NULL, &o);
    static const char *const EVENTS[3] = {"hayanagi match, game 1 of 100", "", NULL};
    for (int i = 0; i < 100; i++) {
        const char *usi = i % 2 ? "startpos moves 7g7f 3c3d" : "startpos moves 7g7f 8c8d";
        add_event(t, usi, i % 3 ? REC_BLACK_WIN : REC_WHITE_WIN, "P", "O", EVENTS[i % 3]);
        add_event(blank, usi, i % 3 ? REC_BLACK_WIN : REC_WHITE_WIN, "P", "O", "");
    }
    GrowSummary s;
    grow_tree_summary(t, &s);
    assert_int_equal(s.games, 100);
    assert_int_equal(s.grow_games, 0);
    Move out, only[MAX_MOVES];
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_true(is_move(out, "7g7f"));
    grow_tree_release(t, NULL, 0, out);
    /* one of book grow's games (its event as `book grow` writes it) */
    add_event(t, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O", GROW_EVENT "101");
    add_event(blank, "startpos moves 7g7f 3c3d", REC_BLACK_WIN, "P", "O", "");
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    assert_true(grow_tree_choose(t, NULL, 0, &out)); /* N = 1 grow game + this one in progress */
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 29);
    grow_tree_release(t, NULL, 0, out);
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    add_event(t, "startpos moves 7g7f 8c8d", REC_DRAW, "O", "P", GROW_EVENT "102");
    add_event(blank, "startpos moves 7g7f 8c8d", REC_DRAW, "O", "P", "");
    grow_tree_summary(t, &s);
    assert_int_equal(s.games, 102);
    assert_int_equal(s.grow_games, 2);
    assert_false(grow_tree_choose(t, NULL, 0, &out));
    int n = grow_tree_widen(t, NULL, 0, only);
    assert_int_equal(n, 29);
    for (int i = 0; i < n; i++)
        assert_false(is_move(only[i], "7g7f"));
    /* the blank tree (no grow game) does not widen; its OUT is the same */
    assert_int_equal(grow_tree_widen(blank, NULL, 0, only), 0);
    Book *a = grow_tree_book(t), *b = grow_tree_book(blank);
    assert_non_null(a);
    assert_non_null(b);
    static char x[1 << 16], y[1 << 16];
    size_t nx = book_bytes(a, x, sizeof x), ny = book_bytes(b, y, sizeof y);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    assert_non_null(strstr(x, "grow 7g7f: 102 games"));
    book_free(a);
    book_free(b);
    grow_tree_free(t);
    grow_tree_free(blank);
}

/* What marks a game as book grow's: its event begins with GROW_EVENT. */
static void test_grow_event(void **state) {
    (void)state;
    assert_true(grow_event_is_grow("hayanagi book grow, game 1"));
    assert_true(grow_event_is_grow("hayanagi book grow, game 123456"));
    assert_false(grow_event_is_grow("hayanagi match, game 1 of 200"));
    assert_false(grow_event_is_grow("hayanagi book grow"));
    assert_false(grow_event_is_grow(" hayanagi book grow, game 1"));
    assert_false(grow_event_is_grow(""));
    assert_false(grow_event_is_grow(NULL));
}

/* The root's moves (grow.h): the text of --root-moves, and what --keep-root takes from a
 * book (its legal moves at the start position, each once). */
static void test_root_moves_parse(void **state) {
    (void)state;
    Move16 m[MAX_MOVES];
    char err[128];
    assert_int_equal(grow_root_moves_parse("7g7f,2g2f", m, err, sizeof err), 2);
    assert_true(is_move(m[0], "7g7f") && is_move(m[1], "2g2f"));
    assert_int_equal(grow_root_moves_parse(" 2g2f 7g7f,,", m, err, sizeof err), 2);
    assert_true(is_move(m[0], "2g2f") && is_move(m[1], "7g7f"));
    assert_int_equal(grow_root_moves_parse("1g1f", m, err, sizeof err), 1);
    /* not legal at the start position: a square off the pawn's path, white's move, a drop
     * with an empty hand, a promotion, junk; repeated; nothing */
    static const char *const BAD[] = {"7g7e", "3c3d", "P*5e", "7g7f+", "7g7f,xyz", "7g7f,2g2f,7g7f", "", " , "};
    static const char *const NAMED[] = {"'7g7e'",  "'3c3d'", "'P*5e'", "'7g7f+'", "'xyz'", "7g7f is given twice",
                                        "no move", "no move"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        err[0] = '\0';
        assert_int_equal(grow_root_moves_parse(BAD[i], m, err, sizeof err), -1);
        if (!strstr(err, NAMED[i]))
            fail_msg("'%s': the reason '%s' does not name %s", BAD[i], err, NAMED[i]);
    }
    /* a book's moves at the start position: the legal ones, each once, in its order */
    Position pos;
    StateInfo st;
    uint32_t id;
    Book *in = startpos_book(&pos, &st, &id);
    static const char *const LISTED[] = {"2g2f", "3c3d", "7g7f"}; /* 3c3d is white's: illegal here */
    for (int i = 0; i < 3; i++) {
        BookMove bm = {.ponder = MOVE_NONE};
        assert_true(move16_from_usi(LISTED[i], 4, &bm.move));
        assert_true(book_add_move(in, id, &bm, NULL));
    }
    assert_int_equal(grow_root_moves_of_book(in, m), 2);
    assert_true(is_move(m[0], "2g2f") && is_move(m[1], "7g7f"));
    assert_int_equal(grow_root_moves_of_book(NULL, m), 0);
    Book *empty = book_create();
    assert_int_equal(grow_root_moves_of_book(empty, m), 0);
    book_free(empty);
    book_free(in);
}

/* The games of the root test: 1g1f won by the player (black) 5 times, 7g7f 1 of 2 and 2g2f
 * lost once, and the opponent opening 5g5f as black twice (10 games) (the player, white, winning):
 * every game passes the root, K = 2 makes the positions after 1g1f, 7g7f and 5g5f nodes. */
static void add_root_games(GrowTree *t) {
    for (int i = 0; i < 5; i++)
        add(t, i % 2 ? "startpos moves 1g1f 3c3d 7g7f" : "startpos moves 1g1f 3c3d 2g2f", REC_BLACK_WIN, "P", "O");
    add(t, "startpos moves 7g7f 3c3d 2g2f", REC_BLACK_WIN, "P", "O");
    add(t, "startpos moves 7g7f 8c8d 2g2f", REC_WHITE_WIN, "P", "O");
    add(t, "startpos moves 2g2f 8c8d", REC_WHITE_WIN, "P", "O");
    add(t, "startpos moves 5g5f 3c3d", REC_WHITE_WIN, "O", "P");
    add(t, "startpos moves 5g5f 8c8d", REC_WHITE_WIN, "O", "P");
}

/* The first line that begins with start in the start position's entry of the book text x
 * ("" when none), copied into line. */
static const char *line_of(const char *x, const char *start, char *line, size_t cap) {
    line[0] = '\0';
    const char *s = strstr(x, "sfen " STARTPOS_SFEN "\n");
    for (s = s ? strchr(s, '\n') + 1 : NULL; s && *s && strncmp(s, "sfen ", 5);
         s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
        if (!strncmp(s, start, strlen(start))) {
            size_t n = strcspn(s, "\n");
            snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
            break;
        }
    return line;
}

/* root_moves 7g7f, 2g2f over games whose best first move by far is 1g1f: without the option
 * the policy picks 1g1f and OUT lists it; with it the policy never does (not even with every
 * kept arm loaded by games in progress), OUT lists 7g7f and 2g2f alone at the root, the
 * positions after 1g1f and after the opponent's 5g5f stay with their games, the root's
 * comment keeps all 10 games and its value with an opponent to move, and its value with the
 * player to move is 7g7f's (the best kept move), not 1g1f's. The player's moves after the
 * opponent's free 5g5f are still chosen by the tree. */
static void test_root_moves_tree(void **state) {
    (void)state;
    Move16 keep[2];
    assert_true(move16_from_usi("7g7f", 4, &keep[0]) && move16_from_usi("2g2f", 4, &keep[1]));
    GrowOptions o = OPTS;
    o.explore = 0.5;
    GrowTree *free_root = grow_tree_create(NULL, &o);
    o.root_moves = keep;
    o.n_root_moves = 2;
    GrowTree *t = grow_tree_create(NULL, &o);
    keep[0] = keep[1] = MOVE_NONE; /* the tree keeps its own copy */
    add_root_games(free_root);
    add_root_games(t);
    Move out;
    assert_true(grow_tree_choose(free_root, NULL, 0, &out));
    assert_true(is_move(out, "1g1f"));
    grow_tree_release(free_root, NULL, 0, out);
    for (int i = 0; i < 50; i++) { /* in progress, never released: each pick loads its arm */
        assert_true(grow_tree_choose(t, NULL, 0, &out));
        if (!is_move(out, "7g7f") && !is_move(out, "2g2f"))
            fail_msg("pick %d: an unkept move", i);
    }
    /* the opponent's free first move 5g5f: the player (white) is chosen its reply there */
    Game g;
    game_init(&g);
    char err[256];
    assert_true(game_set_from_usi(&g, "startpos moves 5g5f", err, sizeof err));
    assert_true(grow_tree_choose(t, g.moves, 1, &out));
    assert_true(is_move(out, "8c8d") || is_move(out, "3c3d"));
    game_free(&g);
    Book *a = grow_tree_book(free_root), *b = grow_tree_book(t);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(move_at(a, "startpos", "1g1f").count, 5);
    assert_int_equal(move_at(a, "startpos", "5g5f").count, 2);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookMoveList *l = malloc(sizeof *l);
    assert_true(book_lookup(b, &pos, l));
    assert_int_equal(l->n, 2);
    assert_true(is_move(l->moves[0].move, "7g7f") && is_move(l->moves[1].move, "2g2f"));
    free(l);
    assert_int_equal(move_at(b, "startpos", "7g7f").score, move_at(a, "startpos", "7g7f").score);
    assert_int_equal(move_at(b, "startpos moves 1g1f", "3c3d").count, 5);
    assert_int_equal(move_at(b, "startpos moves 5g5f", "8c8d").count, 1);
    static char x[1 << 16], y[1 << 16];
    size_t nx = book_bytes(a, x, sizeof x), ny = book_bytes(b, y, sizeof y);
    (void)nx;
    (void)ny;
    assert_null(strstr(y, "grow 1g1f"));
    assert_null(strstr(y, "grow 5g5f"));
    assert_non_null(strstr(x, "grow 1g1f: 5 games +5 =0 -0"));
    /* the root's comment: the same games and opponent's value, the player's value that of
     * 7g7f (its q in its own comment) */
    char ra[256], rb[256], q7[256];
    line_of(x, "#grow: ", ra, sizeof ra);
    line_of(y, "#grow: ", rb, sizeof rb);
    line_of(y, "#grow 7g7f: ", q7, sizeof q7);
    assert_non_null(strstr(ra, "#grow: 10 games (8 by the player), value "));
    assert_non_null(strstr(rb, "#grow: 10 games (8 by the player), value "));
    const char *va = strstr(ra, ", value "), *vb = strstr(rb, ", value "), *v7 = strstr(q7, ", value ");
    assert_true(va && vb && v7);
    assert_string_equal(strstr(ra, " with the player to move"), strstr(rb, " with the player to move"));
    assert_memory_equal(vb + 8, v7 + 8, 5);      /* "0.xyz" */
    assert_true(strncmp(va + 8, vb + 8, 5) > 0); /* 1g1f's value was above every kept move's */
    book_free(a);
    book_free(b);
    grow_tree_free(free_root);
    grow_tree_free(t);
}

/* A kept move no node lists: the tree chooses nothing at the root and the player searches
 * among the kept moves it lacks, whatever W is (and among them only when widening applies
 * to the kept arms); an IN listing an unkept move at the root loses it in OUT, games or not. */
static void test_root_moves_unlisted(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    uint32_t id;
    Book *in = startpos_book(&pos, &st, &id);
    BookMove bm = {.ponder = MOVE_NONE, .has_score = true, .score = 50, .count = 1};
    assert_true(move16_from_usi("1g1f", 4, &bm.move));
    assert_true(book_add_move(in, id, &bm, NULL));
    Move16 keep[2];
    assert_true(move16_from_usi("5g5f", 4, &keep[0]) && move16_from_usi("6g6f", 4, &keep[1]));
    GrowOptions o = OPTS;
    o.root_moves = keep;
    o.n_root_moves = 2;
    GrowTree *t = grow_tree_create(in, &o);
    Move out, only[MAX_MOVES];
    assert_false(grow_tree_choose(t, NULL, 0, &out));
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 2);
    assert_true((is_move(only[0], "5g5f") && is_move(only[1], "6g6f")) ||
                (is_move(only[0], "6g6f") && is_move(only[1], "5g5f")));
    /* OUT without games: the root keeps IN's entry less 1g1f (no move left) */
    Book *b = grow_tree_book(t);
    assert_non_null(b);
    BookMoveList *l = malloc(sizeof *l);
    assert_false(book_lookup(b, &pos, l) && l->n > 0);
    book_free(b);
    /* one game with 5g5f: now listed, the tree plays it; 6g6f is offered only when widening
     * applies (W = 1: 1 < sqrt(N) from N = 2 grow games) */
    add(t, "startpos moves 5g5f 3c3d", REC_BLACK_WIN, "P", "O");
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_true(is_move(out, "5g5f"));
    grow_tree_release(t, NULL, 0, out);
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    grow_tree_free(t);
    o.widen = 1;
    t = grow_tree_create(in, &o);
    add(t, "startpos moves 5g5f 3c3d", REC_BLACK_WIN, "P", "O");
    add(t, "startpos moves 1g1f 3c3d", REC_BLACK_WIN, "P", "O"); /* unkept: not in N */
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 0);
    assert_true(grow_tree_choose(t, NULL, 0, &out));
    assert_true(is_move(out, "5g5f"));
    grow_tree_release(t, NULL, 0, out);
    add(t, "startpos moves 5g5f 8c8d", REC_BLACK_WIN, "P", "O"); /* N = 2 */
    assert_false(grow_tree_choose(t, NULL, 0, &out));
    assert_int_equal(grow_tree_widen(t, NULL, 0, only), 1);
    assert_true(is_move(only[0], "6g6f"));
    b = grow_tree_book(t);
    assert_true(book_lookup(b, &pos, l));
    assert_int_equal(l->n, 1);
    assert_true(is_move(l->moves[0].move, "5g5f"));
    free(l);
    book_free(b);
    grow_tree_free(t);
    book_free(in);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_and_values),
        cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_growth_k1),
        cmocka_unit_test(test_foreign),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_logistic),
        cmocka_unit_test(test_jitter),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_widen_counts_grow_games),
        cmocka_unit_test(test_grow_event),
        cmocka_unit_test(test_root_moves_parse),
        cmocka_unit_test(test_root_moves_tree),
        cmocka_unit_test(test_root_moves_unlisted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
