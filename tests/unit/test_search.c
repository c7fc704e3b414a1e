/* test_search.c - the alpha-beta search: mates found and real, legal answers on random
 * positions, MultiPV, determinism of the node count at one thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mate_brute.h"
#include "search/search.h"
#include "shogi/notation.h"

static Search *searcher;

static int setup(void **state) {
    (void)state;
    searcher = search_create(16);
    return searcher ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    search_destroy(searcher);
    return 0;
}

static void load(Game *g, const char *sfen) {
    game_init(g);
    char err[128];
    if (!game_set_sfen_ex(g, sfen, SFEN_ALLOW_MISSING_KING, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

/* Mates in 1, 3 and 5 (plies): the search must report a mate score no longer than the
 * true shortest mate allows it to see, and its move must start a forced mate of the
 * length it claims (checked by exhaustive search). */
static void test_finds_mates(void **state) {
    (void)state;
    static const struct {
        const char *sfen;
        int plies;
    } cases[] = {
        {"4k4/9/4P4/9/9/9/9/9/4K4 b G 1", 1},
        {"8k/9/6L2/9/8g/9/9/9/K8 b GR 1", 3},
        {"3sks3/9/4S4/9/1+B7/9/9/9/K8 b S2rb4g4n4l17p 1", 3},
        {"9/7k1/9/6LG1/9/9/9/9/K8 b SN 1", 5},
        {"7k1/9/6B2/9/4p4/9/9/9/K8 b BR 1", 5},
    };
    SearchOptions opt;
    search_options_default(&opt);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Game g;
        load(&g, cases[i].sfen);
        SearchLimits lim;
        memset(&lim, 0, sizeof lim);
        lim.depth = 10;
        search_clear(searcher);
        SearchResult r = search_run(searcher, &g, &lim, &opt, NULL);
        if (r.score < VALUE_MATE_IN_MAX_PLY)
            fail_msg("%s: no mate found (score %d)", cases[i].sfen, r.score);
        int claimed = VALUE_MATE - r.score;
        assert_true(claimed % 2 == 1);
        assert_true(claimed <= cases[i].plies + 4);
        StateInfo st;
        Move best = position_legal_move_from16(&g.pos, (Move16)r.best);
        assert_int_not_equal(best, MOVE_NONE);
        position_do_move(&g.pos, best, &st);
        /* Every reply loses within the claim, under game rules (a quiet move that
         * leaves no legal reply wins too, so the exhaustive check plays every move). */
        if (!brute_game_defender(&g.pos, claimed - 1))
            fail_msg("%s: the claimed mate in %d after the first move is not forced", cases[i].sfen, claimed);
        position_undo_move(&g.pos, best);
        game_free(&g);
    }
}

static uint64_t next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Thousands of random positions, tiny searches: the answer is always legal here, the
 * ponder move always legal after it, and a lost position answers resign. */
static void test_bestmove_always_legal(void **state) {
    (void)state;
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.nodes = 300;
    uint64_t seed = 777;
    int checked = 0;
    for (int game = 0; game < 25; game++) {
        Game g;
        game_init(&g);
        for (int ply = 0; ply < 120; ply++) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            SearchResult r = search_run(searcher, &g, &lim, &opt, NULL);
            checked++;
            if (n == 0) {
                assert_int_equal(r.best, MOVE_RESIGN);
                break;
            }
            Move best = position_legal_move_from16(&g.pos, (Move16)r.best);
            if (best == MOVE_NONE && r.best != MOVE_WIN) {
                char sfen[SFEN_MAX];
                fail_msg("illegal bestmove at %s", position_to_sfen(&g.pos, sfen, true));
            }
            if (best && r.ponder) {
                StateInfo st;
                position_do_move(&g.pos, best, &st);
                assert_int_not_equal(position_legal_move_from16(&g.pos, (Move16)r.ponder), MOVE_NONE);
                position_undo_move(&g.pos, best);
            }
            game_push(&g, list[next(&seed) % (uint64_t)n].move);
        }
        game_free(&g);
    }
    assert_true(checked > 2000);
}

static int info_lines, multipv_seen[4];
static char last_pv_move[4][8];
static void count_info(void *ctx, const SearchInfo *in) {
    (void)ctx;
    info_lines++;
    if (in->multipv >= 1 && in->multipv <= 3 && in->pv && in->pv_length > 0) {
        multipv_seen[in->multipv] = 1;
        move_to_usi(in->pv[0], last_pv_move[in->multipv]);
    }
}

static void test_multipv(void **state) {
    (void)state;
    SearchOptions opt;
    search_options_default(&opt);
    opt.multipv = 3;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = 6;
    Game g;
    game_init(&g);
    SearchReporter rep = {count_info, NULL, NULL, NULL};
    memset(multipv_seen, 0, sizeof multipv_seen);
    search_run(searcher, &g, &lim, &opt, &rep);
    assert_true(multipv_seen[1] && multipv_seen[2] && multipv_seen[3]);
    assert_string_not_equal(last_pv_move[1], last_pv_move[2]);
    assert_string_not_equal(last_pv_move[2], last_pv_move[3]);
    assert_string_not_equal(last_pv_move[1], last_pv_move[3]);
    game_free(&g);
}

/* One thread, cleared tables: the same search twice visits the same nodes. */
static void test_deterministic(void **state) {
    (void)state;
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = 8;
    Game g;
    load(&g, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1");
    search_clear(searcher);
    SearchResult a = search_run(searcher, &g, &lim, &opt, NULL);
    search_clear(searcher);
    SearchResult b = search_run(searcher, &g, &lim, &opt, NULL);
    assert_int_equal(a.nodes, b.nodes);
    assert_int_equal(a.best, b.best);
    assert_true(a.nodes > 1000);
    game_free(&g);
}

/* Two threads search together and still answer legally. */
static void test_threads(void **state) {
    (void)state;
    SearchOptions opt;
    search_options_default(&opt);
    opt.threads = 2;
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = 7;
    Game g;
    game_init(&g);
    SearchResult r = search_run(searcher, &g, &lim, &opt, NULL);
    assert_int_not_equal(position_legal_move_from16(&g.pos, (Move16)r.best), MOVE_NONE);
    game_free(&g);
}

/* A declaration wins at once; with the point rule off the search plays on. */
static void test_declaration_at_root(void **state) {
    (void)state;
    SearchOptions opt;
    search_options_default(&opt);
    SearchLimits lim;
    memset(&lim, 0, sizeof lim);
    lim.depth = 3;
    Game g;
    load(&g, "+P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1");
    SearchResult r = search_run(searcher, &g, &lim, &opt, NULL);
    assert_int_equal(r.best, MOVE_WIN);
    opt.entering_king_rule = EKR_NONE;
    r = search_run(searcher, &g, &lim, &opt, NULL);
    assert_int_not_equal(position_legal_move_from16(&g.pos, (Move16)r.best), MOVE_NONE);
    game_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finds_mates), cmocka_unit_test(test_bestmove_always_legal),
        cmocka_unit_test(test_multipv),     cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_threads),     cmocka_unit_test(test_declaration_at_root),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
