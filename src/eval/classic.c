/* classic.c - the embedded evaluation: needs no file.
 *
 * Terms (all from black's point of view, negated for white at the end):
 *  - material on the board, promoted pieces included, and in hand, where a table per
 *    piece type gives the value of holding n of them (the fifth pawn is worth less than
 *    the first);
 *  - placement: every piece but the king scores by its (|dx|, dy) offset to its own king
 *    and to the enemy king, seen from its owner's side, so that a gold diagonally behind
 *    its king and one in front of it are different features; the same offsets again,
 *    signed towards the centre, in a table per region of that king (edge, side or centre
 *    file; home rank, the one before it, or further out); plus a piece-square table by
 *    rank and distance from the edge, and the king's own square;
 *  - mobility of the sliders (lance, bishop, rook, horse, dragon), and a tempo for the
 *    side to move;
 *  - king safety from attack maps, as strong material engines do: each square next to
 *    a king counts the enemy pieces attacking it against our defenders, the enemy's
 *    hand pieces add to the danger (they can be dropped there), and the penalty grows
 *    with the square of the danger; and, linearly, a weight per zone square by the
 *    king's region, the square's offset, its attacker and defender counts (0-3) and
 *    what stands on it; and the enemy's hand pieces by type and count against the number
 *    of zone squares they could be dropped on to effect (attacked more than defended);
 *  - residuals of material, hands, king zones and king offsets by game phase (pieces in
 *    the enemy camp and non-pawn hand pieces, classic_phase()), so that an endgame race
 *    is weighed otherwise than a quiet middle game.
 * All but the squared danger is linear in the weights (classic_features lists the
 * features), which is what the tuner fits; see docs/eval.md for the procedure. The
 * engine evaluates through classic_evaluate(), which folds the per-piece weights into
 * two tables and must give exactly classic_evaluate_with()'s value (a test checks it).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "eval/classic.h"

const int PIECE_VALUE[PIECE_TYPE_NB] = {0, 90, 315, 405, 495, 855, 990, 540, 15000, 540, 540, 540, 540, 945, 1395};
/* Capturing a promoted piece returns its unpromoted type to our hand. */
const int CAPTURE_VALUE[PIECE_TYPE_NB] = {0,     180, 630, 810, 990,  1710, 1980, 1080,
                                          30000, 630, 855, 945, 1035, 1800, 2385};

static const Evaluator *current = &eval_classic;
const Evaluator *eval_current(void) { return current; }
void eval_select(const Evaluator *e) { current = e ? e : &eval_classic; }

#define FIELD_INDEX(field) ((int)(offsetof(ClassicWeights, field) / sizeof(int)))

/* sq seen from c's side: white's squares are rotated by 180 degrees. */
static inline Square oriented(Color c, Square sq) { return c == BLACK ? sq : square_flip(sq); }
static inline int edge_distance(int file) { return file < 8 - file ? file : 8 - file; }

/* The index of the (|dx|, dy) offset from oriented king square k to oriented square s. */
static inline int king_offset(Square s, Square k) {
    int dx = square_file(s) - square_file(k), dy = square_rank(s) - square_rank(k) + 8;
    return (dx < 0 ? -dx : dx) * KREL_DY + dy;
}

/* The region of oriented king square k, whose home rank is rank `home` (8 for our own
 * king, 0 for the enemy's, both seen from the piece owner's side). */
static inline int king_region(Square k, int home) {
    int edge = edge_distance(square_file(k)), away = square_rank(k) - home;
    if (away < 0)
        away = -away;
    return (edge < 2 ? 0 : edge < 4 ? 1 : 2) * 3 + (away < 2 ? away : 2);
}

/* The index of the offset from oriented king square k to s within one region's table:
 * the file difference is signed so that positive points to the centre file (on the
 * centre file itself the board's mirror symmetry leaves only |dx|). */
static inline int king_region_offset(Square s, Square k) {
    int kf = square_file(k), dx = square_file(s) - kf, dy = square_rank(s) - square_rank(k) + 8;
    if (kf > 4 || (kf == 4 && dx < 0))
        dx = -dx;
    return (dx + 8) * KREL_DY + dy;
}

