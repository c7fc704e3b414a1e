/* root.h - what the two searchers (alpha-beta, search/driver.c; MCTS, mcts/mcts.c) share
 * at the root: the search thread's life (start, stop, ponderhit, wait), holding the answer
 * while pondering or in infinite mode, and the decisions taken before or after searching
 * (a declaration, no legal move, a forced move, resigning). One place for these rules, so
 * both searchers answer `go`, `stop` and `ponderhit` the same way.
 *
 * A RootControl points at the searcher's own stop and ponder flags and clock origin (the
 * searcher's threads poll those directly); it owns the thread, a lock and a condition. */
#ifndef HAYANAGI_SEARCH_ROOT_H
#define HAYANAGI_SEARCH_ROOT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "search/search.h"

typedef struct {
    atomic_bool *stop;   /* the searcher's stop flag: set by stop, and by the searcher at its end */
    atomic_bool *ponder; /* the searcher's "still pondering" flag: cleared by ponderhit */
    double *start_ms;    /* the searcher's clock origin: reset by ponderhit */
    bool infinite;       /* this search is `go infinite`: its answer waits for stop */
    pthread_t thread;
    bool running; /* a search thread exists and has not been joined */
    pthread_mutex_t lock;
    pthread_cond_t cond;
} RootControl;

/* Sets c up for a searcher whose flags and clock origin are *stop, *ponder and *start_ms
 * (they must outlive c). */
void root_control_init(RootControl *c, atomic_bool *stop, atomic_bool *ponder, double *start_ms);
/* Releases the lock and condition (the thread must have been waited for). */
void root_control_destroy(RootControl *c);

/* Arms c for a new search with these limits: clears stop, sets ponder and infinite from
 * the limits and the clock origin to the moment `go` was read (limits->received_ms, when
 * set and not in the future) or now. */
void root_control_arm(RootControl *c, const SearchLimits *limits);
/* Runs fn(arg) on a new search thread; when no thread can be had, runs it here,
 * synchronously, and returns false. */
bool root_control_start(RootControl *c, void *(*fn)(void *), void *arg);
/* Asks the search to stop; its answer follows. No-op when idle. */
void root_control_stop(RootControl *c);
/* The opponent played the pondered move: the clock starts now and the search goes on
 * normally. */
void root_control_ponderhit(RootControl *c);
/* Waits until the search thread has ended (it has given its answer). */
void root_control_wait(RootControl *c);
/* True while a search thread exists that has not been waited for. */
bool root_control_running(const RootControl *c);
/* On the search thread: waits while the answer must be held (pondering or `go infinite`)
 * until stop or ponderhit. */
void root_control_hold(RootControl *c);

/* On the search thread: waits until stop (for `go mate infinite`, whose answer waits for
 * stop whatever ponderhit says). */
void root_control_hold_until_stop(RootControl *c);

/* The answer the rules give at the root before any search: the declaration under ekr
 * (MOVE_WIN, or the Try rule's winning king move), else MOVE_RESIGN when there is no legal
 * move (legal_count 0), else MOVE_NONE (search). */
Move root_rule_answer(const Position *pos, EnteringKingRule ekr, int legal_count);

/* True when the only legal move may be played without searching: a timed `go` (a budget
 * with a hard limit), not pondering, not infinite, with no depth or node limit. */
bool root_forced_move(int legal_count, const SearchLimits *limits, const TimeBudget *budget, bool pondering);

/* True when score (centipawns, the side to move's view) says resign under ResignValue
 * resign_value (99999, or anything from 32000 up, never resigns). */
bool root_should_resign(int score, int resign_value);

#endif
