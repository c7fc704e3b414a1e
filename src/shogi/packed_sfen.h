/* packed_sfen.h - YaneuraOu's 32-byte PackedSfen position encoding, bit-exact.
 *
 * The format (YaneuraOu source/extra/sfen_packer.cpp, which follows cshogi) is a
 * 256-bit stream written least significant bit first: bit i of the stream is bit
 * (i % 8) of byte i / 8. In stream order:
 *   1. the side to move, 1 bit (0 black, 1 white);
 *   2. the black and then the white king square, 7 bits each (sq = file * 9 + rank,
 *      the layout of types.h); YaneuraOu writes 81 for a missing king;
 *   3. every square 0..80 except the two king squares, as a Huffman code
 *      (empty 0; pawn 10, lance 1100, knight 1101, silver 1110, gold 11110, bishop
 *      111110, rook 111111, in stream order) followed, for a piece, by a promotion bit
 *      (not for gold) and a colour bit;
 *   4. the pieces in hand, black's then white's, each as its board code minus the first
 *      bit, a promotion bit that is always 0 and a colour bit, in the order pawn, lance,
 *      knight, silver, gold, bishop, rook;
 *   5. the pieces of a full set that are neither on the board nor in hand (the "piece
 *      box": handicap games, tsume problems), in the same order, written as hand codes
 *      with the promotion bit 1 and colour 0, except that a boxed gold, which has no
 *      promotion bit, is written as a white promoted silver.
 * Each piece costs as many bits wherever it is, so every position fills 256 bits exactly.
 * The move number is not stored.
 *
 * Older YaneuraOu versions wrote hands in YaneuraOu's enum order (... silver, bishop, rook,
 * gold) and had no piece box; the decoder takes hand entries in any order, so training data
 * written by them still decodes. */
#ifndef HAYANAGI_SHOGI_PACKED_SFEN_H
#define HAYANAGI_SHOGI_PACKED_SFEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/position.h"

typedef struct {
    uint8_t data[32];
} PackedSfen;

/* Encodes pos into *out (caller-owned; every byte is written). The result is the
 * canonical encoding, byte for byte what YaneuraOu's Position::sfen_pack() and cshogi's
 * Board.to_psfen() produce, so it can serve as a book or index key. pos must be a valid
 * position, e.g. one from position_from_sfen() or reached by legal moves. */
void packed_sfen_encode(const Position *pos, PackedSfen *out);

/* Encodes the colour-flipped position of pos (board rotated 180 degrees, colours and hands
 * swapped, the other side to move) into *out, as packed_sfen_encode() would encode that
 * position: the same bytes as packed_sfen_flip() of pos's encoding, without decoding. */
void packed_sfen_encode_flipped(const Position *pos, PackedSfen *out);

/* Decodes *in, which may be hostile, into *pos and *st (caller-owned, as for
 * position_from_sfen()). ply is the SFEN move number to give the position, as the format
 * stores none; values below 1 become 1, values above 1000000 are refused like in
 * position_from_sfen(). Returns true on success. Returns false, with a reason in err (if
 * non-null, truncated to err_len bytes), for a king square off the board or missing
 * (one-king tsume positions do not fit our Position), both kings on one square, more
 * pieces of a kind than a full set, a piece box that does not hold exactly the missing
 * pieces, a promoted white piece in hand other than the boxed-gold code, codes crossing
 * the end of the 256 bits, or anything position_from_sfen() refuses. Hand and box
 * entries are accepted in any order, as YaneuraOu accepts them, so a successful decode
 * need not re-encode to the same bytes: re-encode before using bytes as a key. Rule
 * violations (nifu, the side not to move in check) are not checked here: see
 * position_legality_report(). On failure *pos is unspecified. Never reads outside *in. */
bool packed_sfen_decode(const PackedSfen *in, Position *pos, StateInfo *st, int ply, char *err, size_t err_len);

/* The same decoder by the first route: the checked bits printed as SFEN and parsed by
 * position_from_sfen(). Accepts and refuses exactly what packed_sfen_decode() does (with
 * other wording) and gives the same position, several times slower; kept as the reference
 * the tests compare the direct decoder with. */
bool packed_sfen_decode_via_sfen(const PackedSfen *in, Position *pos, StateInfo *st, int ply, char *err,
                                 size_t err_len);

/* The encoding of the colour-flipped position of *in (board rotated 180 degrees, every
 * piece's colour and the hands swapped, the other side to move), into *out, without
 * building a Position. Returns false (out unspecified) for exactly the inputs
 * packed_sfen_decode() refuses. The result is canonical (as packed_sfen_encode() writes
 * it), even when *in lists its hands in another order. */
bool packed_sfen_flip(const PackedSfen *in, PackedSfen *out);

/* The position_key() the decoded position would have (*key) and that of its colour-flipped
 * twin (*flipped_key), without building either Position: for indexes that meet positions
 * reached by moves. Returns false (keys unspecified) for exactly the inputs
 * packed_sfen_decode() refuses. */
bool packed_sfen_keys(const PackedSfen *in, Key *key, Key *flipped_key);

/* Orders encodings as memcmp() orders their bytes, for sorted indexes: returns a
 * negative value, zero or a positive value when *a sorts before, equal to or after *b. */
int packed_sfen_compare(const PackedSfen *a, const PackedSfen *b);

#endif