/* The index of (oriented king square k, oriented square s) in a [KP_KING_NB][type][SQ_NB]
 * table, less the type: the board is mirrored so that the king's file is 0..4 and, when
 * the king is on the centre file, the piece's file too. */
static inline int kp_offset(Square k, Square s) {
    int kf = square_file(k), sf = square_file(s);
    if (kf > 4 || (kf == 4 && sf > 4)) {
        kf = 8 - kf;
        sf = 8 - sf;
    }
    return (kf * RANK_NB + square_rank(k)) * PIECE_TYPE_NB * SQ_NB + sf * RANK_NB + square_rank(s);
}

/* The mobility table's column for piece pc on sq: the squares it reaches that do not
 * hold its own side's pieces, capped; -1 for a piece that is not a slider. */
static inline int slider_mobility(const Position *pos, Piece pc, Square sq, Bitboard occ) {
    PieceType pt = piece_type(pc);
    if (pt != LANCE && pt != BISHOP && pt != ROOK && pt != HORSE && pt != DRAGON)
        return -1;
    int mob = bb_count(bb_piece_attacks(pc, sq, occ) & ~pos->by_color[piece_color(pc)]);
    return mob < MOBILITY_NB ? mob : MOBILITY_NB - 1;
}

/* The squares next to one king: what stands there and who attacks them. Computed once
 * per evaluation and shared by the king-zone features and the king-danger term. */
typedef struct {
    int n;
    int index[8];     /* weight index of the square's king_zone entry, counts aside */
    int local[8];     /* the same entry's index within one region's (or phase's) block */
    int attackers[8]; /* enemy pieces attacking the square */
    int defenders[8]; /* our pieces defending it, the king not counted */
    bool enemy_on[8]; /* an enemy piece stands there */
    int weak;         /* squares with more attackers than defenders */
} KingZone;

/* Records square sq of colour c's zone (oriented king square k, weight block `base`)
 * with its enemy attackers and our defenders (the king not counted). */
static void zone_square(const Position *pos, Color c, Square k, int base, Square sq, int attackers, int defenders,
                        KingZone *z) {
    Color them = color_flip(c);
    int kf = square_file(k), i = z->n++;
    z->attackers[i] = attackers;
    z->defenders[i] = defenders;
    z->enemy_on[i] = bb_test(pos->by_color[them], sq);
    z->weak += attackers > defenders;
    Square s = oriented(c, sq);
    int dx = square_file(s) - kf, dy = square_rank(s) - square_rank(k);
    if (kf > 4 || (kf == 4 && dx < 0))
        dx = -dx; /* positive towards the centre, as in king_region_offset */
    int at = attackers < ZONE_COUNT ? attackers : ZONE_COUNT - 1;
    int de = defenders < ZONE_COUNT ? defenders : ZONE_COUNT - 1;
    int on = z->enemy_on[i] ? 2 : bb_test(pos->by_color[c], sq) ? 1 : 0;
    z->local[i] = (((dx + 1) * 3 + dy + 1) * ZONE_COUNT + at) * ZONE_COUNT * ZONE_OCC + de * ZONE_OCC + on;
    z->index[i] = base + z->local[i];
}

/* The weight block of colour c's king zone (by its king's region); *k gets the oriented
 * king square. */
static int zone_base(const Position *pos, Color c, Square *k) {
    *k = oriented(c, pos->king_sq[c]);
    return FIELD_INDEX(king_zone) + king_region(*k, 8) * ZONE_SQ * ZONE_COUNT * ZONE_COUNT * ZONE_OCC;
}

/* Scans colour c's king zone. The attackers of each square are found for both colours
 * with one lookup. */
