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

/* The king_zone index of one square next to a king: king region, zone square
 * (dx + 1) * 3 + dy + 1, attackers, defenders, occupant (0 none, 1 ours, 2 theirs). */
static int zone_index(int region, int zone_sq, int att, int def, int occ) {
    return FIELD_INDEX(king_zone) + (((region * ZONE_SQ + zone_sq) * ZONE_COUNT + att) * ZONE_COUNT + def) * ZONE_OCC +
           occ;
}

/* The index of a king-zone entry within one phase's block of phase_zone. */
static int phase_zone_index(int phase, int zone_sq, int att, int def, int occ) {
    return FIELD_INDEX(phase_zone[phase]) + ((zone_sq * ZONE_COUNT + att) * ZONE_COUNT + def) * ZONE_OCC + occ;
}

/* Two kings on 5i and 5a and a gold in black's hand. Seen from its owner's side each king
 * stands on rank 8 (home), 4 files from the edge: the same pst entry, +1 and -1. The gold
 * in hand is hand[GOLD][1], and black has the move (tempo +1). Each king has five empty,
 * unattacked zone squares (region 6, centre file: 5h is square 3, 4h and 6h square 6,
 * 4i and 6i square 7), the same for both colours. The gold makes the progress 1, phase 1:
 * phase_hand[1][GOLD][1], and the ten zone squares again in phase_zone[1]. White's king
 * has no weak zone square: hand_attack[GOLD][0][0] for white (-1). Nothing else. */
