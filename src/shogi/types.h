/* types.h - the basic vocabulary of shogi: colours, squares, pieces, moves, hands.
 *
 * Squares follow YaneuraOu's layout, sq = file * 9 + rank with file 0..8 meaning
 * SFEN files 1..9 and rank 0..8 meaning SFEN ranks a..i, so 1a = 0, 1i = 8, 9i = 80.
 * Keeping this layout makes PackedSfen and book keys bit-compatible with YaneuraOu.
 */
#ifndef HAYANAGI_SHOGI_TYPES_H
#define HAYANAGI_SHOGI_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { BLACK = 0, WHITE = 1, COLOR_NB = 2 } Color;

static inline Color color_flip(Color c) { return (Color)(c ^ 1); }

enum { FILE_NB = 9, RANK_NB = 9, SQ_NB = 81 };
typedef int Square; /* 0..80, or SQ_NONE */
enum { SQ_NONE = 81 };

static inline int square_file(Square sq) { return sq / 9; }
static inline int square_rank(Square sq) { return sq % 9; }
static inline Square square_make(int file, int rank) { return file * 9 + rank; }
/* The same square seen from the other side of the board. */
static inline Square square_flip(Square sq) { return 80 - sq; }

/* Rank relative to colour c: 0 is the far rank (where c's pawns promote last). */
static inline int rank_relative(Color c, int rank) { return c == BLACK ? rank : 8 - rank; }
/* True when sq lies in the promotion zone (the three far ranks) for colour c. */
static inline bool square_in_zone(Color c, Square sq) { return rank_relative(c, square_rank(sq)) < 3; }

/* Piece types. Promoting adds PROMOTED; GOLD and KING never promote. */
typedef enum {
    NO_PIECE_TYPE = 0,
    PAWN = 1,
    LANCE,
    KNIGHT,
    SILVER,
    BISHOP,
    ROOK,
    GOLD,
    KING,
    PRO_PAWN = 9,
    PRO_LANCE,
    PRO_KNIGHT,
    PRO_SILVER,
    HORSE,
    DRAGON,
    PIECE_TYPE_NB = 15
} PieceType;
enum { PROMOTED = 8 };

/* Piece types that can be held in hand, PAWN..GOLD. */
enum { HAND_TYPE_FIRST = PAWN, HAND_TYPE_LAST = GOLD };

static inline bool piece_type_can_promote(PieceType pt) { return pt >= PAWN && pt <= ROOK; }
static inline bool piece_type_is_promoted(PieceType pt) { return pt > KING; }
/* The unpromoted type a captured piece turns into in hand. */
static inline PieceType piece_type_demote(PieceType pt) { return pt > KING ? (PieceType)(pt - PROMOTED) : pt; }

/* Pieces: type plus colour bit 16, so W_PAWN = 17 as in YaneuraOu. */
typedef int Piece;
enum { NO_PIECE = 0, WHITE_BIT = 16, PIECE_NB = 32 };

static inline Piece piece_make(Color c, PieceType pt) { return (Piece)(pt | (c << 4)); }
static inline PieceType piece_type(Piece p) { return (PieceType)(p & 15); }
static inline Color piece_color(Piece p) { return (Color)(p >> 4); }

/* Moves.
 * 16-bit form (Move16): bits 0-6 destination, bits 7-13 origin square or, for a drop,
 * the dropped piece type, bit 14 drop flag, bit 15 promotion flag. This is the layout
 * YaneuraOu uses in its books and training data.
 * 32-bit form (Move): the Move16 in the low half and the piece that stands on the
 * destination after the move (with colour) in bits 16-20. Moves from outside the
 * engine arrive as Move16 and must go through position_is_legal_move16(). */
typedef uint16_t Move16;
typedef uint32_t Move;
enum {
    MOVE_NONE = 0,
    MOVE_NULL = (1 << 7) + 1, /* from 1b to 1a: never a real move */
    MOVE_RESIGN = (2 << 7) + 2,
    MOVE_WIN = (3 << 7) + 3, /* entering-king declaration */
    MOVE_DROP = 1 << 14,
    MOVE_PROMOTE = 1 << 15
};

static inline Square move_to(Move m) { return (Square)(m & 0x7f); }
static inline Square move_from(Move m) { return (Square)((m >> 7) & 0x7f); }
static inline bool move_is_drop(Move m) { return (m & MOVE_DROP) != 0; }
static inline bool move_is_promotion(Move m) { return (m & MOVE_PROMOTE) != 0; }
static inline PieceType move_dropped_type(Move m) { return (PieceType)((m >> 7) & 0x7f); }
static inline Move16 move_to_move16(Move m) { return (Move16)(m & 0xffff); }
/* The piece standing on the destination after the move (32-bit form only). */
static inline Piece move_moved_piece_after(Move m) { return (Piece)((m >> 16) & 31); }
/* True for a real board move or drop, false for MOVE_NONE and the special codes. */
static inline bool move_is_ok(Move m) {
    Move16 m16 = (Move16)m;
    return m16 != MOVE_NONE && m16 != MOVE_NULL && m16 != MOVE_RESIGN && m16 != MOVE_WIN;
}

static inline Move move_make(Square from, Square to, bool promote, Piece after) {
    return (Move)to | ((Move)from << 7) | (promote ? (Move)MOVE_PROMOTE : 0) | ((Move)after << 16);
}
static inline Move move_make_drop(PieceType pt, Square to, Color us) {
    return (Move)to | ((Move)pt << 7) | (Move)MOVE_DROP | ((Move)piece_make(us, pt) << 16);
}

/* Hands, packed as YaneuraOu does so that "hand a has at least what hand b has" is a
 * subtraction with borrow bits: pawn bits 0-4, lance 8-10, knight 12-14, silver 16-18,
 * bishop 20-21, rook 24-25, gold 28-30. */
typedef uint32_t Hand;

extern const int HAND_SHIFT[PIECE_TYPE_NB];
extern const uint32_t HAND_MASK[PIECE_TYPE_NB];
#define HAND_BORROW_MASK 0x84488820u /* one bit above each field */

/* How many pieces of type pt (PAWN..GOLD) the hand holds. */
static inline int hand_count(Hand h, PieceType pt) { return (int)((h >> HAND_SHIFT[pt]) & HAND_MASK[pt]); }
static inline Hand hand_add(Hand h, PieceType pt) { return h + (1u << HAND_SHIFT[pt]); }
static inline Hand hand_sub(Hand h, PieceType pt) { return h - (1u << HAND_SHIFT[pt]); }
static inline bool hand_has(Hand h, PieceType pt) { return hand_count(h, pt) > 0; }
/* True when hand a holds at least as many of every type as hand b. */
static inline bool hand_is_equal_or_superior(Hand a, Hand b) { return ((a - b) & HAND_BORROW_MASK) == 0; }

/* The most pieces of each unpromoted type in a full set (both sides together). */
extern const int PIECE_TYPE_TOTAL[PIECE_TYPE_NB];

/* Scores, for the search and the mate routines. */
typedef int Value;
enum { VALUE_ZERO = 0, VALUE_DRAW = 0, VALUE_MATE = 32000, VALUE_INFINITE = 32001, VALUE_NONE = 32002, MAX_PLY = 246 };

#endif
