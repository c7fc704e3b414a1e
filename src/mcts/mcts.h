/* mcts.h - the MCTS searcher: PUCT playouts over a shared tree (tree.h) evaluated by a
 * provider (provider.h), with the USI semantics of the alpha-beta Search (search.h).
 *
 * An MctsSearch is the engine's MCTS singleton: it owns the tree, which is kept between
 * moves (when the new position follows the old root by played moves, that subtree
 * becomes the root), and the search threads. mcts_go() returns at once; the search
 * reports through a SearchReporter and ends with exactly one bestmove, held back while
 * pondering or in infinite mode until stop/ponderhit, like search_go().
 *
 * Limits. `go nodes N` counts playouts; `go depth D` stops once a playout went D plies
 * deep; the clock follows timeman_budget() (stop at the optimum time, never past the
 * maximum); the search also ends when the root is proven or the tree is full. MultiPV is
 * not supported (one PV). searchmoves restricts the root moves.
 *
 * Info lines: `info depth <PV length> seldepth <deepest playout> score cp <value_to_score of
 * the best move's win rate> nodes <playouts> nps <playouts per second> time <ms>
 * hashfull <per mille of the node store> pv ...`, followed by `info string mcts visits
 * <the best move's visits> winrate <its win rate>`.
 */
#ifndef HAYANAGI_MCTS_MCTS_H
#define HAYANAGI_MCTS_MCTS_H

#include <signal.h>

#include "mcts/provider.h"
#include "mcts/tree.h"
#include "search/search.h"

typedef struct {
    MctsParams params;
    int threads;    /* 1..MAX_THREADS */
    size_t tree_mb; /* the node store's memory */
    bool reuse_tree;
    EnteringKingRule entering_king_rule;
    int max_moves_to_draw; /* 0 = no limit */
    int resign_value;      /* resign when the best move's score is at or below -resign_value */
    TimeOptions time;
    int info_interval_ms;                 /* between info lines; 0 = only the last */
    volatile sig_atomic_t *external_stop; /* when non-NULL and set (a signal handler), the search ends */
} MctsOptions;

/* Defaults: mcts_params_default(), 1 thread, 64 MB, reuse on, CSARule27, no resignation,
 * search_options_default()'s time options, info every second. */
void mcts_options_default(MctsOptions *o);

typedef struct {
    Move best, ponder;
    double winrate;     /* the best move's mean result, mover's view */
    uint32_t visits;    /* the best move's visits */
    uint64_t playouts;  /* this search's playouts */
    uint64_t evaluated; /* the provider's nodes */
    int64_t time_ms;
    int root_proof; /* MCTS_PROVEN_* of the root */
} MctsResult;

typedef struct MctsSearch MctsSearch;

/* A searcher with no tree yet (made at the first search); NULL when out of memory. */
MctsSearch *mcts_create(void);
/* Stops any running search and frees everything. NULL is a no-op. */
void mcts_destroy(MctsSearch *m);
/* Forgets the tree (usinewgame, or a change of provider). */
void mcts_clear(MctsSearch *m);

/* Starts searching g's current position with provider p; returns at once. g is copied;
 * p's context must outlive the search. */
void mcts_go(MctsSearch *m, const Game *g, const SearchLimits *limits, const MctsOptions *o, MctsProvider p,
             const SearchReporter *reporter);
/* Searches synchronously (ponder and infinite ignored) and returns the result; reporter
 * may be NULL. */
MctsResult mcts_run(MctsSearch *m, const Game *g, const SearchLimits *limits, const MctsOptions *o, MctsProvider p,
                    const SearchReporter *reporter);
void mcts_stop(MctsSearch *m);
void mcts_ponderhit(MctsSearch *m);
void mcts_wait(MctsSearch *m);
bool mcts_is_running(MctsSearch *m);

/* The tree of the last search (read it only while no search runs). */
MctsTree *mcts_tree(MctsSearch *m);

#endif
