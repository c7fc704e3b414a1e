/* bitboard.c - builds the attack tables. */
#include "shogi/bitboard.h"

#include <string.h>

BitboardTables bitboard_tables;

static const int DIR_DFILE[DIR_NB] = {0, 0, -1, +1, -1, +1, +1, -1};
static const int DIR_DRANK[DIR_NB] = {-1, +1, 0, 0, -1, +1, -1, +1};

static bool on_board(int file, int rank) { return file >= 0 && file < 9 && rank >= 0 && rank < 9; }

static Bitboard steps(Square sq, const int (*d)[2], int n, int drank_sign) {
    Bitboard b = 0;
    for (int i = 0; i < n; i++) {
        int f = square_file(sq) + d[i][0], r = square_rank(sq) + d[i][1] * drank_sign;
        if (on_board(f, r))
            b |= (Bitboard)1 << square_make(f, r);
    }
    return b;
}

#ifdef __BMI2__
static void init_line_tables(void) {
    /* Each line is a pair of opposite directions. */
    static const int LINE_DIRS[4][2] = {{DIR_N, DIR_S}, {DIR_E, DIR_W}, {DIR_NE, DIR_SW}, {DIR_NW, DIR_SE}};
    for (Square sq = 0; sq < SQ_NB; sq++) {
        for (int l = 0; l < 4; l++) {
            Bitboard mask = 0;
            for (int k = 0; k < 2; k++) {
                Bitboard ray = bitboard_tables.ray[sq][LINE_DIRS[l][k]];
                if (!ray)
                    continue;
                /* The last square of a ray never blocks anything beyond it. */
                bool positive = LINE_DIRS[l][k] == DIR_S || LINE_DIRS[l][k] == DIR_W || LINE_DIRS[l][k] == DIR_SW ||
                                LINE_DIRS[l][k] == DIR_NW;
                Square end = positive ? bb_msb(ray) : bb_lsb(ray);
                mask |= ray & ~bb_square(end);
            }
            uint64_t m0 = (uint64_t)mask, m1 = (uint64_t)(mask >> 64);
            bitboard_tables.line_mask[sq][l][0] = m0;
            bitboard_tables.line_mask[sq][l][1] = m1;
            int n0 = __builtin_popcountll(m0), n = bb_count(mask);
            for (uint64_t idx = 0; idx < (1u << n); idx++) {
                Bitboard occ =
                    (Bitboard)_pdep_u64(idx & ((1ull << n0) - 1), m0) | ((Bitboard)_pdep_u64(idx >> n0, m1) << 64);
                bitboard_tables.line_attack[sq][l][idx] =
                    bb_ray_attack(sq, LINE_DIRS[l][0], occ) | bb_ray_attack(sq, LINE_DIRS[l][1], occ);
            }
        }
    }
}
#endif

void bitboard_init(void) {
    static bool done;
    if (done)
        return;
    BitboardTables *t = &bitboard_tables;
    memset(t, 0, sizeof *t);
    for (Square sq = 0; sq < SQ_NB; sq++) {
        t->square[sq] = (Bitboard)1 << sq;
        t->file[square_file(sq)] |= t->square[sq];
        t->rank[square_rank(sq)] |= t->square[sq];
        t->all |= t->square[sq];
    }
    for (Color c = BLACK; c <= WHITE; c++)
        for (int k = 0; k < 3; k++)
            for (int r = 0; r <= k; r++)
                t->rank_far[c][k] |= t->rank[c == BLACK ? r : 8 - r];
    t->zone[BLACK] = t->rank_far[BLACK][2];
    t->zone[WHITE] = t->rank_far[WHITE][2];

    for (Square sq = 0; sq < SQ_NB; sq++)
        for (int d = 0; d < DIR_NB; d++)
            for (int f = square_file(sq) + DIR_DFILE[d], r = square_rank(sq) + DIR_DRANK[d]; on_board(f, r);
                 f += DIR_DFILE[d], r += DIR_DRANK[d])
                t->ray[sq][d] |= t->square[square_make(f, r)];

    /* Offsets (file, rank) as seen by black; white mirrors the rank. */
    static const int PAWN_D[][2] = {{0, -1}};
    static const int KNIGHT_D[][2] = {{-1, -2}, {1, -2}};
    static const int SILVER_D[][2] = {{0, -1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    static const int GOLD_D[][2] = {{0, -1}, {-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}};
    static const int KING_D[][2] = {{0, -1}, {-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, 1}, {1, 1}};
    for (Color c = BLACK; c <= WHITE; c++) {
        int s = c == BLACK ? 1 : -1;
        for (Square sq = 0; sq < SQ_NB; sq++) {
            Bitboard gold = steps(sq, GOLD_D, 6, s);
            Bitboard diag = t->ray[sq][DIR_NE] | t->ray[sq][DIR_SW] | t->ray[sq][DIR_NW] | t->ray[sq][DIR_SE];
            Bitboard orth = t->ray[sq][DIR_N] | t->ray[sq][DIR_S] | t->ray[sq][DIR_E] | t->ray[sq][DIR_W];
            Bitboard king = steps(sq, KING_D, 8, s);
            t->step[piece_make(c, PAWN)][sq] = steps(sq, PAWN_D, 1, s);
            t->step[piece_make(c, LANCE)][sq] = t->ray[sq][c == BLACK ? DIR_N : DIR_S];
            t->step[piece_make(c, KNIGHT)][sq] = steps(sq, KNIGHT_D, 2, s);
            t->step[piece_make(c, SILVER)][sq] = steps(sq, SILVER_D, 5, s);
            t->step[piece_make(c, BISHOP)][sq] = diag;
            t->step[piece_make(c, ROOK)][sq] = orth;
            t->step[piece_make(c, GOLD)][sq] = gold;
            t->step[piece_make(c, KING)][sq] = king;
            for (PieceType pt = PRO_PAWN; pt <= PRO_SILVER; pt++)
                t->step[piece_make(c, pt)][sq] = gold;
            t->step[piece_make(c, HORSE)][sq] = diag | king;
            t->step[piece_make(c, DRAGON)][sq] = orth | king;
        }
    }

    for (Square a = 0; a < SQ_NB; a++)
        for (int d = 0; d < DIR_NB; d++) {
            int opposite = d ^ 1;
            for (Bitboard r = t->ray[a][d]; r;) {
                Square b = bb_pop(&r);
                t->between[a][b] = t->ray[a][d] & t->ray[b][opposite];
                t->line[a][b] = t->ray[a][d] | t->ray[a][opposite] | t->square[a];
            }
        }
#ifdef __BMI2__
    init_line_tables();
#endif
    done = true;
}

void bb_to_string(Bitboard b, char *buf) {
    char *p = buf;
    for (int r = 0; r < 9; r++) {
        for (int f = 8; f >= 0; f--)
            *p++ = bb_test(b, square_make(f, r)) ? '*' : '.';
        *p++ = '\n';
    }
    *p = '\0';
}
