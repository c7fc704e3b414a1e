/* match.h - plays USI engines against each other: the schedule, the clock,
 * adjudication and the results; the opening positions are openings.h, the Elo estimate
 * elo.h. docs/match.md is the user's manual.
 *
 * Schedule: game i (from 0) starts from opening (i / 2) mod n, and the first engine
 * has black in even games and white in odd ones, so each opening is played twice with
 * colours swapped. Without openings every game starts from the standard position.
 *
 * Ownership: MatchResult owns its arrays (match_result_free()); a MatchConfig only
 * borrows (its Openings too).
 */
#ifndef HAYANAGI_MATCH_MATCH_H
#define HAYANAGI_MATCH_MATCH_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "match/clock.h"
#include "match/elo.h"
#include "match/engine_proc.h"
#include "match/openings.h"
#include "record/csa_write.h"
#include "shogi/game.h"
#include "shogi/rules.h"

/* ---- The match ---- */

/* Splits "NAME=VALUE" (VALUE may contain '='; no '=' means a button; blanks before the
 * '=' are dropped) into *out, whose strings live in one new heap copy returned in
 * *storage, which the caller frees. Returns false, with *storage NULL and the reason in
 * *why, when NAME is empty, when the text holds a newline (it would end the setoption
 * line), or when memory runs out. */
bool engine_option_from_arg(const char *arg, EngineOption *out, char **storage, const char **why);

typedef struct {
    const char *cmd;
    const char *name; /* display name, or NULL for the engine's `id name` */
    const EngineOption *options;
    int n_options;          /* sent in this order after usiok, only those the engine declares */
    const char *go_extra;   /* appended to every `go` command (e.g. gpsusi's "byoyomi_extension 100"), or NULL */
    TimeControl tc;         /* this engine's own clock (match/clock.h): the two may differ (time odds),
                             * and one may play at fixed nodes while the other is on the clock */
    int64_t grace_ms;       /* allowance over its clock before it loses on time (one engine may overrun
                             * its byoyomi by design, e.g. gpsusi: the other need not get the same) */
    bool swap_clocks;       /* btime/wtime and binc/winc sent the wrong way round, for an engine that
                             * reads them so (fairy-stockfish in USI mode, docs/match.md) */
    bool restart_each_game; /* a new process for every game (quit, then started again), so that
                             * nothing an engine keeps between games (a hash it does not clear at
                             * usinewgame) carries over; not counted as a restart */
} MatchEngineSpec;

struct MatchResult; /* below */

typedef struct {
    MatchEngineSpec engines[2];
    int games;
    int concurrency;         /* games played at once, each with its own two engines */
    int max_moves;           /* draw when the SFEN move number passes this (0: no limit) */
    int64_t move_timeout_ms; /* nodes mode (either engine's): how long to wait for a bestmove */
    EnteringKingRule ekr;    /* how `bestmove win` is judged */
    const Openings *openings;
    bool inherit_stderr; /* engines' stderr to ours instead of /dev/null */
    FILE *out;           /* progress lines, warnings and the summary */
    bool tty;            /* out is a terminal: one self-updating progress line */
    /* When set, each game's line and the runner's warnings (text without the newline) go
     * to print_line instead of out, the runner's lock held, and tty is not used: book grow
     * prints them above its progress bar (util/progress.h, progress_line()). */
    void (*print_line)(void *ctx, const char *line);
    void *print_line_ctx;
    const EngineLog *log;
    const volatile sig_atomic_t *stop_flag; /* raised (SIGINT): finish nothing new, abort games */
    /* When set, called after every finished game, before its progress line, with the
     * records so far (the runner's lock held: one call at a time): `match --out` rewrites
     * its record there, so that a match that dies loses at most the games in progress,
     * and every game announced is in the record. */
    void (*on_game)(void *ctx, const struct MatchResult *res);
    void *on_game_ctx;
    /* `match --resume`: NULL, or `games` records of which those with an end and an outcome
     * are games played before (only end and outcome are read): they are counted in the
     * result, not played again, and get no record in MatchResult.records. */
    const GameRecord *resumed;
    /* `book grow`: when set, asked before engine k (0 or 1) thinks in game idx, from every
     * worker at once (the runner's lock not held). When it returns true with a legal move
     * in *out, that move is played at once: no go command, a move of 0 ms on the clock (the
     * Fischer increment is added as after any move), recorded with 0 ms and no score. */
    bool (*book_move)(void *ctx, int k, int idx, const Game *g, Move *out);
    void *book_move_ctx;
    /* `book grow --nodes-jitter`: when set, asked at the start of game idx for each engine k
     * that plays by nodes (engines[k].tc.nodes), from any worker (the runner's
     * lock not held); the engine gets `go nodes` with the value returned (>= 1) for the
     * whole game, and the record's time control comment names both budgets ("...; this
     * game: black nodes 5213, white nodes 4877"). */
    int64_t (*game_nodes)(void *ctx, int k, int idx, int64_t nodes);
    /* `book grow --widen`: when set, asked before engine k thinks in game idx (after
     * book_move declined, the runner's lock not held); a count c > 0 of legal moves written
     * to out (MAX_MOVES entries) restricts that search to them: ` searchmoves m1 ... mc`
     * ends the go command. 0: no restriction. */
    int (*search_moves)(void *ctx, int k, int idx, const Game *g, Move *out);
    void *search_moves_ctx;
    void *game_nodes_ctx;
} MatchConfig;

typedef struct MatchResult {
    char names[2][RECORD_NAME_MAX];
    int wins, draws, losses; /* the first engine's view */
    int played;
    int black_wins, white_wins;
    int ends[END_NB];
    int time_losses[2], illegal[2], false_declarations[2], crashes[2], restarts[2];
    int thinks[2];          /* go commands answered (or timed out), per engine */
    double think_ms_sum[2]; /* their wall-clock time from go to bestmove */
    double think_ms_max[2]; /* the longest of them */
    int64_t rtt_us[2];      /* isready -> readyok round trip, best of 3, measured at start */
    bool interrupted;
    GameRecord *records; /* games in schedule order; records[i].end == END_NONE when not played */
    int n_records;
} MatchResult;

/* Both engines' time controls as one text (time_controls_describe()): "byoyomi 100 ms",
 * "byoyomi 60000 ms; engine 1 nodes 20000", "engine 1 byoyomi 100 ms; engine 2 byoyomi
 * 2000 ms". Returns buf. */
char *match_time_control_describe(const MatchConfig *cfg, char *buf, size_t len);

/* Plays the match. Returns false only when it could not run (an engine failed to start
 * or could not be restarted), with the reason in err; the games finished so far are in
 * res either way. */
bool match_run(const MatchConfig *cfg, MatchResult *res, char *err, size_t err_len);
void match_print_summary(const MatchResult *res, FILE *out);
void match_result_free(MatchResult *res);

#endif