static void king_zone_scan(const Position *pos, Color c, Bitboard occ, KingZone *z) {
    z->n = 0;
    z->weak = 0;
    Square ksq = pos->king_sq[c];
    if (ksq >= SQ_NB)
        return;
    Color them = color_flip(c);
    Square k;
    int base = zone_base(pos, c, &k);
    Bitboard zone = bb_king_attacks(ksq), own_king = bb_square(ksq);
    while (zone) {
        Square sq = bb_pop(&zone);
        Bitboard attackers = position_attackers_to_both(pos, sq, occ);
        zone_square(pos, c, k, base, sq, bb_count(attackers & pos->by_color[them]),
                    bb_count(attackers & pos->by_color[c] & ~own_king), z);
    }
}

/* The non-pawn pieces of a hand, a rook or bishop counting twice: what king danger and
 * the game phase count. */
static int hand_weight(Hand h) {
    return hand_count(h, LANCE) + hand_count(h, KNIGHT) + hand_count(h, SILVER) + hand_count(h, GOLD) +
           2 * (hand_count(h, BISHOP) + hand_count(h, ROOK));
}

/* The game phase: pieces standing in the enemy camp (kings aside) plus both hands'
 * hand_weight(), bucketed 0, 1-2, 3-5, 6+. */
static int classic_phase(const Position *pos) {
    Bitboard kings = pos->by_type[KING];
    int progress = bb_count(pos->by_color[BLACK] & bitboard_tables.zone[BLACK] & ~kings) +
                   bb_count(pos->by_color[WHITE] & bitboard_tables.zone[WHITE] & ~kings) +
                   hand_weight(pos->hand[BLACK]) + hand_weight(pos->hand[WHITE]);
    return progress == 0 ? 0 : progress <= 2 ? 1 : progress <= 5 ? 2 : 3;
}

/* The hand_attack column for holding k > 0 pieces of a type: 1, 2, 3 or more. */
static inline int hand_attack_count(int k) { return (k < HAND_ATTACK_NB ? k : HAND_ATTACK_NB) - 1; }

/* Appends colour c's hand-attack features (the enemy's hand against c's zone), each
 * with coefficient sign; returns the new count. */
static int hand_attack_features(const Position *pos, Color c, const KingZone *z, int sign, ClassicFeature *out, int n) {
    Hand h = pos->hand[color_flip(c)];
    for (PieceType pt = PAWN; pt <= GOLD; pt++) {
        int k = hand_count(h, pt);
        if (k)
            out[n++] =
                (ClassicFeature){FIELD_INDEX(hand_attack[pt]) + hand_attack_count(k) * ZONE_WEAK_NB + z->weak, sign};
    }
    return n;
}

/* Both kings' zones. */
static void scan_king_zones(const Position *pos, Bitboard occ, KingZone zones[COLOR_NB]) {
    king_zone_scan(pos, BLACK, occ, &zones[BLACK]);
    king_zone_scan(pos, WHITE, occ, &zones[WHITE]);
}

