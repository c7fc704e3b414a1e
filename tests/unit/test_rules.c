/* test_rules.c - repetition, perpetual check, entering-king declaration, the move limit
 * and mate in one, on hand-checked positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/rules.h"
#include "playout_pick.h"

static void load(Game *g, const char *usi_args) {
    char err[256];
    if (!game_set_from_usi(g, usi_args, err, sizeof err))
        fail_msg("position %s: %s", usi_args, err);
}

/* ../shared/refdata/usi/rsshogi/move_sequences.txt, `repetition_4fold`. */
static const char REPETITION_4FOLD[] =
    "startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 1g1f 9c9d 9g9f 1c1d 3i3h "
    "2b3c 3g3f 7a6b 2i3g 6c6d 4g4f 6b6c 6i7h 5a4b 5i6h 7c7d 3h4g 8a7c 4i4h 6a6b 2h2i 8b8a 4g5f 4b5b 6g6f "
    "5b4b 6h7i 4b5b 7i6h 5b4b 6h7i 4b5b 7i6h 5b4b 6h7i 4b5b 7i6h";

static void test_fourfold_repetition_is_a_draw(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    load(&g, REPETITION_4FOLD);
    assert_int_equal(position_sennichite(&g.pos), REPETITION_DRAW);
    assert_int_equal(position_game_state(&g.pos, 0), GAME_REPETITION);
    /* The search version sees the first repetition, four plies back. */
    int distance = 0;
    assert_int_equal(position_repetition(&g.pos, 32, &distance), REPETITION_DRAW);
    assert_int_equal(distance, 4);
    /* One ply earlier the position has occurred only three times. */
    game_pop(&g);
    assert_int_equal(position_sennichite(&g.pos), REPETITION_NONE);
    assert_int_equal(position_game_state(&g.pos, 0), GAME_ONGOING);
    game_free(&g);
}

/* Black's rook checks on every move; the fourth occurrence makes black the loser. */
static void test_perpetual_check_loses(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    load(&g, "sfen 8k/9/6R2/9/9/9/9/9/K8 b - 1 moves 3c3a 1a1b 3a3b 1b1a 3b3a 1a1b 3a3b 1b1a 3b3a 1a1b "
             "3a3b 1b1a 3b3a");
    /* White to move; black gave check all along: white wins. */
    assert_int_equal(position_sennichite(&g.pos), REPETITION_WIN);
    assert_int_equal(position_game_state(&g.pos, 0), GAME_PERPETUAL_WIN);
    assert_int_equal(position_repetition(&g.pos, 32, NULL), REPETITION_WIN);
    /* From black's side (after white's reply) the same cycle is a loss for the checker. */
    load(&g, "sfen 8k/9/6R2/9/9/9/9/9/K8 b - 1 moves 3c3a 1a1b 3a3b 1b1a 3b3a 1a1b 3a3b 1b1a 3b3a 1a1b "
             "3a3b 1b1a 3b3a 1a1b");
    assert_int_equal(position_sennichite(&g.pos), REPETITION_LOSE);
    assert_int_equal(position_game_state(&g.pos, 0), GAME_PERPETUAL_LOSS);
    game_free(&g);
}

/* A repeated board where the side to move has gained a piece is superior, not a draw. */
static void test_superior_repetition(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    /* Black's rook goes round and white's pawn is taken on the way, so the board
     * recurs with black a pawn richer. */
    load(&g, "sfen 4k4/9/9/9/9/9/9/9/R3K4 b P 1 moves 9i9h 5a4a 9h9i 4a5a");
    assert_int_equal(position_repetition(&g.pos, 32, NULL), REPETITION_DRAW);
    load(&g, "sfen 4k4/9/9/9/9/9/9/p8/R3K4 b - 1 moves 9i9h 5a4a 9h9i 4a5a");
    assert_int_equal(position_repetition(&g.pos, 32, NULL), REPETITION_NONE);
    load(&g, "sfen 4k4/9/9/p8/9/9/9/9/R3K4 b - 1 moves 9i9d 5a4a 9d9i 4a5a");
    /* The board differs (the pawn is gone), so nothing repeats at all. */
    assert_int_equal(position_repetition(&g.pos, 32, NULL), REPETITION_NONE);
    game_free(&g);
}

