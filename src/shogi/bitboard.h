/* bitboard.h - 81-square bitboards and the attack tables built on them.
 *
 * A Bitboard is a 128-bit integer whose bit sq stands for square sq (see types.h), so
 * bits 0..80 are used and bits 81..127 are always zero. Sliders use the classical ray
 * method: for each of the 8 directions a precomputed ray, cut at the first blocker
 * found with a count-trailing/leading-zeros instruction. bench/bench_slider compares it
 * with the BMI2 PEXT line tables used when the build has __BMI2__.
 *
 * Tables are filled once by bitboard_init() (called from shogi_init()) and are read-only
 * afterwards, so every thread may use them freely.
 */
#ifndef HAYANAGI_SHOGI_BITBOARD_H
#define HAYANAGI_SHOGI_BITBOARD_H

#include "shogi/types.h"

__extension__ typedef unsigned __int128 Bitboard;

#define BB_ZERO ((Bitboard)0)

/* Directions, in the order of BitboardTables.ray. The "positive" ones move to higher
 * square numbers, so their first blocker is the lowest set bit of the ray. */
enum { DIR_N, DIR_S, DIR_E, DIR_W, DIR_NE, DIR_SW, DIR_NW, DIR_SE, DIR_NB };

/* The read-only engine singleton of precomputed tables. Every per-square table has an
 * extra, empty row for SQ_NONE, so a side without a king (tsume problems) needs no
 * special cases: nothing attacks, pins or checks a missing king. */
typedef struct {
    Bitboard square[SQ_NB + 1]; /* square[SQ_NONE] is empty */
    Bitboard file[FILE_NB];
    Bitboard rank[RANK_NB];
    Bitboard all;
    Bitboard zone[COLOR_NB];            /* the three far ranks for each colour */
    Bitboard rank_far[COLOR_NB][3];     /* far rank, far two ranks, far three (zone) */
    Bitboard step[PIECE_NB][SQ_NB + 1]; /* non-sliding attacks by coloured piece */
    Bitboard ray[SQ_NB + 1][DIR_NB];
    Bitboard between[SQ_NB + 1][SQ_NB + 1]; /* squares strictly between, if aligned */
    Bitboard line[SQ_NB + 1][SQ_NB + 1];    /* the full line through both, if aligned */
    /* For the pext path: masks of the inner squares on each line through sq and the
     * attack sets indexed by the extracted occupancy. */
#ifdef __BMI2__
    uint64_t line_mask[SQ_NB + 1][4][2];
    Bitboard line_attack[SQ_NB + 1][4][128];
#endif
} BitboardTables;

extern BitboardTables bitboard_tables;

/* Fills bitboard_tables. Idempotent; not thread-safe (call through shogi_init()). */
void bitboard_init(void);

static inline Bitboard bb_square(Square sq) { return bitboard_tables.square[sq]; }
static inline bool bb_test(Bitboard b, Square sq) { return (b >> sq) & 1; }
static inline bool bb_any(Bitboard b) { return b != 0; }
static inline bool bb_more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

static inline int bb_count(Bitboard b) {
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}

/* Lowest set square; b must be non-zero. */
static inline Square bb_lsb(Bitboard b) {
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}

/* Highest set square; b must be non-zero. */
static inline Square bb_msb(Bitboard b) {
    uint64_t hi = (uint64_t)(b >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)b);
}

/* Removes and returns the lowest set square; *b must be non-zero. */
static inline Square bb_pop(Bitboard *b) {
    Square sq = bb_lsb(*b);
    *b &= *b - 1;
    return sq;
}

static inline Bitboard bb_ray_attack(Square sq, int dir, Bitboard occ) {
    Bitboard ray = bitboard_tables.ray[sq][dir];
    Bitboard blockers = ray & occ;
    if (!blockers)
        return ray;
    bool positive = dir == DIR_S || dir == DIR_W || dir == DIR_SW || dir == DIR_NW;
    Square b = positive ? bb_lsb(blockers) : bb_msb(blockers);
    return ray ^ bitboard_tables.ray[b][dir];
}

