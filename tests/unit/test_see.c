/* test_see.c - static exchange evaluation: see_ge (which finds the attackers once and the
 * x-rays by looking sliders up again) against the plain swap loop that recomputes every
 * attacker after each capture, by scanning each piece's own attack set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eval/eval.h"
#include "search/see.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "playout_pick.h"

static int setup(void **state) {
    (void)state;
    shogi_init();
    return 0;
}

/* The pieces of colour c standing in occ whose attack sets (through occ) hold sq. */
static Bitboard scanned_attackers(const Position *pos, Color c, Square sq, Bitboard occ) {
    Bitboard found = 0, pieces = pos->by_color[c] & occ;
    while (pieces) {
        Square from = bb_pop(&pieces);
        if (bb_test(bb_piece_attacks(pos->board[from], from, occ), sq))
            found |= bb_square(from);
    }
    return found;
}

/* The swap loop, least valuable attacker first, attackers recomputed at every step. */
static bool reference_see_ge(const Position *pos, Move m, int threshold) {
    static const PieceType order[] = {PAWN,       LANCE, KNIGHT, PRO_PAWN, PRO_LANCE, PRO_KNIGHT, SILVER,
                                      PRO_SILVER, GOLD,  BISHOP, HORSE,    ROOK,      DRAGON,     KING};
    Square to = move_to(m);
    Color stm = pos->side;
    Bitboard occ = position_occupied(pos);
    int swap;
    if (move_is_drop(m)) {
        if (-threshold < 0)
            return false;
        swap = PIECE_VALUE[move_dropped_type(m)] + threshold;
    } else {
        Piece captured = pos->board[to];
        swap = (captured ? PIECE_VALUE[piece_type(captured)] : 0) - threshold;
        if (swap < 0)
            return false;
        swap = PIECE_VALUE[piece_type(pos->board[move_from(m)])] - swap;
        occ ^= bb_square(move_from(m));
    }
    if (swap <= 0)
        return true;
    occ |= bb_square(to);
    int res = 1;
    for (;;) {
        stm = color_flip(stm);
        Bitboard attackers = scanned_attackers(pos, stm, to, occ);
        if (!attackers)
            break;
        res ^= 1;
        PieceType pt = KING;
        Bitboard bb = 0;
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            bb = attackers & pos->by_type[order[i]];
            if (bb) {
                pt = order[i];
                break;
            }
        }
        if (pt == KING)
            return scanned_attackers(pos, color_flip(stm), to, occ) ? res ^ 1 : res;
        if ((swap = PIECE_VALUE[pt] - swap) < res)
            break;
        occ ^= bb_square(bb_lsb(bb));
    }
    return res != 0;
}

static uint64_t next_rand(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Every legal move of positions from random playouts that favour captures and drops (so
 * that pieces crowd and lines open), at thresholds around the piece values. */
static void test_see_matches_recomputed_swap(void **state) {
    (void)state;
    static const int thresholds[] = {-2000, -700, -400, -90, -1, 0, 1, 89, 90, 91, 300, 405, 700, 1500};
    uint64_t rng = 4711;
    long checked = 0, true_count = 0, deep = 0;
    for (int game = 0; game < 60; game++) {
        Game g;
        game_init(&g);
        for (int ply = 0; ply < 160; ply++) {
            ExtMove list[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, list);
            if (n == 0)
                break;
            for (int i = 0; i < n; i++) {
                Move m = list[i].move;
                /* exchanges of three captures or more, where x-rays can matter */
                deep += !move_is_drop(m) && g.pos.board[move_to(m)] != NO_PIECE &&
                        bb_more_than_one(position_attackers_to_both(&g.pos, move_to(m), position_occupied(&g.pos)));
                for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
                    bool want = reference_see_ge(&g.pos, m, thresholds[t]);
                    if (see_ge(&g.pos, m, thresholds[t]) != want) {
                        char sfen[SFEN_MAX], usi[16];
                        fail_msg("see_ge(%s, %d) should be %d at %s", move_to_usi(m, usi), thresholds[t], want,
                                 position_to_sfen(&g.pos, sfen, true));
                    }
                    checked++;
                    true_count += want;
                }
            }
            uint64_t r = next_rand(&rng);
            game_push(&g, list[playout_pick(&g.pos, list, n, r, next_rand(&rng))].move);
        }
        game_free(&g);
    }
    assert_true(checked > 1000000);
    assert_true(true_count > checked / 10 && true_count < checked * 9 / 10);
    assert_true(deep > 10000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_see_matches_recomputed_swap),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
