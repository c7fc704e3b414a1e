/* position.h - a shogi position: board, hands, side to move, and the state history
 * needed for do/undo, repetition and perpetual-check detection.
 *
 * Ownership: a Position never allocates. Each do_move takes a StateInfo the caller owns
 * and keeps alive until the matching undo_move (a search keeps them on its stack, a game
 * in an array). position_copy() is not provided on purpose: copy a game by replaying.
 */
#ifndef HAYANAGI_SHOGI_POSITION_H
#define HAYANAGI_SHOGI_POSITION_H

#include <stddef.h>

#include "shogi/bitboard.h"

typedef uint64_t Key;

typedef struct StateInfo {
    /* Copied by do_move from the previous state and then updated. */
    Key board_key;                  /* board and side to move */
    Key hand_key;                   /* both hands, additive */
    int plies_from_null;            /* plies since the last null move or the root */
    int continuous_check[COLOR_NB]; /* consecutive checking moves by each side, in plies */
    /* Recomputed by do_move. */
    Hand hand_of_mover;                    /* hand of the side to move in this state, for repetition */
    Piece captured;                        /* piece taken by the move that led here */
    Move last_move;                        /* the move that led here, MOVE_NONE at the root */
    Bitboard checkers;                     /* pieces giving check to the side to move */
    Bitboard blockers_for_king[COLOR_NB];  /* pieces (any colour) shielding c's king */
    Bitboard pinners[COLOR_NB];            /* c's sliders pinning a piece to the other king */
    Bitboard check_squares[PIECE_TYPE_NB]; /* squares from which our piece type checks them */
    struct StateInfo *previous;
} StateInfo;

typedef struct {
    Piece board[SQ_NB + 1];          /* board[SQ_NONE] stays empty */
    Bitboard by_type[PIECE_TYPE_NB]; /* by_type[NO_PIECE_TYPE] is every occupied square */
    Bitboard by_color[COLOR_NB];
    Hand hand[COLOR_NB];
    Square king_sq[COLOR_NB]; /* SQ_NONE when that side has no king (tsume problems) */
    Color side;
    int ply; /* the SFEN move number, 1 at the start */
    StateInfo *st;
} Position;

#define STARTPOS_SFEN "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
enum { SFEN_MAX = 160 }; /* longest SFEN text written, with the move number and the NUL */

/* Builds the tables every position relies on (bitboards, Zobrist keys). Thread-safe and
 * idempotent; every entry point calls it before using a Position. */
void shogi_init(void);

/* Parses an SFEN ("board side hands [ply]"; the ply is optional and defaults to 1).
 * Strict: rejects bad rank lengths, unknown pieces, promoted golds or kings, more pieces
 * of a kind than a full set holds, a missing or extra king (each side needs exactly
 * one), bad or repeated hand counts, and trailing text. Rule violations such as nifu are not checked here: see
 * position_legality_report(). On success fills *pos and *st (owned by the caller) and
 * returns true; on failure writes "column N: reason" to err (if non-null) and leaves
 * *pos unspecified. */
bool position_from_sfen(Position *pos, StateInfo *st, const char *sfen, char *err, size_t err_len);

/* Flags for position_from_sfen_ex. */
enum { SFEN_ALLOW_MISSING_KING = 1 }; /* one side may have no king, as in tsume problems */

/* position_from_sfen with options: with SFEN_ALLOW_MISSING_KING a position where one
 * side (not both) has no king is accepted; that side's king_sq is SQ_NONE. */
bool position_from_sfen_ex(Position *pos, StateInfo *st, const char *sfen, int flags, char *err, size_t err_len);

/* Sets up a position from its parts, as position_from_sfen() would from the same text but
 * without going through text: board[sq] (NO_PIECE or a piece), both hands, the side to
 * move and the move number (below 1 becomes 1). Refuses what position_from_sfen()
 * refuses: a value that is no piece, a missing or second king, more pieces of a kind than
 * a full set, a move number above 1000000. Rule violations are not checked (see
 * position_legality_report()). On failure writes the reason to err and leaves *pos
 * unspecified. */
bool position_from_parts(Position *pos, StateInfo *st, const Piece board[SQ_NB], const Hand hand[COLOR_NB], Color side,
                         int ply, char *err, size_t err_len);

/* Sets the standard starting position. */
void position_set_startpos(Position *pos, StateInfo *st);