static int features_with_zones(const Position *pos, Bitboard occ, const KingZone zones[COLOR_NB], ClassicFeature *out) {
    int n = 0;
    int ph = classic_phase(pos);
    for (Color c = BLACK; c <= WHITE; c++) {
        int sign = c == BLACK ? 1 : -1;
        Color them = color_flip(c);
        bool has_own_k = pos->king_sq[c] < SQ_NB, has_their_k = pos->king_sq[them] < SQ_NB;
        Square own_k = has_own_k ? oriented(c, pos->king_sq[c]) : 0;
        Square their_k = has_their_k ? oriented(c, pos->king_sq[them]) : 0;
        const int piece_stride = KREG_DX * KREL_DY, region_stride = PIECE_TYPE_NB * piece_stride;
        int own_region = FIELD_INDEX(own_king_region) + (has_own_k ? king_region(own_k, 8) : 0) * region_stride;
        int their_region = FIELD_INDEX(enemy_king_region) + (has_their_k ? king_region(their_k, 0) : 0) * region_stride;
        Bitboard b = pos->by_color[c];
        while (b) {
            Square sq = bb_pop(&b);
            Piece pc = pos->board[sq];
            PieceType pt = piece_type(pc);
            Square s = oriented(c, sq);
            int pst = FIELD_INDEX(pst[pt]) + square_rank(s) * PST_FILES + edge_distance(square_file(s));
            out[n++] = (ClassicFeature){pst, sign};
            if (pt == KING)
                continue;
            out[n++] = (ClassicFeature){FIELD_INDEX(board[pt]), sign};
            out[n++] = (ClassicFeature){FIELD_INDEX(phase_board[ph][pt]), sign};
            if (has_own_k) {
                out[n++] = (ClassicFeature){FIELD_INDEX(own_king[pt]) + king_offset(s, own_k), sign};
                out[n++] = (ClassicFeature){own_region + pt * piece_stride + king_region_offset(s, own_k), sign};
                out[n++] = (ClassicFeature){FIELD_INDEX(own_kp) + pt * SQ_NB + kp_offset(own_k, s), sign};
                out[n++] = (ClassicFeature){FIELD_INDEX(phase_own_king[ph][pt]) + king_offset(s, own_k), sign};
            }
            if (has_their_k) {
                out[n++] = (ClassicFeature){FIELD_INDEX(enemy_king[pt]) + king_offset(s, their_k), sign};
                out[n++] = (ClassicFeature){their_region + pt * piece_stride + king_region_offset(s, their_k), sign};
                out[n++] = (ClassicFeature){FIELD_INDEX(enemy_kp) + pt * SQ_NB + kp_offset(their_k, s), sign};
                out[n++] = (ClassicFeature){FIELD_INDEX(phase_enemy_king[ph][pt]) + king_offset(s, their_k), sign};
            }
            int mob = slider_mobility(pos, pc, sq, occ);
            if (mob >= 0)
                out[n++] = (ClassicFeature){FIELD_INDEX(mobility[pt]) + mob, sign};
        }
        for (PieceType pt = PAWN; pt <= GOLD; pt++) {
            int k = hand_count(pos->hand[c], pt);
            if (k) {
                int col = k < HAND_COUNT_NB ? k : HAND_COUNT_NB - 1;
                out[n++] = (ClassicFeature){FIELD_INDEX(hand[pt]) + col, sign};
                out[n++] = (ClassicFeature){FIELD_INDEX(phase_hand[ph][pt]) + col, sign};
            }
        }
    }
    out[n++] = (ClassicFeature){FIELD_INDEX(tempo), pos->side == BLACK ? 1 : -1};
    for (Color c = BLACK; c <= WHITE; c++) {
        for (int i = 0; i < zones[c].n; i++) {
            out[n++] = (ClassicFeature){zones[c].index[i], c == BLACK ? 1 : -1};
            out[n++] = (ClassicFeature){FIELD_INDEX(phase_zone[ph]) + zones[c].local[i], c == BLACK ? 1 : -1};
        }
        if (pos->king_sq[c] < SQ_NB)
            n = hand_attack_features(pos, c, &zones[c], c == BLACK ? 1 : -1, out, n);
    }
    return n;
}

int classic_features(const Position *pos, ClassicFeature *out) {
    Bitboard occ = position_occupied(pos);
    KingZone zones[COLOR_NB];
    scan_king_zones(pos, occ, zones);
    return features_with_zones(pos, occ, zones, out);
}

/* The king-safety penalty for colour c's king, from its scanned zone. */
static int king_danger(const ClassicWeights *w, const Position *pos, Color c, const KingZone *z) {
    int danger = 0;
    for (int i = 0; i < z->n; i++) {
        if (!z->attackers[i])
            continue;
        int d = z->attackers[i] * w->danger_attack - z->defenders[i] * w->danger_defence;
        if (z->enemy_on[i])
            d += w->danger_attack; /* an enemy piece already standing next to the king */
        if (d > 0)
            danger += d;
    }
    danger += hand_weight(pos->hand[color_flip(c)]) * w->danger_hand;
    return danger * danger * w->danger_scale / 64;
}

