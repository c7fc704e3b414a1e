/* info.h - what a searcher reports while it thinks: one SearchInfo per line of progress
 * (a PV line of a depth, a MultiPV line, a message), handed to the caller's
 * SearchReporter.info callback. Searchers never write protocol text: the USI layer turns
 * a SearchInfo into an `info` line (usi/info_text.h), and in-process consumers (book
 * think and expand, the tuner, tests) read the fields.
 *
 * Scores are from the side to move's view. A SearchInfo and its pv array belong to the
 * searcher and are valid only during the callback. */
#ifndef HAYANAGI_SEARCH_INFO_H
#define HAYANAGI_SEARCH_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shogi/types.h"

typedef enum {
    INFO_SCORE_NONE,  /* no score in this report */
    INFO_SCORE_CP,    /* score is centipawns */
    INFO_SCORE_MATE,  /* the side to move mates in score plies */
    INFO_SCORE_MATED, /* the side to move is mated in score plies (0: it is mated now) */
} InfoScoreKind;

typedef enum { INFO_BOUND_EXACT, INFO_BOUND_LOWER, INFO_BOUND_UPPER } InfoBound;

typedef struct {
    const char *text; /* non-NULL: a message for the user (USI `info string`); nothing else is set */
    int depth;        /* the iteration's depth (MCTS: the PV's length) */
    int seldepth;     /* deepest ply reached; -1 when not reported */
    int multipv;      /* 1-based line of a MultiPV search; 0 in a single-PV search */
    InfoScoreKind score_kind;
    int score; /* centipawns or plies, as score_kind says */
    InfoBound bound;
    uint64_t nodes;
    int64_t nps;     /* nodes per second; -1 when not reported */
    int64_t time_ms; /* since the search started; -1 when not reported */
    int hashfull;    /* permille of the table in use; -1 when not reported */
    const Move *pv;  /* the principal variation, pv_length moves; NULL when none is reported */
    int pv_length;
} SearchInfo;

/* A report with nothing in it yet: every optional field marked "not reported". */
static inline SearchInfo search_info_empty(void) {
    SearchInfo in = {NULL, 0, -1, 0, INFO_SCORE_NONE, 0, INFO_BOUND_EXACT, 0, -1, -1, -1, NULL, 0};
    return in;
}

/* A message report (USI `info string <text>`); text must outlive the callback. */
static inline SearchInfo search_info_text(const char *text) {
    SearchInfo in = search_info_empty();
    in.text = text;
    return in;
}

/* Sets in's score from a search value: VALUE_MATE - n becomes "mate in n plies",
 * -VALUE_MATE + n "mated in n plies", anything else centipawns. */
void search_info_set_value(SearchInfo *in, Value v);

#endif
