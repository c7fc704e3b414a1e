/* usi_info.h - the one parser of what a USI engine says while and after it thinks:
 * `info ...` lines and the `bestmove` line. The match runner (match/engine_proc.c) and
 * the book-making engine pool (bookgen/engine_pool.c) both read engines through it.
 *
 * Fields are read in any order (YaneuraOu writes depth first, dlshogi nps first); a
 * field the parser does not know is skipped one word at a time; `string` takes the rest
 * of the line; `pv` takes the rest of the line as moves. A number that is not a whole
 * decimal number in range (depth 1.5, nodes -1, nodes 99999999999999999999999) makes
 * the line malformed: nothing of it is used. Moves are validated against a position
 * when one is given: the PV keeps its legal prefix, and an illegal move is counted
 * (pv_illegal), never stored.
 *
 * No allocation: a UsiInfo is a plain value.
 */
#ifndef HAYANAGI_MATCH_USI_INFO_H
#define HAYANAGI_MATCH_USI_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/position.h"

enum {
    USI_INFO_PV_MAX = 64,         /* PV moves kept; the rest are dropped (pv_truncated) */
    USI_INFO_MULTIPV_MAX = 1000,  /* a larger multipv index makes the line malformed */
    USI_INFO_MATE_UNKNOWN = 1000, /* plies used for `mate +` / `mate -` (length unknown) */
};

typedef enum { USI_BOUND_EXACT, USI_BOUND_LOWER, USI_BOUND_UPPER } UsiBound;

typedef struct {
    bool has_multipv, has_score, has_depth, has_seldepth, has_nodes, has_nps, has_time, has_hashfull;
    bool is_string;    /* `info string ...`: nothing else is meaningful */
    int multipv;       /* 1 when absent */
    bool score_mate;   /* score is plies to mate; > 0: the side to move mates */
    bool mate_unknown; /* `mate +` / `mate -`: score is +-USI_INFO_MATE_UNKNOWN */
    bool mated;        /* a mate score written with a minus sign (`mate -0`: mated now) */
    int score;         /* centipawns (clamped to +-1000000) or plies to mate */
    UsiBound bound;    /* lowerbound / upperbound after the score */
    int depth, seldepth;
    uint64_t nodes, nps, time_ms;
    int hashfull;
    int pv_len;               /* moves kept in pv[] (legal ones when a position was given) */
    bool has_pv;              /* the line had a `pv` field (even an empty one) */
    bool pv_illegal;          /* a PV move was malformed or illegal: the PV stops before it */
    bool pv_truncated;        /* more than USI_INFO_PV_MAX moves */
    Move pv[USI_INFO_PV_MAX]; /* with a position: legal 32-bit moves; without: Move16 values */
} UsiInfo;

/* Parses one line. Returns false (with the reason in why, when non-NULL) for a line that
 * is not `info ...` or is malformed; *out is then unspecified. When pos is non-NULL the
 * PV is validated move by move from pos (moves are played on pos and undone again: pos
 * is unchanged on return). */
bool usi_info_parse(const char *line, Position *pos, UsiInfo *out, char *why, size_t why_len);

/* True when the info is a usable PV line: a score that is not a bound, a depth, and at
 * least one (legal, if checked) PV move. Lines that fail this are progress reports. */
bool usi_info_is_complete(const UsiInfo *in);

typedef enum {
    USI_BESTMOVE_NO,     /* not a bestmove line */
    USI_BESTMOVE_MOVE,   /* a move; *best (and *ponder, or MOVE_NONE) filled */
    USI_BESTMOVE_RESIGN, /* `bestmove resign` */
    USI_BESTMOVE_WIN,    /* `bestmove win` (entering-king declaration) */
    USI_BESTMOVE_BAD     /* `bestmove` followed by nothing, garbage or an illegal move */
} UsiBestmove;

/* Reads a `bestmove X [ponder Y]` line. With pos non-NULL the move must be legal in pos
 * (and the ponder move legal after it, else ponder is MOVE_NONE); without, *best holds
 * the Move16 value. */
UsiBestmove usi_bestmove_parse(const char *line, Position *pos, Move *best, Move *ponder);

#endif
