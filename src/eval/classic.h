/* classic.h - the weights of the embedded evaluation and its feature list, exposed for
 * the tuner (src/eval/tune.c) and nothing else: the engine uses eval_classic from eval.h.
 *
 * Apart from king safety the evaluation is linear: a sum of weights picked by the
 * position's features (one-hot table entries, +1 for black's and -1 for white's). The
 * tuner fits those weights by gradient descent; see docs/eval.md. */
#ifndef HAYANAGI_EVAL_CLASSIC_H
#define HAYANAGI_EVAL_CLASSIC_H

#include <stddef.h>

#include "eval/eval.h"

enum {
    KREL_DX = 9,        /* |file difference| to a king, 0..8 */
    KREL_DY = 17,       /* rank difference + 8, in the piece owner's orientation (0..7: in front) */
    PST_RANKS = 9,      /* rank from the owner's side: 0 = the enemy's back rank */
    PST_FILES = 5,      /* distance from the edge file, 0..4 (the board is mirror symmetric) */
    HAND_COUNT_NB = 19, /* 0..18 pieces of one type in hand */
    MOBILITY_NB = 21,   /* squares a slider reaches that are not its own side's (0..20) */
    KREG_NB = 9,        /* king regions: 3 by distance from the edge file x 3 by distance from home */
    KREG_DX = 17,       /* file difference + 8, positive towards the centre (|dx| on the centre file) */
    ZONE_SQ = 9,        /* a king's 3x3 zone: (dx + 1) * 3 + dy + 1, dx as in KREG_DX */
    ZONE_COUNT = 4,     /* attackers or defenders of a zone square: 0, 1, 2, 3 or more */
    ZONE_OCC = 3,       /* what stands on a zone square: nothing, one of ours, one of theirs */
    KP_KING_NB = 45,    /* a king square with the board mirrored so that its file is 0..4 */
    HAND_ATTACK_NB = 3, /* pieces of one type in the attacker's hand: 1, 2, 3 or more */
    ZONE_WEAK_NB = 9,   /* king-zone squares the enemy attacks more often than we defend: 0..8 */
    PHASE_NB = 4,       /* game phases by progress (classic_phase): 0, 1-2, 3-5, 6 or more */
};

/* Every field is an int, so the tuner may treat the struct as an array of
 * CLASSIC_WEIGHT_COUNT ints (checked by a static assertion in tune.c). Squares are
 * seen from the piece owner's side (white's are rotated by 180 degrees). */
typedef struct {
    int board[PIECE_TYPE_NB];                        /* material on the board (the king's is unused) */
    int hand[GOLD + 1][HAND_COUNT_NB];               /* total value of holding n pieces of a type */
    int own_king[PIECE_TYPE_NB][KREL_DX][KREL_DY];   /* placement relative to our own king */
    int enemy_king[PIECE_TYPE_NB][KREL_DX][KREL_DY]; /* placement relative to the enemy king */
    /* The same two, refined by where that king stands (a castle on the edge is not one in
     * the centre): added to the tables above, and fitted from zero. */
    int own_king_region[KREG_NB][PIECE_TYPE_NB][KREG_DX][KREL_DY];
    int enemy_king_region[KREG_NB][PIECE_TYPE_NB][KREG_DX][KREL_DY];
    int pst[PIECE_TYPE_NB][PST_RANKS][PST_FILES]; /* placement on the board (KING: the king's own) */
    /* Residuals of all of the above, by the exact squares: [king][type][square], the board
     * mirrored so that the king's file is 0..4 (on the centre file, the piece's too).
     * Fitted from zero on top of the shared tables; they cost the engine nothing, which
     * folds every per-piece weight into one table per king. */
    int own_kp[KP_KING_NB][PIECE_TYPE_NB][SQ_NB];
    int enemy_kp[KP_KING_NB][PIECE_TYPE_NB][SQ_NB];
    int mobility[PIECE_TYPE_NB][MOBILITY_NB]; /* sliders: lance, bishop, rook, horse, dragon */
    int tempo;                                /* for the side to move */
    /* Each square next to a king, from that king's side: by the king's region, the
     * square's offset, its enemy attackers, its defenders (the king not counted) and
     * what stands on it. */
    int king_zone[KREG_NB][ZONE_SQ][ZONE_COUNT][ZONE_COUNT][ZONE_OCC];
    /* A hand piece is a threat in proportion to the holes it can be dropped into: by the
     * type and count (1, 2, 3+) of the pieces the enemy holds, and how many of our king's
     * zone squares it attacks more often than we defend. */
    int hand_attack[GOLD + 1][HAND_ATTACK_NB][ZONE_WEAK_NB];
    /* Residuals by game phase, fitted from zero on top of the shared tables: an endgame
     * race values material, hands, king zones and the pieces near each king otherwise
     * than a quiet middle game does. */
    int phase_board[PHASE_NB][PIECE_TYPE_NB];
    int phase_hand[PHASE_NB][GOLD + 1][HAND_COUNT_NB];
    int phase_zone[PHASE_NB][ZONE_SQ][ZONE_COUNT][ZONE_COUNT][ZONE_OCC];
    int phase_own_king[PHASE_NB][PIECE_TYPE_NB][KREL_DX][KREL_DY];
    int phase_enemy_king[PHASE_NB][PIECE_TYPE_NB][KREL_DX][KREL_DY];
    int danger_attack;  /* per enemy attack on a king-zone square */
    int danger_defence; /* per defender of a king-zone square */
    int danger_hand;    /* per enemy hand piece (not pawns) */
    int danger_scale;   /* penalty = danger^2 * scale / 64 */
} ClassicWeights;

enum { CLASSIC_WEIGHT_COUNT = sizeof(ClassicWeights) / sizeof(int) };

/* Index of the first king-danger weight: the weights before it are the linear ones. */
#define CLASSIC_LINEAR_COUNT ((int)(offsetof(ClassicWeights, danger_attack) / sizeof(int)))

/* One active linear feature: the weight's index in the int array and its coefficient
 * (+1 black, -1 white; repeated features are listed once per occurrence). */
typedef struct {
    int index;
    int coef;
} ClassicFeature;

/* The most features one position can have: 40 pieces x 12, 2 x 14 hand entries, 2
 * kings, the tempo, 2 x 2 x 8 king-zone squares, 14 hand-attack entries. */
enum { CLASSIC_MAX_FEATURES = 40 * 12 + 28 + 2 + 1 + 32 + 14 + 8 };

/* The weights the engine plays with (src/eval/classic_weights.c, written by
 * `hayanagi tune fit`, see docs/eval.md). */
extern const ClassicWeights classic_default_weights;

/* Lists pos's linear features into out (CLASSIC_MAX_FEATURES entries); returns how many. */
int classic_features(const Position *pos, ClassicFeature *out);

/* The king-safety part (not linear in the weights), from black's point of view. */
int classic_danger(const ClassicWeights *w, const Position *pos);

/* The classical evaluation under weights w, from the side to move's point of view. */
Value classic_evaluate_with(const ClassicWeights *w, const Position *pos);

#endif
