/* test_classic.c - the embedded evaluation: its feature list worked by hand, and the
 * symmetries it must have (colour flip, left-right mirror) on random positions. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval/classic.h"
#include "shogi/game.h"
#include "shogi/movegen.h"

#define FIELD_INDEX(field) ((int)(offsetof(ClassicWeights, field) / sizeof(int)))

static int setup(void **state) {
    (void)state;
    shogi_init();
    return 0;
}

static void load(Position *pos, StateInfo *st, const char *sfen) {
    char err[128];
    if (!position_from_sfen(pos, st, sfen, err, sizeof err))
        fail_msg("%s: %s", sfen, err);
}

/* The standard position is symmetric: every feature of black's has a twin of white's,
 * so only the tempo is left, for whichever side is to move. */
static void test_startpos_is_tempo(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    assert_int_equal(eval_classic.evaluate(&pos), classic_default_weights.tempo);
    load(&pos, &st, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    assert_int_equal(eval_classic.evaluate(&pos), classic_default_weights.tempo);
}

/* Two kings on 5i and 5a and a gold in black's hand. Seen from its owner's side each king
 * stands on rank 8 (home), 4 files from the edge: the same pst entry, +1 and -1. The gold
 * in hand is hand[GOLD][1], and black has the move (tempo +1). Nothing else. */
static void test_features_by_hand(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    load(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b G 1");
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = classic_features(&pos, f);
    assert_int_equal(n, 4);
    int king_pst = FIELD_INDEX(pst[KING]) + 8 * PST_FILES + 4;
    int sum_king = 0, gold = 0, tempo = 0;
    for (int i = 0; i < n; i++) {
        if (f[i].index == king_pst)
            sum_king += f[i].coef;
        else if (f[i].index == FIELD_INDEX(hand[GOLD]) + 1 && f[i].coef == 1)
            gold++;
        else if (f[i].index == FIELD_INDEX(tempo) && f[i].coef == 1)
            tempo++;
        else
            fail_msg("unexpected feature %d (coef %d)", f[i].index, f[i].coef);
    }
    assert_int_equal(sum_king, 0);
    assert_int_equal(gold, 1);
    assert_int_equal(tempo, 1);

    /* A black rook on 5e, 4 ranks in front of its king: own_king offset (0, -4),
     * enemy_king offset (0, +4), pst rank 4 file 4; mobility: 4 squares up to and
     * including 5a (the white king), 3 down to 5h, 4 + 4 sideways = 15. */
    load(&pos, &st, "4k4/9/9/9/4R4/9/9/9/4K4 w - 1");
    n = classic_features(&pos, f);
    bool own = false, enemy = false, mob = false, pst = false, board = false;
    for (int i = 0; i < n; i++) {
        int x = f[i].index;
        own |= x == FIELD_INDEX(own_king[ROOK]) + 0 * KREL_DY + (8 - 4);
        enemy |= x == FIELD_INDEX(enemy_king[ROOK]) + 0 * KREL_DY + (8 + 4);
        mob |= x == FIELD_INDEX(mobility[ROOK]) + 15;
        pst |= x == FIELD_INDEX(pst[ROOK]) + 4 * PST_FILES + 4;
        board |= x == FIELD_INDEX(board[ROOK]);
    }
    assert_true(own && enemy && mob && pst && board);
    assert_int_equal(n, 2 + 7 + 1);
}

/* The king-region tables. Black's king on 8h: 1 file from the edge (region column 0),
 * one rank above home (row 1), region 1. Its gold on 7h is one file towards the centre:
 * signed dx +1, dy 0. White's king on 5a, seen from black, is on the centre file (column
 * 2) at its own home rank (row 0), region 6; the gold is 2 files and 7 ranks from it. */
static void test_king_region_features(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    load(&pos, &st, "4k4/9/9/9/9/9/9/1KG6/9 b - 1");
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = classic_features(&pos, f);
    const int piece_stride = KREG_DX * KREL_DY, region_stride = PIECE_TYPE_NB * piece_stride;
    int own = FIELD_INDEX(own_king_region) + 1 * region_stride + GOLD * piece_stride + (8 + 1) * KREL_DY + 8;
    int enemy = FIELD_INDEX(enemy_king_region) + 6 * region_stride + GOLD * piece_stride + (8 + 2) * KREL_DY + 8 + 7;
    int found_own = 0, found_enemy = 0;
    for (int i = 0; i < n; i++) {
        found_own += f[i].index == own && f[i].coef == 1;
        found_enemy += f[i].index == enemy && f[i].coef == 1;
    }
    assert_int_equal(found_own, 1);
    assert_int_equal(found_enemy, 1);

    /* Mirrored (king 2h, gold 3h) the gold is still one file towards the centre. */
    load(&pos, &st, "4k4/9/9/9/9/9/9/6GK1/9 b - 1");
    n = classic_features(&pos, f);
    found_own = 0;
    for (int i = 0; i < n; i++)
        found_own += f[i].index == own && f[i].coef == 1;
    assert_int_equal(found_own, 1);
}

/* Board rows of an SFEN as 81 cell strings ("P", "+r", ""), rank a first, file 9 first. */
static void split_board(const char *board, char cells[81][3]) {
    int i = 0;
    for (const char *p = board; *p && *p != ' ' && i < 81; p++) {
        if (*p == '/')
            continue;
        if (isdigit((unsigned char)*p)) {
            for (int k = 0; k < *p - '0'; k++)
                cells[i++][0] = '\0';
        } else if (*p == '+') {
            cells[i][0] = '+';
            cells[i][1] = p[1];
            cells[i++][2] = '\0';
            p++;
        } else {
            cells[i][0] = *p;
            cells[i++][1] = '\0';
        }
    }
}

static void join_board(char cells[81][3], char *out) {
    for (int r = 0; r < 9; r++) {
        int empty = 0;
        for (int c = 0; c < 9; c++) {
            const char *cell = cells[r * 9 + c];
            if (!cell[0]) {
                empty++;
                continue;
            }
            if (empty)
                *out++ = (char)('0' + empty);
            empty = 0;
            out += sprintf(out, "%s", cell);
        }
        if (empty)
            *out++ = (char)('0' + empty);
        if (r < 8)
            *out++ = '/';
    }
    *out = '\0';
}

static char swap_case(char ch) { return isupper((unsigned char)ch) ? (char)tolower(ch) : (char)toupper(ch); }

/* The same game with colours exchanged (board rotated 180 degrees) or left-right mirrored. */
static void transform_sfen(const char *sfen, bool flip_colours, char *out, size_t out_len) {
    char cells[81][3], moved[81][3];
    split_board(sfen, cells);
    for (int i = 0; i < 81; i++) {
        int r = i / 9, c = i % 9;
        int src = flip_colours ? (8 - r) * 9 + (8 - c) : r * 9 + (8 - c);
        strcpy(moved[i], cells[src]);
        if (flip_colours)
            for (char *p = moved[i]; *p; p++)
                if (*p != '+')
                    *p = swap_case(*p);
    }
    char board[128], side, hands[64];
    join_board(moved, board);
    if (sscanf(sfen, "%*s %c %63s", &side, hands) != 2)
        fail_msg("bad sfen %s", sfen);
    if (flip_colours) {
        side = side == 'b' ? 'w' : 'b';
        for (char *p = hands; *p; p++)
            if (isalpha((unsigned char)*p))
                *p = swap_case(*p);
    }
    if (snprintf(out, out_len, "%s %c %s 1", board, side, hands) >= (int)out_len)
        fail_msg("sfen too long");
}

static uint64_t next_rand(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Calls visit on every position of `games` random games of at most `plies` moves
 * (the last position of each included) and returns how many it visited. */
static int walk_random_games(uint64_t seed, int games, int plies, void (*visit)(const Position *, void *), void *ctx) {
    uint64_t rng = seed;
    int visited = 0;
    for (int game = 0; game < games; game++) {
        Game g;
        game_init(&g);
        for (int ply = 0; ply <= plies; ply++) {
            visit(&g.pos, ctx);
            visited++;
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            if (ply == plies || n == 0 || !game_push(&g, list[next_rand(&rng) % (uint64_t)n].move))
                break;
        }
        game_free(&g);
    }
    return visited;
}

/* The evaluation (side to move's view) equals that of the colour-flipped and of the
 * mirrored position: the features are relative to each side. */
static void check_symmetries(const Position *pos, void *ctx) {
    (void)ctx;
    char sfen[SFEN_MAX], other[SFEN_MAX];
    position_to_sfen(pos, sfen, false);
    Value v = eval_classic.evaluate(pos);
    for (int t = 0; t < 2; t++) {
        transform_sfen(sfen, t == 0, other, sizeof other);
        Position p2;
        StateInfo st2;
        load(&p2, &st2, other);
        if (eval_classic.evaluate(&p2) != v)
            fail_msg("%s: %d, but %d for %s", sfen, v, eval_classic.evaluate(&p2), other);
    }
}

static void test_symmetries(void **state) {
    (void)state;
    assert_true(walk_random_games(12345, 40, 120, check_symmetries, NULL) > 1000);
}

/* The king-safety term counts attackers with position_attackers_to_both: it must equal,
 * square by square, the pieces whose own attack sets hold the square. */
static void check_attackers_to_both(const Position *pos, void *ctx) {
    (void)ctx;
    Bitboard occ = position_occupied(pos);
    for (Square sq = 0; sq < SQ_NB; sq++) {
        Bitboard expect = 0, pieces = occ;
        while (pieces) {
            Square from = bb_pop(&pieces);
            if (bb_test(bb_piece_attacks(pos->board[from], from, occ), sq))
                expect |= bb_square(from);
        }
        char sfen[SFEN_MAX];
        if (position_attackers_to_both(pos, sq, occ) != expect)
            fail_msg("square %d of %s", sq, position_to_sfen(pos, sfen, false));
    }
}

static void test_attackers_to_both(void **state) {
    (void)state;
    assert_true(walk_random_games(777, 20, 150, check_attackers_to_both, NULL) * SQ_NB > 100000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startpos_is_tempo),    cmocka_unit_test(test_features_by_hand),
        cmocka_unit_test(test_king_region_features), cmocka_unit_test(test_symmetries),
        cmocka_unit_test(test_attackers_to_both),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