/* The king-danger term from black's point of view, from both scanned zones. */
static int zones_danger(const ClassicWeights *w, const Position *pos, const KingZone zones[COLOR_NB]) {
    return king_danger(w, pos, WHITE, &zones[WHITE]) - king_danger(w, pos, BLACK, &zones[BLACK]);
}

int classic_danger(const ClassicWeights *w, const Position *pos) {
    Bitboard occ = position_occupied(pos);
    KingZone zones[COLOR_NB];
    scan_king_zones(pos, occ, zones);
    return zones_danger(w, pos, zones);
}

/* Sums of the weights of pos's features, by term, from black's point of view. */
typedef struct {
    int material, hand, placement, mobility, danger;
} Terms;

static void classic_terms(const ClassicWeights *w, const Position *pos, Terms *t) {
    memset(t, 0, sizeof *t);
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = classic_features(pos, f);
    const int *v = (const int *)w;
    for (int i = 0; i < n; i++) {
        int x = v[f[i].index] * f[i].coef, idx = f[i].index;
        if (idx < FIELD_INDEX(hand))
            t->material += x;
        else if (idx < FIELD_INDEX(own_king))
            t->hand += x;
        else if (idx < FIELD_INDEX(mobility))
            t->placement += x;
        else if (idx < FIELD_INDEX(king_zone))
            t->mobility += x; /* and the tempo */
        else
            t->danger += x;
    }
    t->danger += classic_danger(w, pos);
}

Value classic_evaluate_with(const ClassicWeights *w, const Position *pos) {
    Bitboard occ = position_occupied(pos);
    KingZone zones[COLOR_NB];
    scan_king_zones(pos, occ, zones);
    ClassicFeature f[CLASSIC_MAX_FEATURES];
    int n = features_with_zones(pos, occ, zones, f);
    const int *v = (const int *)w;
    int sum = zones_danger(w, pos, zones);
    for (int i = 0; i < n; i++)
        sum += v[f[i].index] * f[i].coef;
    return pos->side == BLACK ? sum : -sum;
}

/* ---- The engine's fast path: the same value as classic_evaluate_with() under the
 * installed weights, with the ten per-piece weights folded into two tables per game phase
 * (one by the square of the piece's own king, one by the enemy king's), so that a piece
 * costs two loads instead of ten index computations and loads; and the king zones' attack
 * counts gathered from each piece's attack set, which the loop has at hand (the sliders'
 * for mobility, the others' by one table load), instead of an attackers_to per square. */

/* Slider types: their attacks depend on the occupancy and they have a mobility term. */
enum {
    SLIDER_TYPES = (1 << LANCE) | (1 << BISHOP) | (1 << ROOK) | (1 << HORSE) | (1 << DRAGON),
};

typedef struct {
    /* board + pst + own_king + own_king_region + own_kp + phase_board + phase_own_king,
     * by phase, oriented own king square, type, square (KING: the king's pst) */
    int16_t own[PHASE_NB][SQ_NB][PIECE_TYPE_NB][SQ_NB];
    /* enemy_king + enemy_king_region + enemy_kp + phase_enemy_king, by phase, oriented
     * enemy king square, type, square */
    int16_t enemy[PHASE_NB][SQ_NB][PIECE_TYPE_NB][SQ_NB];
} PieceTables;

/* An engine singleton: written once by build_piece_tables() under pthread_once, read-only
 * afterwards. piece_tables_ok is false when a sum does not fit in 16 bits (then the engine
 * keeps the general path). */
static PieceTables piece_tables;
/* zone_slots[c][king square][square next to it]: the square's offset in c's king_zone
 * entries, (dx + 1) * 3 + dy + 1 as in zone_square. */
static int8_t zone_slots[COLOR_NB][SQ_NB][SQ_NB];
static bool piece_tables_ok;
static pthread_once_t piece_tables_once = PTHREAD_ONCE_INIT;