static void test_features_by_hand(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    load(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b G 1");
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = classic_features(&pos, f);
    assert_int_equal(n, 26);
    int king_pst = FIELD_INDEX(pst[KING]) + 8 * PST_FILES + 4;
    int sum_king = 0, gold = 0, tempo = 0, zone[3] = {0, 0, 0}, zone_sum = 0, phase_gold = 0, hand_attack = 0;
    int phase_zone[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        int x = f[i].index;
        int pz = x == phase_zone_index(1, 3, 0, 0, 0)   ? 0
                 : x == phase_zone_index(1, 6, 0, 0, 0) ? 1
                 : x == phase_zone_index(1, 7, 0, 0, 0) ? 2
                                                        : -1;
        if (pz >= 0) {
            phase_zone[pz] += f[i].coef == 1; /* black's; white's cancel them in the sum */
            zone_sum += f[i].coef;
        } else if (x == FIELD_INDEX(phase_hand[1][GOLD]) + 1 && f[i].coef == 1)
            phase_gold++;
        else if (x == FIELD_INDEX(hand_attack[GOLD][0]) + 0 && f[i].coef == -1)
            hand_attack++;
        else if (f[i].index == king_pst)
            sum_king += f[i].coef;
        else if (f[i].index == zone_index(6, 3, 0, 0, 0) || f[i].index == zone_index(6, 6, 0, 0, 0) ||
                 f[i].index == zone_index(6, 7, 0, 0, 0)) {
            zone_sum += f[i].coef;
            if (f[i].coef == 1)
                zone[f[i].index == zone_index(6, 3, 0, 0, 0) ? 0 : f[i].index == zone_index(6, 6, 0, 0, 0) ? 1 : 2]++;
        } else if (f[i].index == FIELD_INDEX(hand[GOLD]) + 1 && f[i].coef == 1)
            gold++;
        else if (f[i].index == FIELD_INDEX(tempo) && f[i].coef == 1)
            tempo++;
        else
            fail_msg("unexpected feature %d (coef %d)", f[i].index, f[i].coef);
    }
    assert_int_equal(sum_king, 0);
    assert_int_equal(gold, 1);
    assert_int_equal(tempo, 1);
    assert_int_equal(zone_sum, 0);
    assert_int_equal(zone[0], 1);
    assert_int_equal(zone[1], 2);
    assert_int_equal(zone[2], 2);
    assert_int_equal(phase_zone[0], 1);
    assert_int_equal(phase_zone[1], 2);
    assert_int_equal(phase_zone[2], 2);
    assert_int_equal(phase_gold, 1);
    assert_int_equal(hand_attack, 1);

    /* A black rook on 5e, 4 ranks in front of its king: own_king offset (0, -4),
     * enemy_king offset (0, +4), pst rank 4 file 4, the exact-square tables with the
     * kings on (file 4, rank 8) and (file 4, rank 0); mobility: 4 squares up to and
     * including 5a (the white king), 3 down to 5h, 4 + 4 sideways = 15. */
    load(&pos, &st, "4k4/9/9/9/4R4/9/9/9/4K4 w - 1");
    n = classic_features(&pos, f);
    bool own = false, enemy = false, mob = false, pst = false, board = false, own_kp = false, enemy_kp = false;
    int phase_own = 0, phase_enemy = 0, phase_board = 0;
    const int kp_stride = PIECE_TYPE_NB * SQ_NB; /* the rook on (file 4, rank 4): 4 * 9 + 4 */
    for (int i = 0; i < n; i++) {
        int x = f[i].index;
        own_kp |= x == FIELD_INDEX(own_kp) + (4 * 9 + 8) * kp_stride + ROOK * SQ_NB + 4 * 9 + 4;
        enemy_kp |= x == FIELD_INDEX(enemy_kp) + (4 * 9 + 0) * kp_stride + ROOK * SQ_NB + 4 * 9 + 4;
        own |= x == FIELD_INDEX(own_king[ROOK]) + 0 * KREL_DY + (8 - 4);
        enemy |= x == FIELD_INDEX(enemy_king[ROOK]) + 0 * KREL_DY + (8 + 4);
        mob |= x == FIELD_INDEX(mobility[ROOK]) + 15;
        pst |= x == FIELD_INDEX(pst[ROOK]) + 4 * PST_FILES + 4;
        board |= x == FIELD_INDEX(board[ROOK]);
        phase_own += x == FIELD_INDEX(phase_own_king[0][ROOK]) + 0 * KREL_DY + (8 - 4);
        phase_enemy += x == FIELD_INDEX(phase_enemy_king[0][ROOK]) + 0 * KREL_DY + (8 + 4);
        phase_board += x == FIELD_INDEX(phase_board[0][ROOK]);
    }
    assert_true(own && enemy && mob && pst && board && own_kp && enemy_kp);
    /* Nothing in hand or in an enemy camp: phase 0. */
    assert_int_equal(phase_own, 1);
    assert_int_equal(phase_enemy, 1);
    assert_int_equal(phase_board, 1);
    assert_int_equal(n, 2 + 12 + 1 + 20); /* kings, rook, tempo, two king zones (twice) */
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

/* Counts the features of f[0..n) with this index and coefficient. */
static int count_feature(const ClassicFeature *f, int n, int index, int coef) {
    int k = 0;
    for (int i = 0; i < n; i++)
        k += f[i].index == index && f[i].coef == coef;
    return k;
}

/* The king-zone features with attacks. A white rook on 5h gives check to black's king on
 * 5i. Black's zone: 5h holds the rook (square 3, no attacker, no defender but the king,
 * which is not counted, an enemy piece); the rook attacks 4h and 6h (square 6, one
 * attacker each); 4i and 6i are quiet (square 7). White's zone: the rook defends 5b
 * (square 3, one defender) along the file; 4b, 6b, 4a, 6a are quiet. */
static void test_king_zone_features(void **state) {
    (void)state;
    Position pos;
    StateInfo st;
    load(&pos, &st, "4k4/9/9/9/9/9/9/4r4/4K4 b - 1");
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = classic_features(&pos, f);
    assert_int_equal(count_feature(f, n, zone_index(6, 3, 0, 0, 2), 1), 1);
    assert_int_equal(count_feature(f, n, zone_index(6, 6, 1, 0, 0), 1), 2);
    assert_int_equal(count_feature(f, n, zone_index(6, 7, 0, 0, 0), 1), 2);
    assert_int_equal(count_feature(f, n, zone_index(6, 3, 0, 1, 0), -1), 1);
    assert_int_equal(count_feature(f, n, zone_index(6, 6, 0, 0, 0), -1), 2);
    assert_int_equal(count_feature(f, n, zone_index(6, 7, 0, 0, 0), -1), 2);
    int zone_features = 0, phase_zone_features = 0;
    for (int i = 0; i < n; i++) {
        zone_features += f[i].index >= FIELD_INDEX(king_zone) && f[i].index < FIELD_INDEX(hand_attack);
        phase_zone_features += f[i].index >= FIELD_INDEX(phase_zone) && f[i].index < FIELD_INDEX(phase_own_king);
    }
    assert_int_equal(zone_features, 10);
    /* The rook stands in black's camp: progress 1, phase 1, the same ten entries there. */
    assert_int_equal(phase_zone_features, 10);
    assert_int_equal(count_feature(f, n, phase_zone_index(1, 6, 1, 0, 0), 1), 2);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(phase_board[1][ROOK]), -1), 1);

    /* With a gold in white's hand, the gold threatens black's king by its two weak squares
     * (4h and 6h: one attacker, no defender): hand_attack[GOLD][0][2] for black (+1). */
    load(&pos, &st, "4k4/9/9/9/9/9/9/4r4/4K4 b g 1");
    n = classic_features(&pos, f);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(hand_attack[GOLD][0]) + 2, 1), 1);
    /* Two rooks and two bishops in hand: progress 8, phase 3 (pieces in hand count the same
     * for either side; a rook or bishop twice). Two rooks and a gold: 5, phase 2. */
    load(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b 2R2B 1");
    n = classic_features(&pos, f);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(phase_hand[3][ROOK]) + 2, 1), 1);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(hand_attack[ROOK][1]) + 0, -1), 1);
    load(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b 2Rg 1");
    n = classic_features(&pos, f);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(phase_hand[2][ROOK]) + 2, 1), 1);
    assert_int_equal(count_feature(f, n, FIELD_INDEX(phase_hand[2][GOLD]) + 1, -1), 1);

    /* A king on 9i (edge file, home rank: region 0) has three zone squares; 8i is one
     * file towards the centre (dx +1, dy 0: square 7), 9h is square 3, 8h square 6. A
     * black gold on 8h stands on square 6 (ours). */
    load(&pos, &st, "4k4/9/9/9/9/9/9/1G7/K8 b - 1");
    n = classic_features(&pos, f);
    assert_int_equal(count_feature(f, n, zone_index(0, 6, 0, 0, 1), 1), 1);
    assert_int_equal(count_feature(f, n, zone_index(0, 3, 0, 1, 0), 1), 1);
    assert_int_equal(count_feature(f, n, zone_index(0, 7, 0, 1, 0), 1), 1);
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

