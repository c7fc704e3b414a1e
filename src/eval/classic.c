/* classic.c - the embedded evaluation: needs no file.
 *
 * Terms (all from black's point of view, negated for white at the end):
 *  - material on the board, promoted pieces included, and pieces in hand (worth a little
 *    more than on the board: a hand piece can go anywhere);
 *  - placement: every piece but the king scores by its Chebyshev distance to the enemy
 *    king (attack) and to its own king (defence), with weights per piece type;
 *  - king safety from attack maps, as strong material engines do: each square next to
 *    a king counts the enemy pieces attacking it against our defenders, the enemy's
 *    hand pieces add to the danger (they can be dropped there), and the penalty grows
 *    with the square of the danger.
 * The weights live in one table (ClassicWeights) so tools/tune can fit them; see
 * docs/eval.md for the procedure.
 */
#include <stdio.h>
#include <string.h>

#include "eval/classic.h"

const int PIECE_VALUE[PIECE_TYPE_NB] = {0, 90, 315, 405, 495, 855, 990, 540, 15000, 540, 540, 540, 540, 945, 1395};
/* Capturing a promoted piece returns its unpromoted type to our hand. */
const int CAPTURE_VALUE[PIECE_TYPE_NB] = {0,     180, 630, 810, 990,  1710, 1980, 1080,
                                          30000, 630, 855, 945, 1035, 1800, 2385};

const ClassicWeights classic_default_weights =
    {
        .board = {0, 157, 285, 394, 435, 731, 866, 565, 0, 541, 518, 568, 416, 1069, 1489},
        .hand = {0, 92, 273, 389, 625, 858, 1234, 734, 0, 0, 0, 0, 0, 0, 0},
        .attack =
            {
                [PAWN] = {0, -104, 65, 130, 67, -17, -18, -49, 124},
                [LANCE] = {0, -104, -109, 83, 129, -120, -124, 50, -47},
                [KNIGHT] = {0, -99, 16, 61, 129, -12, -44, -124, -17},
                [SILVER] = {0, -32, 153, 21, -11, 82, 52, 52, -100},
                [BISHOP] = {0, -84, 138, 50, 118, 120, 97, -118, -124},
                [ROOK] = {0, -74, 164, 154, 32, -55, -30, -124, -124},
                [GOLD] = {0, -64, 154, 149, -6, -35, -4, -38, -84},
                [PRO_PAWN] = {0, 194, 174, 154, -114, -124, -124, 124, -124},
                [PRO_LANCE] = {0, 130, 174, -94, -114, -124, 124, 124, -124},
                [PRO_KNIGHT] = {0, 194, 174, 154, -114, -124, -124, 28, -124},
                [PRO_SILVER] = {0, -54, 174, -94, 134, 44, 124, -124, -124},
                [HORSE] = {0, 80, 139, 164, 144, 14, -124, -124, -124},
                [DRAGON] = {0, 100, -3, 54, 66, -114, 124, 124, 106},
            },
        .defend =
            {
                [PAWN] = {0, 124, 13, -33, -62, -76, -124, -60, -92},
                [LANCE] = {0, 129, 129, 39, -63, -34, -124, 124, 124},
                [KNIGHT] = {0, 55, 134, 24, -79, -124, -60, -124, -124},
                [SILVER] = {0, 89, 85, 38, 110, 38, -144, -149, -82},
                [BISHOP] = {0, 68, -15, -30, -124, 124, 124, 36, -124},
                [ROOK] = {0, -124, -107, -124, -35, -12, -81, 124, 124},
                [GOLD] = {0, -16, 10, -67, -124, 114, 104, -154, -164},
                [PRO_PAWN] = {0, -124, 124, 124, -51, 124, 95, -52, -124},
                [PRO_LANCE] = {0, 124, 124, 124, -124, 36, 124, -114, -124},
                [PRO_KNIGHT] = {0, 96, 124, 124, -124, 124, -20, -124, -97},
                [PRO_SILVER] = {0, 144, -109, 129, 124, 124, -124, -36, -124},
                [HORSE] = {0, 164, -88, 125, 81, 124, 60, -44, -76},
                [DRAGON] = {0, -124, -124, 124, -124, -124, 124, 79, 124},
            },
        .king_rank = {-94, 96, 124, 104, -12, 74, 84, 104, 124},
        .danger_attack = 6,
        .danger_defence = 5,
        .danger_hand = 3,
        .danger_scale = 46,
};

