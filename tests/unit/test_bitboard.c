/* test_bitboard.c - attack tables against a naive square-by-square walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "shogi/position.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Walks from sq in direction (df, dr) until the edge or the first occupied square. */
static Bitboard walk(Square sq, int df, int dr, Bitboard occ, bool slide) {
    Bitboard b = 0;
    int f = square_file(sq) + df, r = square_rank(sq) + dr;
    while (f >= 0 && f < 9 && r >= 0 && r < 9) {
        Square t = square_make(f, r);
        b |= (Bitboard)1 << t;
        if (!slide || ((occ >> t) & 1))
            break;
        f += df, r += dr;
    }
    return b;
}

static void test_sliders_match_naive_walk(void **state) {
    (void)state;
    shogi_init();
    for (int i = 0; i < 20000; i++) {
        Bitboard occ = ((Bitboard)(next_rand() & next_rand()) | ((Bitboard)next_rand() << 64)) & bitboard_tables.all;
        Square sq = (Square)(next_rand() % SQ_NB);
        Bitboard rook = walk(sq, 0, 1, occ, true) | walk(sq, 0, -1, occ, true) | walk(sq, 1, 0, occ, true) |
                        walk(sq, -1, 0, occ, true);
        Bitboard bishop = walk(sq, 1, 1, occ, true) | walk(sq, 1, -1, occ, true) | walk(sq, -1, 1, occ, true) |
                          walk(sq, -1, -1, occ, true);
        assert_true(bb_rook_attacks(sq, occ) == rook);
        assert_true(bb_rook_attacks_ray(sq, occ) == rook);
        assert_true(bb_bishop_attacks(sq, occ) == bishop);
        assert_true(bb_bishop_attacks_ray(sq, occ) == bishop);
        assert_true(bb_lance_attacks(BLACK, sq, occ) == walk(sq, 0, -1, occ, true));
        assert_true(bb_lance_attacks(WHITE, sq, occ) == walk(sq, 0, 1, occ, true));
    }
}

static void test_step_attacks(void **state) {
    (void)state;
    shogi_init();
    for (Square sq = 0; sq < SQ_NB; sq++) {
        /* Black moves toward rank a (dr = -1); white mirrors. */
        for (Color c = BLACK; c <= WHITE; c++) {
            int fw = c == BLACK ? -1 : 1;
            Bitboard gold = walk(sq, 0, fw, 0, false) | walk(sq, 1, fw, 0, false) | walk(sq, -1, fw, 0, false) |
                            walk(sq, 1, 0, 0, false) | walk(sq, -1, 0, 0, false) | walk(sq, 0, -fw, 0, false);
            Bitboard silver = walk(sq, 0, fw, 0, false) | walk(sq, 1, fw, 0, false) | walk(sq, -1, fw, 0, false) |
                              walk(sq, 1, -fw, 0, false) | walk(sq, -1, -fw, 0, false);
            Bitboard knight = 0;
            int f = square_file(sq), r = square_rank(sq) + 2 * fw;
            if (r >= 0 && r < 9) {
                if (f > 0)
                    knight |= bb_square(square_make(f - 1, r));
                if (f < 8)
                    knight |= bb_square(square_make(f + 1, r));
            }
            assert_true(bb_gold_attacks(c, sq) == gold);
            assert_true(bb_silver_attacks(c, sq) == silver);
            assert_true(bb_knight_attacks(c, sq) == knight);
            assert_true(bb_pawn_attacks(c, sq) == walk(sq, 0, fw, 0, false));
            assert_true(bitboard_tables.step[piece_make(c, PRO_SILVER)][sq] == gold);
        }
        assert_int_equal(bb_count(bb_king_attacks(sq)),
                         (square_file(sq) % 8 ? 3 : 2) * (square_rank(sq) % 8 ? 3 : 2) - 1);
    }
}

static void test_between_and_line(void **state) {
    (void)state;
    shogi_init();
    Square a = square_make(8, 8), b = square_make(0, 0); /* 9i and 1a: the long diagonal */
    assert_int_equal(bb_count(bb_between(a, b)), 7);
    assert_true(bb_aligned(a, b, square_make(4, 4)));
    assert_false(bb_aligned(a, b, square_make(4, 5)));
    assert_true(bb_between(square_make(0, 0), square_make(1, 2)) == 0); /* a knight's jump */
    char buf[100];
    bb_to_string(bb_between(square_make(4, 0), square_make(4, 8)), buf);
    assert_string_equal(buf, ".........\n....*....\n....*....\n....*....\n....*....\n....*....\n....*....\n....*....\n"
                             ".........\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliders_match_naive_walk),
        cmocka_unit_test(test_step_attacks),
        cmocka_unit_test(test_between_and_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