static void build_piece_tables(void) {
    const ClassicWeights *w = &classic_default_weights;
    bool ok = true;
    for (int ph = 0; ph < PHASE_NB; ph++) {
        for (Square k = 0; k < SQ_NB; k++) {
            int own_region = king_region(k, 8), their_region = king_region(k, 0);
            for (PieceType pt = PAWN; pt < PIECE_TYPE_NB; pt++) {
                for (Square s = 0; s < SQ_NB; s++) {
                    int own = w->pst[pt][square_rank(s)][edge_distance(square_file(s))], enemy = 0;
                    if (pt != KING) {
                        own += w->board[pt] + w->phase_board[ph][pt];
                        own += ((const int *)w->own_king[pt])[king_offset(s, k)];
                        own += ((const int *)w->own_king_region[own_region][pt])[king_region_offset(s, k)];
                        own += ((const int *)w->own_kp)[pt * SQ_NB + kp_offset(k, s)];
                        own += ((const int *)w->phase_own_king[ph][pt])[king_offset(s, k)];
                        enemy = ((const int *)w->enemy_king[pt])[king_offset(s, k)];
                        enemy += ((const int *)w->enemy_king_region[their_region][pt])[king_region_offset(s, k)];
                        enemy += ((const int *)w->enemy_kp)[pt * SQ_NB + kp_offset(k, s)];
                        enemy += ((const int *)w->phase_enemy_king[ph][pt])[king_offset(s, k)];
                    }
                    ok = ok && own >= INT16_MIN && own <= INT16_MAX && enemy >= INT16_MIN && enemy <= INT16_MAX;
                    piece_tables.own[ph][k][pt][s] = (int16_t)own;
                    piece_tables.enemy[ph][k][pt][s] = (int16_t)enemy;
                }
            }
        }
    }
    for (Color c = BLACK; c <= WHITE; c++) {
        for (Square ksq = 0; ksq < SQ_NB; ksq++) {
            Square k = oriented(c, ksq);
            int kf = square_file(k);
            for (Bitboard zone = bb_king_attacks(ksq); zone;) {
                Square sq = bb_pop(&zone), s = oriented(c, sq);
                int dx = square_file(s) - kf, dy = square_rank(s) - square_rank(k);
                if (kf > 4 || (kf == 4 && dx < 0))
                    dx = -dx;
                zone_slots[c][ksq][sq] = (int8_t)((dx + 1) * 3 + dy + 1);
            }
        }
    }
    piece_tables_ok = ok;
}

/* Colour c's pieces: their folded table entries and the mobility of the sliders; each
 * piece's attacks on the king zones (`zones`) are counted into count[square]. Returns
 * the sum from c's point of view. */
static int pieces_sum(const Position *pos, Color c, int ph, Bitboard occ, Bitboard zones, uint8_t count[SQ_NB]) {
    const ClassicWeights *w = &classic_default_weights;
    Square own_k = oriented(c, pos->king_sq[c]), their_k = oriented(c, pos->king_sq[color_flip(c)]);
    const int16_t *own = piece_tables.own[ph][own_k][0], *enemy = piece_tables.enemy[ph][their_k][0];
    Bitboard mine = pos->by_color[c];
    int side = 0;
    Bitboard b = mine;
    while (b) {
        Square sq = bb_pop(&b);
        Piece pc = pos->board[sq];
        PieceType pt = piece_type(pc);
        Square s = oriented(c, sq);
        side += own[pt * SQ_NB + s] + enemy[pt * SQ_NB + s];
        Bitboard att;
        if (SLIDER_TYPES >> pt & 1) {
            att = bb_piece_attacks(pc, sq, occ);
            int mob = bb_count(att & ~mine);
            side += w->mobility[pt][mob < MOBILITY_NB ? mob : MOBILITY_NB - 1];
        } else {
            att = bitboard_tables.step[pc][sq];
        }
        att &= zones;
        while (att)
            count[bb_pop(&att)]++;
    }
    return side;
}

/* Colour c's king zone in one pass over the attack counts of both colours (a piece
 * attacks a square iff attackers_to finds it there, so the counts are king_zone_scan's):
 * its zone and hand-attack weights, less its king-danger penalty, from c's point of view;
 * the same sum as zone_square, king_danger and the zone features give. */