static void set(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

static void test_declaration_points(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    /* Black king on 5c, ten tokins in the camp (10 points), 2R2B in hand (20): 30. */
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1");
    assert_int_equal(entering_king_points(&pos, BLACK), 30);
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_WIN);
    assert_int_equal(position_declaration(&pos, EKR_24), MOVE_NONE); /* needs 31 */
    assert_int_equal(position_declaration(&pos, EKR_NONE), MOVE_NONE);
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2BP 1");
    assert_int_equal(position_declaration(&pos, EKR_24), MOVE_WIN);
    /* Nine pieces in the camp are not enough, whatever the points. */
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/8+P/4K4/9/9/9/9/9/4k4 b 2R2B3P 1");
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_NONE);
    /* In check: no declaration. */
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/7+P+P/4K4/4g4/9/9/9/9/4k4 b 2R2B 1");
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_NONE);
    /* King outside the camp. */
    set(&pos, &st, "+P+P+P+P1+P+P+P+P/7+P+P/9/4K4/9/9/9/9/4k4 b 2R2B 1");
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_NONE);
    /* White needs 27 under the 27-point rule: 10 tokins + 2R + B = 25, + G + 2P = 28. */
    set(&pos, &st, "4K4/9/9/9/9/9/4k4/2+p+p+p+p+p+p+p/+p+p+p6 w 2rbg2p 1");
    assert_int_equal(entering_king_points(&pos, WHITE), 28);
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_WIN);
    assert_int_equal(position_declaration(&pos, EKR_24), MOVE_NONE);
}

/* Targets for handicap games, as YaneuraOu's own unit test states them. */
static void test_declaration_handicap_targets(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    assert_int_equal(entering_king_target(&pos, EKR_27_H, BLACK), 28);
    assert_int_equal(entering_king_target(&pos, EKR_27_H, WHITE), 27);
    assert_int_equal(entering_king_target(&pos, EKR_24_H, WHITE), 31);
    set(&pos, &st, "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"); /* two-piece */
    assert_int_equal(entering_king_target(&pos, EKR_27, WHITE), 27);
    assert_int_equal(entering_king_target(&pos, EKR_27_H, BLACK), 28);
    assert_int_equal(entering_king_target(&pos, EKR_27_H, WHITE), 17);
    assert_int_equal(entering_king_target(&pos, EKR_24_H, BLACK), 31);
    assert_int_equal(entering_king_target(&pos, EKR_24_H, WHITE), 21);
    set(&pos, &st, "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"); /* four-piece */
    assert_int_equal(entering_king_target(&pos, EKR_27_H, WHITE), 15);
    assert_int_equal(entering_king_target(&pos, EKR_24_H, WHITE), 19);
}

static void test_try_rule(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    char buf[USI_MOVE_MAX];
    set(&pos, &st, "9/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_string_equal(move_to_usi(position_declaration(&pos, EKR_TRY), buf), "5b5a");
    /* A white gold on 4a guards the try square. */
    set(&pos, &st, "5g3/4K4/9/9/9/9/9/9/k8 b - 1");
    assert_int_equal(position_declaration(&pos, EKR_TRY), MOVE_NONE);
    /* White's try square is 5i. */
    set(&pos, &st, "K8/9/9/9/9/9/9/4k4/9 w - 1");
    assert_string_equal(move_to_usi(position_declaration(&pos, EKR_TRY), buf), "5h5i");
    set(&pos, &st, "K8/9/9/9/9/9/9/4k4/9 w - 1");
    assert_int_equal(position_declaration(&pos, EKR_27), MOVE_NONE);
}

static void test_rule_names(void **state) {
    (void)state;
    for (int r = 0; r < EKR_NB; r++) {
        EnteringKingRule back;
        assert_true(entering_king_rule_parse(entering_king_rule_name((EnteringKingRule)r), &back));
        assert_int_equal(back, r);
    }
    EnteringKingRule x;
    assert_false(entering_king_rule_parse("CSARule25", &x));
    assert_string_equal(entering_king_rule_name(EKR_27_H), "CSARule27H");
}

static void test_max_moves(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    load(&g, "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 256");
    assert_int_equal(position_game_state(&g.pos, 256), GAME_ONGOING);
    load(&g, "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 256 moves 7g7f");
    assert_int_equal(position_game_state(&g.pos, 256), GAME_MAX_MOVES);
    assert_int_equal(position_game_state(&g.pos, 0), GAME_ONGOING);
    game_free(&g);
}

/* The one verdict both search trees use, on the hand-checked positions above. */
static void test_tree_rule(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    load(&g, REPETITION_4FOLD);
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 0), TREE_RULE_REPETITION);
    /* Repetition comes before the move limit. */
    assert_int_equal(position_tree_rule(&g.pos, EKR_NONE, 10), TREE_RULE_REPETITION);
    load(&g, "sfen 8k/9/6R2/9/9/9/9/9/K8 b - 1 moves 3c3a 1a1b 3a3b 1b1a 3b3a");
    assert_int_equal(position_tree_rule(&g.pos, EKR_NONE, 0), TREE_RULE_PERPETUAL_WIN);
    load(&g, "sfen 8k/9/6R2/9/9/9/9/9/K8 b - 1 moves 3c3a 1a1b 3a3b 1b1a 3b3a 1a1b");
    assert_int_equal(position_tree_rule(&g.pos, EKR_NONE, 0), TREE_RULE_PERPETUAL_LOSS);
    /* 30 points: a declaration under the 27-point rule, not under the 24-point one. */
    load(&g, "sfen +P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1");
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 0), TREE_RULE_DECLARATION);
    assert_int_equal(position_tree_rule(&g.pos, EKR_24, 0), TREE_RULE_NONE);
    assert_int_equal(position_tree_rule(&g.pos, EKR_NONE, 0), TREE_RULE_NONE);
    /* Declaration before the move limit; the limit counts the plies played. */
    load(&g, "sfen +P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 300");
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 256), TREE_RULE_DECLARATION);
    load(&g, "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 256");
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 256), TREE_RULE_NONE);
    load(&g, "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 256 moves 7g7f");
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 256), TREE_RULE_MOVE_LIMIT);
    assert_int_equal(position_tree_rule(&g.pos, EKR_27, 0), TREE_RULE_NONE);
    game_free(&g);
}