#ifdef __BMI2__
#include <immintrin.h>
static inline Bitboard bb_line_attack(Square sq, int line, Bitboard occ) {
    const uint64_t *m = bitboard_tables.line_mask[sq][line];
    uint64_t idx =
        _pext_u64((uint64_t)occ, m[0]) | (_pext_u64((uint64_t)(occ >> 64), m[1]) << __builtin_popcountll(m[0]));
    return bitboard_tables.line_attack[sq][line][idx];
}
#endif

/* Attacks of a lance of colour c on sq with occupancy occ. */
static inline Bitboard bb_lance_attacks(Color c, Square sq, Bitboard occ) {
    return bb_ray_attack(sq, c == BLACK ? DIR_N : DIR_S, occ);
}

static inline Bitboard bb_bishop_attacks(Square sq, Bitboard occ) {
#ifdef __BMI2__
    return bb_line_attack(sq, 2, occ) | bb_line_attack(sq, 3, occ);
#else
    return bb_ray_attack(sq, DIR_NE, occ) | bb_ray_attack(sq, DIR_SW, occ) | bb_ray_attack(sq, DIR_NW, occ) |
           bb_ray_attack(sq, DIR_SE, occ);
#endif
}

static inline Bitboard bb_rook_attacks(Square sq, Bitboard occ) {
#ifdef __BMI2__
    return bb_line_attack(sq, 0, occ) | bb_line_attack(sq, 1, occ);
#else
    return bb_ray_attack(sq, DIR_N, occ) | bb_ray_attack(sq, DIR_S, occ) | bb_ray_attack(sq, DIR_E, occ) |
           bb_ray_attack(sq, DIR_W, occ);
#endif
}

/* Portable-only versions, kept callable in every build for the slider benchmark and the
 * cross-check test. */
static inline Bitboard bb_bishop_attacks_ray(Square sq, Bitboard occ) {
    return bb_ray_attack(sq, DIR_NE, occ) | bb_ray_attack(sq, DIR_SW, occ) | bb_ray_attack(sq, DIR_NW, occ) |
           bb_ray_attack(sq, DIR_SE, occ);
}
static inline Bitboard bb_rook_attacks_ray(Square sq, Bitboard occ) {
    return bb_ray_attack(sq, DIR_N, occ) | bb_ray_attack(sq, DIR_S, occ) | bb_ray_attack(sq, DIR_E, occ) |
           bb_ray_attack(sq, DIR_W, occ);
}

static inline Bitboard bb_king_attacks(Square sq) { return bitboard_tables.step[KING][sq]; }
static inline Bitboard bb_gold_attacks(Color c, Square sq) { return bitboard_tables.step[piece_make(c, GOLD)][sq]; }
static inline Bitboard bb_silver_attacks(Color c, Square sq) { return bitboard_tables.step[piece_make(c, SILVER)][sq]; }
static inline Bitboard bb_knight_attacks(Color c, Square sq) { return bitboard_tables.step[piece_make(c, KNIGHT)][sq]; }
static inline Bitboard bb_pawn_attacks(Color c, Square sq) { return bitboard_tables.step[piece_make(c, PAWN)][sq]; }

/* Attacks of piece pc (with colour) standing on sq, given occupancy occ. */
static inline Bitboard bb_piece_attacks(Piece pc, Square sq, Bitboard occ) {
    switch (piece_type(pc)) {
    case LANCE: return bb_lance_attacks(piece_color(pc), sq, occ);
    case BISHOP: return bb_bishop_attacks(sq, occ);
    case ROOK: return bb_rook_attacks(sq, occ);
    case HORSE: return bb_bishop_attacks(sq, occ) | bb_king_attacks(sq);
    case DRAGON: return bb_rook_attacks(sq, occ) | bb_king_attacks(sq);
    default: return bitboard_tables.step[pc][sq];
    }
}

/* Squares strictly between a and b when they share a line, else empty. */
static inline Bitboard bb_between(Square a, Square b) { return bitboard_tables.between[a][b]; }
/* True when a, b and c lie on one line. */
static inline bool bb_aligned(Square a, Square b, Square c) { return bb_test(bitboard_tables.line[a][b], c); }

/* Text diagram of a bitboard, 9 lines of 9 characters from file 9 to 1, for debugging
 * and tests. buf must hold at least 91 bytes. */
void bb_to_string(Bitboard b, char *buf);

#endif