static const Evaluator *current = &eval_classic;
const Evaluator *eval_current(void) { return current; }
void eval_select(const Evaluator *e) { current = e ? e : &eval_classic; }

static int distance(Square a, Square b) {
    int df = square_file(a) - square_file(b), dr = square_rank(a) - square_rank(b);
    df = df < 0 ? -df : df;
    dr = dr < 0 ? -dr : dr;
    int d = df > dr ? df : dr;
    return d > 8 ? 8 : d; /* a missing king (SQ_NONE) is far from everything */
}

/* How many pieces of colour c attack sq (with the full occupancy). */
static int attack_count(const Position *pos, Color c, Square sq) {
    return bb_count(position_attackers_to(pos, c, sq, position_occupied(pos)));
}

/* The king-safety penalty for colour c's king. */
static int king_danger(const ClassicWeights *w, const Position *pos, Color c) {
    Color them = color_flip(c);
    Square ksq = pos->king_sq[c];
    Bitboard zone = bb_king_attacks(ksq);
    int danger = 0;
    Bitboard own_king = bb_square(ksq);
    while (zone) {
        Square s = bb_pop(&zone);
        int att = attack_count(pos, them, s);
        if (!att)
            continue;
        int def = bb_count(position_attackers_to(pos, c, s, position_occupied(pos)) & ~own_king);
        int d = att * w->danger_attack - def * w->danger_defence;
        if (bb_test(pos->by_color[them], s))
            d += w->danger_attack; /* an enemy piece already standing next to the king */
        if (d > 0)
            danger += d;
    }
    Hand h = pos->hand[them];
    int hand_pieces = hand_count(h, LANCE) + hand_count(h, KNIGHT) + hand_count(h, SILVER) + hand_count(h, GOLD) +
                      2 * (hand_count(h, BISHOP) + hand_count(h, ROOK));
    danger += hand_pieces * w->danger_hand;
    return danger * danger * w->danger_scale / 64;
}

typedef struct {
    int material, hand, placement, king, danger;
} Terms;

static void classic_terms(const ClassicWeights *w, const Position *pos, Terms *t) {
    memset(t, 0, sizeof *t);
    for (Color c = BLACK; c <= WHITE; c++) {
        int sign = c == BLACK ? 1 : -1;
        Square own_k = pos->king_sq[c], their_k = pos->king_sq[color_flip(c)];
        Bitboard b = pos->by_color[c];
        while (b) {
            Square sq = bb_pop(&b);
            PieceType pt = piece_type(pos->board[sq]);
            if (pt == KING)
                continue;
            t->material += sign * w->board[pt];
            t->placement += sign * (w->attack[pt][distance(sq, their_k)] + w->defend[pt][distance(sq, own_k)]);
        }
        for (PieceType pt = PAWN; pt <= GOLD; pt++)
            t->hand += sign * w->hand[pt] * hand_count(pos->hand[c], pt);
        t->king += sign * w->king_rank[8 - rank_relative(c, square_rank(own_k))];
        t->danger -= sign * king_danger(w, pos, c);
    }
}

Value classic_evaluate_with(const ClassicWeights *w, const Position *pos) {
    Terms t;
    classic_terms(w, pos, &t);
    int v = t.material + t.hand + t.placement + t.king + t.danger;
    return pos->side == BLACK ? v : -v;
}

static Value classic_evaluate(const Position *pos) { return classic_evaluate_with(&classic_default_weights, pos); }

void eval_classic_explain(const Position *pos, char *buf, size_t len) {
    Terms t;
    classic_terms(&classic_default_weights, pos, &t);
    snprintf(buf, len, "material %d hand %d placement %d king %d danger %d total(black) %d total(side to move) %d",
             t.material, t.hand, t.placement, t.king, t.danger, t.material + t.hand + t.placement + t.king + t.danger,
             classic_evaluate(pos));
}

const Evaluator eval_classic = {"classic", classic_evaluate};
