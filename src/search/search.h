/* search.h - the alpha-beta engine: iterative deepening PVS with a shared
 * transposition table, run by one or more threads (Lazy SMP).
 *
 * A Search is the engine's searcher singleton: it owns the hash table, the per-thread
 * histories and the threads. search_go() returns at once; the search reports through
 * the caller's SearchReporter from its own thread and ends with exactly one bestmove
 * report, held back while pondering or in infinite mode until stop/ponderhit.
 */
#ifndef HAYANAGI_SEARCH_SEARCH_H
#define HAYANAGI_SEARCH_SEARCH_H

#include <stddef.h>

#include "search/info.h"
#include "search/timeman.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/rules.h"
#include "util/clock.h"

enum { MAX_THREADS = 128, MAX_MULTIPV = 32 };

#define VALUE_MATE_IN_MAX_PLY  (VALUE_MATE - MAX_PLY)
#define VALUE_MATED_IN_MAX_PLY (-VALUE_MATE_IN_MAX_PLY)
/* What a won repetition (perpetual check by the opponent) or a declaration is worth. */
#define VALUE_KNOWN_WIN (VALUE_MATE_IN_MAX_PLY - 1)

static inline Value mate_in(int ply) { return VALUE_MATE - ply; }
static inline Value mated_in(int ply) { return -VALUE_MATE + ply; }

typedef struct {
    int depth;                                                /* 0 = no limit */
    uint64_t nodes;                                           /* 0 = no limit */
    bool infinite;                                            /* search until stop */
    bool ponder;                                              /* go ponder: the clock starts at ponderhit */
    int64_t time[COLOR_NB], inc[COLOR_NB], byoyomi, movetime; /* milliseconds; 0 = absent */
    Move16 searchmoves[MAX_MOVES];
    int searchmoves_count;
    bool mate;          /* go mate: solve with df-pn instead of searching */
    int64_t mate_ms;    /* its time limit; 0 = until stop (go mate infinite) */
    double received_ms; /* search_now_ms() when the go command was read; 0 = when the search starts */
    bool timed;         /* a time field (btime, wtime, binc, winc, byoyomi, movetime) was given: zero
                           values then mean the least time, not no limit */
} SearchLimits;

typedef struct {
    int multipv;
    int threads;
    EnteringKingRule entering_king_rule;
    int max_moves_to_draw; /* 0 = no limit */
    int resign_value;      /* resign when the best score is at or below -resign_value */
    TimeOptions time;
} SearchOptions;

/* Fills o with the defaults of every option (MultiPV 1, Threads 1, CSARule27, ...). */
void search_options_default(SearchOptions *o);

typedef struct {
    /* One report of progress (search/info.h): a PV line, a MultiPV line or a message.
     * The searcher writes no protocol text; the USI layer formats it (usi/info_text.h). */
    void (*info)(void *ctx, const SearchInfo *info);
    /* The final answer: best is a legal move, MOVE_RESIGN or MOVE_WIN; ponder is a
     * legal reply to best or MOVE_NONE. */
    void (*bestmove)(void *ctx, Move best, Move ponder);
    /* The answer to go mate: status 0 = mate found (pv, len), 1 = no mate, 2 = timeout. */
    void (*checkmate)(void *ctx, const Move *pv, int len, int status);
    void *ctx;
} SearchReporter;

typedef struct {
    Move best, ponder;
    Value score;
    int depth;
    uint64_t nodes;
    int64_t time_ms;
} SearchResult;

typedef struct Search Search;

/* Creates a searcher with a hash table of hash_mb megabytes; NULL when out of memory. */
Search *search_create(size_t hash_mb);
/* Stops any running search and frees everything. */
void search_destroy(Search *s);
/* Resizes the hash table, stopping a running search first. False when the memory cannot
 * be had (the old table stays). */
bool search_set_hash(Search *s, size_t mb);
/* Forgets everything learned (hash table, histories): for usinewgame. Does nothing but
 * stop a running search when no search has run since the last clear, so the USI layer
 * clears at gameover and isready, outside the clock, and usinewgame is then free (a
 * 256 MB table takes long enough to clear under load to lose a 200 ms byoyomi move). */
void search_clear(Search *s);

/* Starts searching g's current position; returns at once. g is copied. */
void search_go(Search *s, const Game *g, const SearchLimits *limits, const SearchOptions *opt,
               const SearchReporter *reporter);
/* Asks the running search to stop; its bestmove report follows. No-op when idle. */
void search_stop(Search *s);
/* The opponent played the pondered move: start the clock and go on normally. */
void search_ponderhit(Search *s);
/* Waits until the running search has reported its bestmove. */
void search_wait(Search *s);
/* True while a search has not yet given its bestmove; one that has answered is joined
 * here and no longer counts as running. Call from the thread that calls search_go. */
bool search_is_running(Search *s);

/* Searches synchronously (no bestmove held back) and returns the result; reporter may
 * be NULL. For bench, tests and the book tools. */
SearchResult search_run(Search *s, const Game *g, const SearchLimits *limits, const SearchOptions *opt,
                        const SearchReporter *reporter);

/* Milliseconds on the monotonic clock (shared by every searcher's time keeping): the one
 * clock of util/clock.h under the name the searchers use. */
static inline double search_now_ms(void) { return clock_now_ms(); }

/* Total nodes of the last (or running) search. */
uint64_t search_nodes(Search *s);
int search_hashfull(Search *s);

/* ---- probes: a quiescence value without a full search (MCTS providers, tools) ----
 * A SearchProbe owns one single-threaded worker and a small hash table of its own; it is
 * not shared between threads. */
typedef struct SearchProbe SearchProbe;

/* Creates a probe with a hash table of hash_mb megabytes that follows opt's rules
 * (entering-king rule, move limit); NULL when out of memory. */
SearchProbe *search_probe_create(size_t hash_mb, const SearchOptions *opt);
/* Frees the probe. NULL is a no-op. */
void search_probe_destroy(SearchProbe *p);
/* The quiescence-search value of pos from the side to move's view (centipawns; mates as
 * mate_in/mated_in). pos is read only; its history (st->previous) is used for
 * repetitions. Counts the nodes visited in *nodes when non-null. */
Value search_probe_qsearch(SearchProbe *p, const Position *pos, uint64_t *nodes);

#endif