/* The engine's evaluation (folded per-piece tables) equals the feature sum that the tuner
 * fits, term for term, under the installed weights. */
static void check_fast_path(const Position *pos, void *ctx) {
    (void)ctx;
    char sfen[SFEN_MAX];
    if (eval_classic.evaluate(pos) != classic_evaluate_with(&classic_default_weights, pos))
        fail_msg("fast %d, features %d: %s", eval_classic.evaluate(pos),
                 classic_evaluate_with(&classic_default_weights, pos), position_to_sfen(pos, sfen, false));
}

static void test_fast_path_matches_features(void **state) {
    (void)state;
    assert_true(walk_random_games(4242, 40, 200, check_fast_path, NULL) > 2000);
    /* Kings far from home, promoted pieces, full hands, and a tsume position without
     * black's king (the general path). */
    const char *sfens[] = {
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 122",
        "9/9/9/9/4K4/9/9/9/4k4 w RB2G 1",
        "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1",
    };
    for (size_t i = 0; i < sizeof sfens / sizeof sfens[0]; i++) {
        Position pos;
        StateInfo st;
        char err[128];
        if (!position_from_sfen_ex(&pos, &st, sfens[i], SFEN_ALLOW_MISSING_KING, err, sizeof err))
            fail_msg("%s: %s", sfens[i], err);
        check_fast_path(&pos, NULL);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startpos_is_tempo),          cmocka_unit_test(test_features_by_hand),
        cmocka_unit_test(test_king_region_features),       cmocka_unit_test(test_symmetries),
        cmocka_unit_test(test_attackers_to_both),          cmocka_unit_test(test_king_zone_features),
        cmocka_unit_test(test_fast_path_matches_features),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
