/* engine_pool.h - the searcher interface (searcher.h) over a pool of external USI
 * engines: `book think --engine CMD ...` and `book expand --engine CMD ...`.
 *
 * Each command is one slot and one engine process (match/engine_proc.h: run through
 * /bin/sh -c when it holds shell syntax, so `ssh host /path/engine` is a remote engine).
 * A slot starts its engine on first use through match/usi_client.h: `usi`, the options
 * it declares, `isready` (one handshake deadline for both waits), `usinewgame`. An engine
 * that never completes a handshake is retired at its first failure, and its position is
 * not counted as failed (SearchAnswer.engine_fault). Each position is `position sfen ...` and
 * `go ...` (with newgame_each, after `isready` and `usinewgame` again); info lines are
 * read with match/usi_info.h against the position, and the last complete line per
 * multipv index is the answer.
 *
 * Faults: an engine that exits, crashes, prints an illegal bestmove with no usable PV,
 * or gives no bestmove within the timeout is killed (quit, SIGTERM, SIGKILL) and its
 * position goes back to the caller's queue (SEARCH_RETRY); the slot restarts it after a
 * back-off (100 ms doubling up to 10 s). After max_failures failures in a row the slot is
 * retired (SEARCH_RETIRED) with a message naming the command, the reason and the
 * engine's last stderr line. An engine without a MultiPV option gives one move per
 * position; that is said once on the warning stream.
 *
 * Ownership: the pool borrows cmds and options (they must outlive it).
 */
#ifndef HAYANAGI_BOOKGEN_ENGINE_POOL_H
#define HAYANAGI_BOOKGEN_ENGINE_POOL_H

#include <stdio.h>

#include "bookgen/searcher.h"
#include "match/usi_client.h"

typedef struct {
    const char *const *cmds; /* one engine per command */
    int n_cmds;
    const EngineOption *options; /* sent to every engine that declares them, in order */
    int n_options;
    int64_t timeout_ms; /* per position; 0: a generous multiple of the budget (engine_pool_default_timeout) */
    int64_t startup_ms; /* the handshake deadline (usiok, readyok); 0: USI_HANDSHAKE_MS */
    int max_failures;   /* failures in a row before a slot retires; 0: 3 */
    bool newgame_each;  /* `isready` (readyok awaited) and `usinewgame` before every position,
                           so an engine that clears its hash there answers each position the
                           same whatever it searched before (order- and split-independent) */
    FILE *warn;         /* warnings and restart notices (stderr when NULL) */
    bool quiet;         /* no restart notices */
} EnginePoolOptions;

/* The timeout used when none is given: 10 x movetime + 30 s for a movetime budget, 5
 * minutes otherwise. */
int64_t engine_pool_default_timeout(const SearchBudget *b);

/* A pool of o->n_cmds slots (at most 256). Starts nothing yet. NULL when memory runs out
 * or there is no command (reason in err). */
Searcher *engine_pool_create(const EnginePoolOptions *o, char *err, size_t err_len);

#endif