static void test_mate_in_one(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    char buf[USI_MOVE_MAX];
    /* Gold drop on 5b, protected by the pawn. */
    set(&pos, &st, "4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    assert_string_equal(move_to_usi(position_mate_in_one(&pos), buf), "G*5b");
    assert_true(position_is_consistent(&pos));
    /* The only mating idea is a pawn drop, which the rules forbid (uchifuzume). */
    set(&pos, &st, "7nk/7p1/9/8L/9/9/9/9/4K4 b P 1");
    assert_int_equal(position_mate_in_one(&pos), MOVE_NONE);
    assert_int_equal(position_legal_move_from16(&pos, (Move16)(square_make(0, 1) | (PAWN << 7) | MOVE_DROP)),
                     MOVE_NONE);
    assert_true(position_pawn_drop_mates(&pos, square_make(0, 1)));
    /* Without the lance the king takes the pawn: the drop is a legal check. */
    set(&pos, &st, "7nk/7p1/9/9/9/9/9/9/4K4 b P 1");
    assert_false(position_pawn_drop_mates(&pos, square_make(0, 1)));
    assert_int_not_equal(position_legal_move_from16(&pos, (Move16)(square_make(0, 1) | (PAWN << 7) | MOVE_DROP)),
                         MOVE_NONE);
    /* Board moves that mate: the gold steps to 5b, or the pawn promotes there. */
    set(&pos, &st, "4k4/9/4PG3/9/9/9/9/9/4K4 b - 1");
    move_to_usi(position_mate_in_one(&pos), buf);
    assert_true(strcmp(buf, "4c5b") == 0 || strcmp(buf, "5c5b+") == 0);
    position_set_startpos(&pos, &st);
    assert_int_equal(position_mate_in_one(&pos), MOVE_NONE);
    /* Checkmated: no legal move. */
    set(&pos, &st, "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1");
    assert_int_equal(position_game_state(&pos, 0), GAME_MATED);
}

/* The fast mate-in-one must agree with brute force (every legal move played, the reply
 * count taken) on positions from random playouts that favour drops and captures. */
typedef struct {
    int positions, mates;
} MateCheck;

static void check_mate_in_one(Game *g, const ExtMove *list, int n, void *ctx) {
    MateCheck *c = ctx;
    Move brute = MOVE_NONE;
    for (int i = 0; i < n && !brute; i++) {
        StateInfo st;
        position_do_move(&g->pos, list[i].move, &st);
        if (!position_has_legal_move(&g->pos))
            brute = list[i].move;
        position_undo_move(&g->pos, list[i].move);
    }
    Move fast = position_mate_in_one(&g->pos);
    c->positions++;
    c->mates += brute != MOVE_NONE;
    if ((brute == MOVE_NONE) != (fast == MOVE_NONE)) {
        char sfen[SFEN_MAX];
        fail_msg("mate in one disagrees at %s", position_to_sfen(&g->pos, sfen, true));
    }
    if (fast) {
        StateInfo st;
        position_do_move(&g->pos, fast, &st);
        assert_false(position_has_legal_move(&g->pos));
        position_undo_move(&g->pos, fast);
    }
}

static void test_mate_in_one_matches_brute_force(void **state) {
    (void)state;
    MateCheck c = {0};
    playout_visit(60, 160, 12345, PLAYOUT_ONE_DRAW, check_mate_in_one, &c);
    assert_true(c.positions > 5000);
    assert_true(c.mates > 50); /* the sample must hold real mates to mean anything */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fourfold_repetition_is_a_draw),
        cmocka_unit_test(test_perpetual_check_loses),
        cmocka_unit_test(test_superior_repetition),
        cmocka_unit_test(test_declaration_points),
        cmocka_unit_test(test_declaration_handicap_targets),
        cmocka_unit_test(test_try_rule),
        cmocka_unit_test(test_rule_names),
        cmocka_unit_test(test_max_moves),
        cmocka_unit_test(test_tree_rule),
        cmocka_unit_test(test_mate_in_one),
        cmocka_unit_test(test_mate_in_one_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
