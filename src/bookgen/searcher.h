/* searcher.h - one interface for "analyse this position": `book think` and `book expand`
 * call it and do not know whether the search runs in this process (searcher_inproc.c,
 * Hayanagi's own alpha-beta) or in external USI engines (engine_pool.h).
 *
 * A Searcher has a fixed number of slots (worker threads, or engine processes); the
 * caller runs one thread per slot and calls searcher_analyse() with its slot number, so
 * a slot is only ever used by one thread. searcher_stop() may be called from any thread
 * to cut the searches in flight short (their answers are then SEARCH_STOPPED).
 *
 * Scores are the book's: centipawns from the side to move's view, a mate in n plies as
 * +-(SEARCHER_MATE - n).
 *
 * Ownership: the caller owns the Searcher and ends it with searcher_destroy().
 */
#ifndef HAYANAGI_BOOKGEN_SEARCHER_H
#define HAYANAGI_BOOKGEN_SEARCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match/usi_info.h"
#include "shogi/position.h"

enum {
    SEARCHER_MAX_PV = 32,    /* candidates per answer (MultiPV upper limit) */
    SEARCHER_PV_LEN = 16,    /* PV moves kept per candidate */
    SEARCHER_MATE = 32000,   /* the book's mate value (as search.h's VALUE_MATE) */
    SEARCHER_NAME_MAX = 128, /* engine names, NUL included */
};

/* The search depth when a budget names none (`book expand` without a limit, and a raw
 * `go` budget given to the in-process searcher, which reads no raw arguments). */
enum { SEARCH_DEFAULT_DEPTH = 8 };

/* What to spend on one position: exactly one of depth/nodes/movetime/go_raw is set (a
 * depth of 0 with none of the others means SEARCH_DEFAULT_DEPTH). */
typedef struct {
    int depth;
    uint64_t nodes;
    int64_t movetime;   /* milliseconds */
    const char *go_raw; /* raw `go` arguments ("btime 0 wtime 0 byoyomi 1000"), or NULL */
    int multipv;        /* K: candidates wanted */
    int multipv_margin; /* > 0: widen while the last candidate is within this many cp of the best */
    int multipv_max;    /* the widest MultiPV (>= multipv) */
} SearchBudget;

typedef struct {
    Move16 move, ponder; /* ponder: the PV's reply, or MOVE_NONE */
    bool has_score;      /* false for a bare bestmove (no usable info line) */
    int score;
    int depth;
    uint64_t nodes;
    int pv_len;
    Move16 pv[SEARCHER_PV_LEN];
} SearchCandidate;

typedef struct {
    int n; /* candidates, best first */
    SearchCandidate c[SEARCHER_MAX_PV];
    char engine[SEARCHER_NAME_MAX]; /* provenance: the engine's `id name` */
    int depth;                      /* the deepest completed iteration */
    uint64_t nodes;                 /* nodes of the whole search (all MultiPV widenings) */
    int multipv_used;               /* the MultiPV of the last search (after widening) */
    int warnings;                   /* malformed or illegal PV/bestmove text ignored */
    bool engine_fault;              /* SEARCH_RETRY/RETIRED before the position was sent (start-up, handshake):
                                       the position is not to blame */
} SearchAnswer;

typedef enum {
    SEARCH_OK,      /* *out holds at least one legal candidate */
    SEARCH_NONE,    /* the position has no legal move or the engine gave no usable move */
    SEARCH_RETRY,   /* this slot failed on this position (crash, timeout, garbage): queue it again */
    SEARCH_RETIRED, /* this slot is out of service for good: stop using it */
    SEARCH_STOPPED  /* searcher_stop() cut it short: the answer is not to be used */
} SearchStatus;

typedef struct Searcher Searcher;

typedef struct {
    /* One search with MultiPV mpv; the common layer does the widening. */
    SearchStatus (*analyse)(Searcher *s, int slot, Position *pos, const SearchBudget *b, int mpv, SearchAnswer *out);
    void (*stop)(Searcher *s);
    /* One line about the slots (per-engine counts, restarts), for progress. */
    void (*status)(Searcher *s, char *buf, size_t len);
    /* Why each slot that is out of service is, one per line; "" when none is. */
    void (*failures)(Searcher *s, char *buf, size_t len);
    void (*destroy)(Searcher *s);
} SearcherOps;

struct Searcher {
    const SearcherOps *ops;
    int slots;
    bool external; /* engines in other processes (progress shows their status) */
};

