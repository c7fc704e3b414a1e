/* info_text.h - the one USI formatter of a searcher's reports: alpha-beta, MCTS and the
 * root mate search all hand SearchInfo structs (search/info.h) to the USI layer, which
 * writes them with usi_info_text(). */
#ifndef HAYANAGI_USI_INFO_TEXT_H
#define HAYANAGI_USI_INFO_TEXT_H

#include <stddef.h>

#include "search/info.h"

/* Room for any line usi_info_text() writes (a full-length PV fits). */
enum { USI_INFO_TEXT_MAX = 8192 };

/* Writes the USI line of in, without the newline, into buf (len bytes, caller-owned):
 * `info string <text>` for a message, else
 * `info depth D [seldepth S] [score (cp V | mate N | mate -N) [lowerbound | upperbound]]
 * [multipv K] nodes N [nps N] [hashfull H] [time T] [pv M...]`, each bracketed field only
 * when reported. PV moves that do not fit are left out (never a partial move). Returns
 * buf. */
char *usi_info_text(const SearchInfo *in, char *buf, size_t len);

#endif
