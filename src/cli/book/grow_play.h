/* grow_play.h - the games of `hayanagi book grow` (cli/book/grow.c): rounds of matches
 * (match/match.h) against each opponent in turn, colours alternating; while a game is in
 * the tree (bookgen/grow.h) the tree policy chooses the player's moves. Each finished game
 * is written to its own file in the records directory (grow-NNNNNN.csa, its event
 * GROW_EVENT and its number), then added to the tree, so the tree in play is the one the
 * next run loads; a game an engine crashed or hung in is dropped. Progress on stderr. A
 * helper of src/cli/book/: includes no verb. */
#ifndef HAYANAGI_CLI_BOOK_GROW_PLAY_H
#define HAYANAGI_CLI_BOOK_GROW_PLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "bookgen/grow.h"
#include "match/clock.h"
#include "match/engine_proc.h"
#include "match/openings.h"

enum { GROW_MAX_OPPONENTS = 16, GROW_MAX_OPTIONS = 64 };

/* The engines, their options and clocks: filled in by the verb, read by grow_play(). */
typedef struct {
    const char *cmd[GROW_MAX_OPPONENTS + 1]; /* [0] the player, then the opponents */
    int n_opponents;
    EngineOption opts[2][GROW_MAX_OPTIONS]; /* the player's, the opponents' */
    int n_opts[2];
    char *storage[2 * GROW_MAX_OPTIONS];
    int n_storage;
    const char *go_extra[3]; /* both, player, opponent */
    TimeControl tc[2];       /* the player's clock, the opponents' (match/clock.h) */
    int concurrency, max_moves;
    long long grace[2];  /* the player's, the opponents' allowance over the clock */
    bool swap_clocks[2]; /* the player's, the opponents' go lines with the sides' figures swapped */
    long long move_timeout;
    bool engine_stderr;
    Openings startmoves;
    const char *player_name;
} GrowPlaySetup;

/* Where the games go and how the tree opens them: set by the caller. */
typedef struct {
    GrowTree *tree;      /* the tree of IN and DIR; each kept game is added */
    const char *dir;     /* the records directory, which exists */
    int next_file;       /* the number of the next grow-NNNNNN.csa */
    int max_ply;         /* the tree chooses the player's moves before this ply */
    int jitter;          /* --nodes-jitter, percent */
    bool widen;          /* --widen > 0, or the root's moves restricted: the tree may name searchmoves */
    uint64_t seed;       /* --seed (the node budgets' draw) */
    uint64_t have, goal; /* games in DIR, games wanted */
    bool quiet;          /* no progress bar or lines */
} GrowPlayTarget;

/* Plays until DIR holds t->goal games, the user interrupts (the games in flight are
 * not counted), or something fails; *played gets the games this run kept. Returns 0, 1
 * (an engine failed, a game could not be written, every game of a match was dropped,
 * memory ran out; the reason on stderr) or INTERRUPT_EXIT_STATUS. */
int grow_play(const GrowPlaySetup *ps, const GrowPlayTarget *t, uint64_t *played);

#endif
