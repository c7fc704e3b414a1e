/* test_see.c - static exchange evaluation: see_ge (which finds the attackers once and the
 * x-rays by looking sliders up again) against the plain swap loop that recomputes every
 * attacker after each capture, by scanning each piece's own attack set; and against an
 * exchange searched in full (every attacker tried at every step, either side free to stop),
 * which assumes nothing about the order of captures. */
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

/* Which attacker a side gives up first, by see.c's documented rule: the least PIECE_VALUE,
 * except that a promoted pawn, lance or knight (540, but only a pawn, lance or knight in the
 * taker's hand) ranks just below the silver (495). */
static int give_up_rank(PieceType pt) {
    return pt == PRO_PAWN || pt == PRO_LANCE || pt == PRO_KNIGHT ? PIECE_VALUE[SILVER] - 1 : PIECE_VALUE[pt];
}

/* The most the side c can win by capturing on `to`, where a piece worth on_to stands, with
 * the pieces of occ, c also free to stop (0). With least_only, c captures with one of its
 * attackers of least PIECE_VALUE (every one of them tried, whatever its type and square);
 * otherwise with any attacker. The king may take only where nothing attacks it afterwards.
 * The squares' pieces are those of pos; `to` holds the last capturer. */
static int searched_exchange(const Position *pos, Color c, Square to, Bitboard occ, int on_to, bool least_only,
                             long *nodes) {
    (*nodes)++;
    int best = 0, least = INT32_MAX;
    Bitboard attackers = scanned_attackers(pos, c, to, occ) & ~bb_square(to);
    if (least_only)
        for (Bitboard a = attackers; a;) {
            int v = give_up_rank(piece_type(pos->board[bb_pop(&a)]));
            least = v < least ? v : least;
        }
    while (attackers) {
        Square from = bb_pop(&attackers);
        PieceType pt = piece_type(pos->board[from]);
        if (least_only && give_up_rank(pt) != least)
            continue;
        Bitboard after = occ ^ bb_square(from);
        int gain;
        if (pt == KING)
            gain = scanned_attackers(pos, color_flip(c), to, after) & ~bb_square(to) ? -1 : on_to;
        else
            gain = on_to - searched_exchange(pos, color_flip(c), to, after, PIECE_VALUE[pt], least_only, nodes);
        if (gain > best)
            best = gain;
    }
    return best;
}

/* What the move m wins by the searched exchange: its capture, less what the opponent then
 * wins on the square (the mover's piece stands on `to`). */
static int searched_see(const Position *pos, Move m, bool least_only, long *nodes) {
    Square to = move_to(m);
    Bitboard occ = position_occupied(pos) | bb_square(to);
    Color them = color_flip(pos->side);
    if (move_is_drop(m))
        return -searched_exchange(pos, them, to, occ, PIECE_VALUE[move_dropped_type(m)], least_only, nodes);
    Piece captured = pos->board[to];
    occ ^= bb_square(move_from(m));
    return (captured ? PIECE_VALUE[piece_type(captured)] : 0) -
           searched_exchange(pos, them, to, occ, PIECE_VALUE[piece_type(pos->board[move_from(m)])], least_only, nodes);
}

/* Every legal move of positions from random playouts that favour captures and drops (so
 * that pieces crowd and lines open), at thresholds around the piece values. */
typedef struct {
    long checked, true_count, deep;
} SwapCheck;

static void check_swap(Game *g, const ExtMove *list, int n, void *ctx) {
    static const int thresholds[] = {-2000, -700, -400, -90, -1, 0, 1, 89, 90, 91, 300, 405, 700, 1500};
    SwapCheck *c = ctx;
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        /* exchanges of three captures or more, where x-rays can matter */
        c->deep += !move_is_drop(m) && g->pos.board[move_to(m)] != NO_PIECE &&
                   bb_more_than_one(position_attackers_to_both(&g->pos, move_to(m), position_occupied(&g->pos)));
        for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
            bool want = reference_see_ge(&g->pos, m, thresholds[t]);
            if (see_ge(&g->pos, m, thresholds[t]) != want) {
                char sfen[SFEN_MAX], usi[16];
                fail_msg("see_ge(%s, %d) should be %d at %s", move_to_usi(m, usi), thresholds[t], want,
                         position_to_sfen(&g->pos, sfen, true));
            }
            c->checked++;
            c->true_count += want;
        }
    }
}

