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
        .board = {0, 119, 189, 411, 431, 686, 862, 559, 0, 417, 394, 518, 292, 1063, 1449},
        .hand = {0, 102, 319, 379, 596, 846, 1188, 704, 0, 0, 0, 0, 0, 0, 0},
        .attack =
            {
                [PAWN] = {0, -228, 159, 86, 88, 35, -1, -14, 248},
                [LANCE] = {0, -228, 15, 143, 236, -125, -122, 1, -76},
                [KNIGHT] = {0, -223, -94, 65, 139, 4, -29, -205, 41},
                [SILVER] = {0, -156, 277, 145, 65, 27, 29, -15, -156},
                [BISHOP] = {0, -208, 238, 174, 100, 52, -27, -210, -232},
                [ROOK] = {0, -166, 288, 272, -68, -115, 8, -156, -248},
                [GOLD] = {0, -66, 140, 273, -69, -24, -28, -78, -120},
                [PRO_PAWN] = {0, 70, 298, 262, -38, -220, -248, 116, -36},
                [PRO_LANCE] = {0, 139, 298, -18, -22, -248, 248, 248, -248},
                [PRO_KNIGHT] = {0, 318, 148, 276, -238, -40, -248, 152, -120},
                [PRO_SILVER] = {0, -178, 185, -166, 242, -80, 248, -248, -248},
                [HORSE] = {0, 80, 259, 239, 188, 38, -245, -248, -248},
                [DRAGON] = {0, 100, 55, 11, -44, -238, 248, 248, 230},
            },
        .defend =
            {
                [PAWN] = {0, 206, 21, -58, -85, -31, -136, -46, -216},
                [LANCE] = {0, 173, 253, 51, -14, -80, -248, 0, 8},
                [KNIGHT] = {0, 179, 114, -60, -131, -248, -101, -248, 0},
                [SILVER] = {0, 149, 95, 108, 40, 2, -188, -273, -118},
                [BISHOP] = {0, 105, 11, -29, -162, 22, 36, -14, -99},
                [ROOK] = {0, -180, -129, -150, -43, -136, -94, 85, 248},
                [GOLD] = {0, 44, 64, 24, -78, -10, 36, -278, -288},
                [PRO_PAWN] = {0, 0, 248, 248, -175, 93, 64, -176, -105},
                [PRO_LANCE] = {0, 248, 248, 248, -248, -88, 65, -106, -140},
                [PRO_KNIGHT] = {0, 220, 248, 248, -248, 0, -144, -201, 27},
                [PRO_SILVER] = {0, 268, -230, 253, 248, 0, -248, 56, -248},
                [HORSE] = {0, 288, 36, 1, 92, 222, -52, -81, -200},
                [DRAGON] = {0, 0, -248, 220, -248, -248, 226, 169, 248},
            },
        .king_rank = {-170, -28, 140, 228, 112, 198, 208, 228, 248},
        .danger_attack = 6,
        .danger_defence = 2,
        .danger_hand = 3,
        .danger_scale = 44,
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
