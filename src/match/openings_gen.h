/* openings_gen.h - the one random-openings generator, shared by `hayanagi book openings`
 * (short distinct start lines for matches) and `hayanagi tune openings` (balanced ones:
 * the caller's keep() runs a short search).
 *
 * Each line is min..max random legal plies from the start position; a line is kept when
 * every ply had a legal move, the end position is an ongoing game (position_game_state),
 * it was not reached by an earlier kept line (its position key), and keep() (when given)
 * accepts it. Deterministic for a seed and options. */
#ifndef HAYANAGI_MATCH_OPENINGS_GEN_H
#define HAYANAGI_MATCH_OPENINGS_GEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "match/openings.h"
#include "shogi/game.h"
#include "util/progress.h"

enum { OPENINGS_GEN_MAX_PLIES = 60 };

typedef struct {
    int count;                /* lines wanted (>= 1) */
    int min_plies, max_plies; /* 0 <= min_plies <= max_plies <= OPENINGS_GEN_MAX_PLIES */
    uint64_t seed;
    int tries_per_line; /* gives up after count * tries_per_line attempts (>= 1) */
    /* Optional: called with the end position of a candidate; true keeps it. */
    bool (*keep)(void *ctx, const Game *g);
    void *ctx;
    Progress *progress;                /* optional, started by the caller; updated with the lines kept */
    const volatile sig_atomic_t *stop; /* optional: when set, returns what it has */
} OpeningsGenOptions;

/* Fills *out (initialised here, owned by the caller: openings_free()) with up to
 * opt->count "startpos moves ..." lines. *tries (may be NULL) gets the attempts made.
 * Returns false only when out of memory (out is then empty); fewer lines than asked is
 * not an error (the caller reports out->n). */
bool openings_generate(const OpeningsGenOptions *opt, Openings *out, int *tries);

#endif
