/* notation.c - USI move notation. */
#include "shogi/notation.h"

#include <string.h>

static const char DROP_LETTERS[] = " PLNSBRG"; /* index = piece type PAWN..GOLD */

char *move_to_usi(Move m, char *buf) {
    Move16 m16 = (Move16)m;
    if (m16 == MOVE_NONE)
        return strcpy(buf, "none");
    if (m16 == MOVE_NULL)
        return strcpy(buf, "0000");
    if (m16 == MOVE_RESIGN)
        return strcpy(buf, "resign");
    if (m16 == MOVE_WIN)
        return strcpy(buf, "win");
    Square to = move_to(m);
    char *p = buf;
    if (move_is_drop(m)) {
        PieceType pt = move_dropped_type(m);
        *p++ = pt >= PAWN && pt <= GOLD ? DROP_LETTERS[pt] : '?';
        *p++ = '*';
    } else {
        Square from = move_from(m);
        *p++ = (char)('1' + square_file(from));
        *p++ = (char)('a' + square_rank(from));
    }
    *p++ = (char)('1' + square_file(to));
    *p++ = (char)('a' + square_rank(to));
    if (move_is_promotion(m))
        *p++ = '+';
    *p = '\0';
    return buf;
}

static bool parse_square(const char *s, Square *sq) {
    if (s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i')
        return false;
    *sq = square_make(s[0] - '1', s[1] - 'a');
    return true;
}

bool move16_from_usi(const char *text, size_t len, Move16 *out) {
    Square from, to;
    if (len == 4 && text[1] == '*') {
        const char *p = text[0] ? strchr(DROP_LETTERS + 1, text[0]) : NULL;
        if (!p || !parse_square(text + 2, &to))
            return false;
        *out = (Move16)(to | ((p - DROP_LETTERS) << 7) | MOVE_DROP);
        return true;
    }
    if ((len == 4 || (len == 5 && text[4] == '+')) && parse_square(text, &from) && parse_square(text + 2, &to)) {
        if (from == to)
            return false;
        *out = (Move16)(to | (from << 7) | (len == 5 ? MOVE_PROMOTE : 0));
        return true;
    }
    return false;
}

Move position_parse_usi_move(const Position *pos, const char *text) {
    Move16 m16;
    if (!move16_from_usi(text, strlen(text), &m16))
        return MOVE_NONE;
    return position_legal_move_from16(pos, m16);
}
