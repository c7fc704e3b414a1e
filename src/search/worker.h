/* worker.h - what one search thread owns, shared by search.c, movepick.c and the
 * driver. Not part of the public interface. */
#ifndef HAYANAGI_SEARCH_WORKER_H
#define HAYANAGI_SEARCH_WORKER_H

#include <pthread.h>
#include <stdatomic.h>

#include "eval/eval.h"
#include "search/search.h"
#include "search/tt.h"

enum { CONT_INDEX_NB = PIECE_NB * SQ_NB, HISTORY_MAX = 16384, CORRECTION_SIZE = 1 << 14, CORRECTION_MAX = 1024 };

/* Move-ordering statistics, learned during a search and kept between moves. */
typedef struct {
    int16_t butterfly[COLOR_NB][1 << 15]; /* by Move16 without the promotion bit */
    int16_t capture[PIECE_NB][SQ_NB][PIECE_TYPE_NB];
    int16_t cont[CONT_INDEX_NB + 1][CONT_INDEX_NB]; /* last row: the sentinel for null moves */
    Move16 counter[PIECE_NB][SQ_NB];
    /* How far the static evaluation missed the search result before, by the side to
     * move and a hash of the pawns, and of the hands (in 1/16 units of the evaluation). */
    int16_t pawn_correction[COLOR_NB][CORRECTION_SIZE];
    int16_t hand_correction[COLOR_NB][CORRECTION_SIZE];
} History;

static inline int cont_index(Move m) { return move_moved_piece_after(m) * SQ_NB + move_to(m); }
static inline int butterfly_index(Move m) { return (int)(m & 0x7fff); }

typedef struct {
    Move *pv;
    int ply;
    Move current_move;
    Move excluded_move;
    Move killers[2];
    Value static_eval;
    int stat_score;
    int move_count;
    bool in_check;
    bool tt_pv;
    int16_t *cont_hist; /* the row of History.cont for current_move */
} Stack;

typedef struct {
    Move move;
    Value score;
    Value previous_score;
    Value uci_score; /* the score shown, with bound flags below */
    bool lowerbound, upperbound;
    int seldepth;
    int pv_length;
    Move pv[MAX_PLY + 1];
} RootMove;

typedef struct Worker Worker;

/* Shared state of one search, read by every worker. */
typedef struct {
    TranspositionTable *tt;
    SearchLimits limits;
    SearchOptions options;
    TimeBudget budget;
    double start_ms; /* reset at ponderhit */
    atomic_bool stop;
    atomic_bool ponder;                  /* still pondering: no time limit applies */
    atomic_uint_fast64_t nodes_reserved; /* under a node limit: the nodes handed out to the threads */
    Worker **workers;
    int worker_count;
    const SearchReporter *reporter;
} SharedSearch;

struct Worker {
    int id;
    SharedSearch *shared;
    Game game;
    History *history;
    RootMove root_moves[MAX_MOVES];
    int root_count;
    int pv_index;
    int seldepth;
    int root_depth;
    int completed_depth;
    int nmp_min_ply;
    int calls_until_check;
    uint64_t nodes_allowed; /* under a node limit: this thread's nodes until it reserves more */
    int best_move_changes;
    atomic_uint_fast64_t nodes;
    StateInfo tree_states[MAX_PLY + 8];
    EvalStack *estack; /* incremental evaluation state (eval.h); NULL is allowed (evaluations from scratch) */
};

/* Runs iterative deepening on w until the shared stop flag or a limit. */
void worker_iterate(Worker *w);
/* The quiescence value of w->game.pos (full window, side to move's view), for probes. */
Value worker_qsearch(Worker *w);
/* Clears w's history tables. */
void history_clear(History *h);
/* Writes the info lines of the current MultiPV set (main thread only). */
void report_pv(Worker *w, int depth);

/* ---- move picking ---- */

typedef struct {
    const Position *pos;
    const History *history;
    const int16_t *cont[2]; /* continuation rows of the previous two plies */
    Move tt_move, killers[2], counter;
    int stage;
    bool qsearch;
    int cur, end, bad_count, quiet_begin;
    ExtMove moves[MAX_MOVES];
    ExtMove bad_captures[MAX_MOVES];
} MovePicker;

/* A picker for the main search (tt_move, killers and counter must be legal or NONE). */
void movepick_init(MovePicker *mp, const Position *pos, const History *h, const Stack *ss, Move tt_move, Move counter);
/* A picker for the quiescence search: captures, or evasions in check. */
void movepick_init_qsearch(MovePicker *mp, const Position *pos, const History *h, const Stack *ss, Move tt_move);
/* The next pseudo-legal move, best first; MOVE_NONE at the end. skip_quiets drops the
 * remaining quiet moves (move-count pruning). */
Move movepick_next(MovePicker *mp, bool skip_quiets);

#endif