/* Writes the canonical SFEN (hands in YaneuraOu's order R B G S N L P, black first)
 * into buf (at least SFEN_MAX bytes). With with_ply false the move number is left out,
 * which is the normalised form used as a book key. Returns buf. */
char *position_to_sfen(const Position *pos, char *buf, bool with_ply);

/* Checks the rules a well-formed SFEN may still break: pawns, lances or knights with
 * no legal move left, two unpromoted pawns of one side on a file, the side not to move
 * in check. Returns true when legal; otherwise writes the first reason to err. */
bool position_legality_report(const Position *pos, char *err, size_t err_len);

/* Piece and occupancy queries. */
static inline Piece position_piece_on(const Position *pos, Square sq) { return pos->board[sq]; }
static inline Bitboard position_occupied(const Position *pos) { return pos->by_type[NO_PIECE_TYPE]; }
static inline Bitboard position_pieces(const Position *pos, Color c, PieceType pt) {
    return pos->by_color[c] & pos->by_type[pt];
}
/* Whether m (pseudo-legal here) takes a piece; drops never do. */
static inline bool position_is_capture(const Position *pos, Move m) {
    return !move_is_drop(m) && pos->board[move_to(m)] != NO_PIECE;
}
static inline Bitboard position_golds(const Position *pos, Color c) {
    return pos->by_color[c] & (pos->by_type[GOLD] | pos->by_type[PRO_PAWN] | pos->by_type[PRO_LANCE] |
                               pos->by_type[PRO_KNIGHT] | pos->by_type[PRO_SILVER]);
}
static inline bool position_in_check(const Position *pos) { return pos->st->checkers != 0; }
static inline Key position_key(const Position *pos) { return pos->st->board_key + pos->st->hand_key; }
/* The key pos will have after the pseudo-legal move m, without making it (so that the
 * search can start loading its hash entry early). */
Key position_key_after(const Position *pos, Move m);

/* Pieces of colour c attacking sq, with occ as the occupancy (sliders see through
 * squares removed from it). */
Bitboard position_attackers_to(const Position *pos, Color c, Square sq, Bitboard occ);
/* The pieces of both colours that attack sq under occupancy occ (one slider lookup for
 * the two): mask with by_color to split them. */
Bitboard position_attackers_to_both(const Position *pos, Square sq, Bitboard occ);
static inline bool position_attacked(const Position *pos, Color c, Square sq) {
    return position_attackers_to(pos, c, sq, position_occupied(pos)) != 0;
}

/* Plays m, which must be legal, saving undo data in new_st (caller-owned, must outlive
 * the matching undo). */
void position_do_move(Position *pos, Move m, StateInfo *new_st);
void position_undo_move(Position *pos, Move m);
/* Passes the move (for null-move pruning); the side to move must not be in check. */
void position_do_null_move(Position *pos, StateInfo *new_st);
void position_undo_null_move(Position *pos);

/* True when the pseudo-legal move m (from the generators) leaves our king safe. */
bool position_is_legal(const Position *pos, Move m);
/* Full validation of a move of unknown origin (USI, books, records, hash tables):
 * returns the 32-bit move when m16 is legal here, MOVE_NONE otherwise. Never trusts m16. */
Move position_legal_move_from16(const Position *pos, Move16 m16);
/* True when the pseudo-legal move m gives check. */
bool position_gives_check(const Position *pos, Move m);
/* True when dropping a pawn on sq (which checks the enemy king) is checkmate, which the
 * rules forbid (uchifuzume). */
bool position_pawn_drop_mates(const Position *pos, Square sq);
/* The material on the board and in hand for colour c, by unpromoted type, for tests and
 * the entering-king count. */
int position_count_pieces(const Position *pos, Color c, PieceType unpromoted);

/* Writes a board diagram in SFEN-like letters, files 9..1 left to right, with hands and
 * side to move, into buf (at least 512 bytes). Returns buf. */
char *position_to_diagram(const Position *pos, char *buf);

/* Consistency check of the incremental data against a recomputation (tests, debug). */
bool position_is_consistent(const Position *pos);

/* Zobrist parts, exposed for incremental users (the book key, the hash table). */
Key zobrist_piece(Piece pc, Square sq);
Key zobrist_hand(Color c, PieceType pt);
extern const Key ZOBRIST_SIDE;

#endif
