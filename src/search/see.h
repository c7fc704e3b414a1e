/* see.h - static exchange evaluation. */
#ifndef HAYANAGI_SEARCH_SEE_H
#define HAYANAGI_SEARCH_SEE_H

#include "shogi/position.h"

/* True when the exchange started by the pseudo-legal move m on its destination square
 * gains at least threshold (in PIECE_VALUE units), both sides capturing with their
 * least valuable attacker first. Pins are ignored; promotions are not counted. */
bool see_ge(const Position *pos, Move m, int threshold);

#endif
