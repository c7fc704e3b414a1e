/* notation.h - USI move text ("7g7f", "8h2b+", "P*5e") in and out. */
#ifndef HAYANAGI_SHOGI_NOTATION_H
#define HAYANAGI_SHOGI_NOTATION_H

#include "shogi/position.h"

enum { USI_MOVE_MAX = 8 }; /* longest text written, "resign" plus the NUL */

/* Writes the USI text of m into buf (USI_MOVE_MAX bytes): a move, or "none", "0000"
 * (null move), "resign", "win". Returns buf. */
char *move_to_usi(Move m, char *buf);

/* Parses USI move text of exactly len bytes into a Move16 without consulting any
 * position. Returns false for anything that is not a well-formed move (the special
 * words included). */
bool move16_from_usi(const char *text, size_t len, Move16 *out);

/* Parses text (NUL-terminated) as a move and validates it in pos. Returns the legal
 * 32-bit move, or MOVE_NONE when the text is malformed or the move is illegal. */
Move position_parse_usi_move(const Position *pos, const char *text);

#endif