/* Analyses pos (unchanged on return) with budget b on slot: one search with MultiPV K
 * (candidates naming a move an earlier candidate has are dropped),
 * then, when multipv_margin is set, wider ones (doubling up to multipv_max) while the
 * last candidate is within the margin of the best. Keeps the K best and any further
 * candidate within the margin. Thread-safe across distinct slots. */
SearchStatus searcher_analyse(Searcher *s, int slot, Position *pos, const SearchBudget *b, SearchAnswer *out);

/* Cuts every search in flight short. */
void searcher_stop(Searcher *s);

/* Status and failure lines into buf (see SearcherOps). */
void searcher_status(Searcher *s, char *buf, size_t len);
void searcher_failures(Searcher *s, char *buf, size_t len);

/* Releases everything (ends the engine processes). NULL is fine. */
void searcher_destroy(Searcher *s);

/* The budget as text for provenance ("nodes 100000", "depth 12", "go btime 0 ..."). */
void search_budget_describe(const SearchBudget *b, char *buf, size_t len);

/* The budget as the `go` line sent to a USI engine ("go nodes 100000", "go depth 12",
 * "go btime 0 ..."): "go " and the same words search_budget_describe() writes. */
void search_budget_go_line(const SearchBudget *b, char *buf, size_t len);

/* The bare-bestmove fallback of every searcher: when out has no candidate (no complete
 * info line came) and best is a move, appends it as the only candidate, unscored, with ponder as its reply
 * (MOVE_NONE: none), and returns it so that a caller knowing more can fill it in; NULL
 * otherwise (also for MOVE_NONE, resign and win). best and ponder may be 32-bit moves or
 * Move16 values. */
SearchCandidate *search_answer_bare_bestmove(SearchAnswer *out, Move best, Move ponder);

/* Scores in the book's scale: a mate in plies (mated: the side to move is the one mated)
 * as +-(SEARCHER_MATE - n) with n capped at MAX_PLY (so an unknown length counts as the
 * longest mate), centipawns clamped to +-30000 (never looking like a mate). */
int searcher_mate_score(int plies, bool mated);
int searcher_cp_score(int cp);

/* Fills cand from a complete parsed info line (its PV already checked on the position):
 * move, ponder, PV, score in the book's scale, depth, nodes. Returns false when the line
 * has no PV move. */
bool searcher_candidate_from_info(const UsiInfo *in, SearchCandidate *cand);

/* One line of a search's report, whichever searcher made it: an external engine's parsed
 * info line (searcher_line_from_info) or the in-process search's SearchInfo
 * (searcher_inproc.c reads it directly). */
typedef struct {
    int multipv; /* 1.. */
    int depth;
    bool exact;           /* a score that is no bound, a depth and at least one (legal) PV move */
    SearchCandidate cand; /* when exact */
} SearchLine;

/* The line of in, or false when in is no part of a report (a string, no score or no PV
 * field: progress such as currmove, nps, hashfull). */
bool searcher_line_from_info(const UsiInfo *in, SearchLine *line);

/* The MultiPV lines of one search, as the candidates of one iteration. An engine reports
 * its K lines together, 1..K in order, after each iteration and when it stops; the lines
 * of an iteration cut short mix depths (Stockfish's and our own search print the lines not
 * yet searched with the previous iteration's depth and score, so the second line can
 * outscore the first). The collector keeps the last report whose lines are 1..want, in
 * order, exact and of one depth, and answers with it; without any such report it answers
 * with each index's latest exact line, as before it existed. */
typedef struct {
    int want;                         /* lines expected: the MultiPV, at most the legal moves */
    SearchLine cur[SEARCHER_MAX_PV];  /* the report being read */
    int cur_n;                        /* its lines so far (0: none, or broken) */
    SearchLine done[SEARCHER_MAX_PV]; /* the last whole report */
    int done_n;
    SearchLine latest[SEARCHER_MAX_PV]; /* the latest exact line of each index */
    bool have_latest[SEARCHER_MAX_PV];
} MultiPvLines;

/* Starts collecting for a search of the position pos with MultiPV mpv (1..SEARCHER_MAX_PV). */
void multipv_lines_init(MultiPvLines *c, const Position *pos, int mpv);

/* Takes one line (lines that are not exact are part of no whole report). */
void multipv_lines_add(MultiPvLines *c, const SearchLine *line);

/* Appends the answer's candidates to out (out->n grows, best first as reported). */
void multipv_lines_answer(const MultiPvLines *c, SearchAnswer *out);

/* The in-process searcher: threads slots, each with its own Search of hash_mb MB,
 * searching single-threaded. NULL when memory runs out. */
Searcher *searcher_inproc_create(int threads, size_t hash_mb);

#endif