static int zone_sum(const Position *pos, Color c, int ph, const uint8_t *ours, const uint8_t *theirs) {
    const ClassicWeights *w = &classic_default_weights;
    Color them = color_flip(c);
    Square ksq = pos->king_sq[c];
    const int *zone_w = (const int *)w->king_zone[king_region(oriented(c, ksq), 8)];
    const int *phase_w = (const int *)w->phase_zone[ph];
    const int8_t *slot = zone_slots[c][ksq];
    Bitboard enemy = pos->by_color[them], mine = pos->by_color[c];
    int side = 0, weak = 0, danger = 0;
    Bitboard zone = bb_king_attacks(ksq);
    while (zone) {
        Square sq = bb_pop(&zone);
        /* our own king attacks every square of its zone: not a defender */
        int a = theirs[sq], d = ours[sq] - 1;
        bool enemy_on = bb_test(enemy, sq);
        weak += a > d;
        int at = a < ZONE_COUNT ? a : ZONE_COUNT - 1, de = d < ZONE_COUNT ? d : ZONE_COUNT - 1;
        int on = enemy_on ? 2 : bb_test(mine, sq) ? 1 : 0;
        int local = ((slot[sq] * ZONE_COUNT + at) * ZONE_COUNT + de) * ZONE_OCC + on;
        side += zone_w[local] + phase_w[local];
        if (a) {
            int x = a * w->danger_attack - d * w->danger_defence + (enemy_on ? w->danger_attack : 0);
            if (x > 0)
                danger += x;
        }
    }
    Hand h = pos->hand[them];
    for (PieceType pt = PAWN; pt <= GOLD; pt++) {
        int k = hand_count(h, pt);
        if (k)
            side += w->hand_attack[pt][hand_attack_count(k)][weak];
    }
    danger += hand_weight(h) * w->danger_hand;
    return side - danger * danger * w->danger_scale / 64;
}

static Value classic_evaluate(const Position *pos) {
    const ClassicWeights *w = &classic_default_weights;
    pthread_once(&piece_tables_once, build_piece_tables);
    if (!piece_tables_ok || pos->king_sq[BLACK] >= SQ_NB || pos->king_sq[WHITE] >= SQ_NB)
        return classic_evaluate_with(w, pos);
    Bitboard occ = position_occupied(pos);
    Bitboard zone_union = bb_king_attacks(pos->king_sq[BLACK]) | bb_king_attacks(pos->king_sq[WHITE]);
    uint8_t count[COLOR_NB][SQ_NB];
    memset(count, 0, sizeof count);
    int ph = classic_phase(pos);
    int sum = pieces_sum(pos, BLACK, ph, occ, zone_union, count[BLACK]) -
              pieces_sum(pos, WHITE, ph, occ, zone_union, count[WHITE]);
    sum += zone_sum(pos, BLACK, ph, count[BLACK], count[WHITE]) - zone_sum(pos, WHITE, ph, count[WHITE], count[BLACK]);
    for (Color c = BLACK; c <= WHITE; c++) {
        int side = 0;
        for (PieceType pt = PAWN; pt <= GOLD; pt++) {
            int k = hand_count(pos->hand[c], pt);
            if (k) {
                int col = k < HAND_COUNT_NB ? k : HAND_COUNT_NB - 1;
                side += w->hand[pt][col] + w->phase_hand[ph][pt][col];
            }
        }
        sum += c == BLACK ? side : -side;
    }
    sum += pos->side == BLACK ? w->tempo : -w->tempo;
    return pos->side == BLACK ? sum : -sum;
}

void eval_classic_explain(const Position *pos, char *buf, size_t len) {
    Terms t;
    classic_terms(&classic_default_weights, pos, &t);
    snprintf(buf, len, "material %d hand %d placement %d mobility %d danger %d total(black) %d total(side to move) %d",
             t.material, t.hand, t.placement, t.mobility, t.danger,
             t.material + t.hand + t.placement + t.mobility + t.danger, classic_evaluate(pos));
}

const Evaluator eval_classic = {"classic", classic_evaluate};