static void test_see_matches_recomputed_swap(void **state) {
    (void)state;
    SwapCheck c = {0};
    playout_visit(60, 160, 4711, PLAYOUT_TWO_DRAWS, check_swap, &c);
    assert_true(c.checked > 1000000);
    assert_true(c.true_count > c.checked / 10 && c.true_count < c.checked * 9 / 10);
    assert_true(c.deep > 10000);
}

/* Exchanges of three or more pieces on one square (captures, and drops onto contested
 * squares) from the same kind of playouts: see_ge agrees at the thresholds around the
 * outcome with the exchange searched over every least valuable attacker (by PIECE_VALUE, not
 * by see.c's order of types: a silver before a promoted minor), but for a few ties below.
 * The exchange searched over every attacker differs only where taking with a dearer piece
 * keeps an x-ray closed (white's dragon rather than a pawn that would uncover black's rook,
 * for one): rare, and counted. */
typedef struct {
    long checked, exchanges, nodes, lost, not_least, differing;
} ExchangeCheck;

static void check_exchange(Game *g, const ExtMove *list, int n, void *ctx) {
    ExchangeCheck *c = ctx;
    for (int i = 0; i < n; i++) {
        Move m = list[i].move;
        Square to = move_to(m);
        Bitboard around = position_attackers_to_both(&g->pos, to, position_occupied(&g->pos));
        bool contested = bb_more_than_one(around) && (move_is_drop(m) || g->pos.board[to] != NO_PIECE);
        if (!contested)
            continue;
        int v = searched_see(&g->pos, m, true, &c->nodes);
        c->exchanges++;
        c->lost += v < 0;
        c->not_least += searched_see(&g->pos, m, false, &c->nodes) != v;
        const int at[] = {v - 1, v, v + 1};
        bool differs = false;
        for (int k = 0; k < 3; k++, c->checked++)
            differs |= see_ge(&g->pos, m, at[k]) != (v >= at[k]);
        if (differs && ++c->differing <= 10) {
            char sfen[SFEN_MAX], usi[16];
            printf("  differs: %s at %s, searched %d\n", move_to_usi(m, usi), position_to_sfen(&g->pos, sfen, true), v);
        }
    }
}

static void test_see_matches_searched_exchange(void **state) {
    (void)state;
    ExchangeCheck c = {0};
    playout_visit(40, 160, 1234, PLAYOUT_TWO_DRAWS, check_exchange, &c);
    printf("searched exchanges: %ld (%ld losing, %ld where a dearer attacker does better), %ld nodes, %ld checks, "
           "see_ge differs in %ld\n",
           c.exchanges, c.lost, c.not_least, c.nodes, c.checked, c.differing);
    assert_true(c.exchanges > 5000);
    assert_true(c.lost > c.exchanges / 20);
    assert_true(c.not_least > 0 && c.not_least < c.exchanges / 50);
    /* see_ge takes the first attacker of the least valuable type; where two attackers of one
     * rank stand on different lines (two rooks, two horses), which one goes first decides
     * an x-ray, and the search tries both: 6 of 76 340 exchanges here, all with such a
     * pair (printed above). Ranking by PIECE_VALUE alone, silver before the promoted minors
     * (see.c's order for a while in stop 29), 21 differ with see.c's table. */
    assert_true(c.differing <= 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_see_matches_recomputed_swap),
        cmocka_unit_test(test_see_matches_searched_exchange),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
