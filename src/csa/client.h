/* client.h - a session on a CSA server: start the engine once, then for each game
 * connect, LOGIN, play one game (game.h), write its record, report it, LOGOUT; reconnect
 * with a back-off after a failure. shogi-server and floodgate close a CSA-mode connection
 * after each game, so every game has its own connection.
 *
 * LOGIN follows shogi-server's CSA mode (shogi_server/login.rb): `LOGIN <id> <game>,<password>`
 * with a game name (floodgate-300-10F), `LOGIN <id> <password>` without one.
 *
 * Records: each game is written atomically to records_dir as CSA V2.2 (record/csa_write.h;
 * our scores as "'** " comments, which record/reader.h reads back), named after the
 * server's Game_ID (characters outside [A-Za-z0-9._+-] become '_'), or by the time when
 * the server gave none. A line per game goes to stderr.
 *
 * Ownership: the config and everything it points to are the caller's.
 */
#ifndef HAYANAGI_CSA_CLIENT_H
#define HAYANAGI_CSA_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csa/game.h"

/* Called after each game's record is written (record_path NULL when there is no
 * --records directory or the write failed), with the opponent's name, our colour, the
 * result (CSA_END_WIN/LOSE/DRAW/CENSORED/CHUDAN) and the reason (CSA_END_RESIGN, ...,
 * CSA_END_NB when the server gave none). Learning between games hangs here. */
typedef void (*CsaGameEndFn)(void *ctx, const char *record_path, const char *opponent, Color my_color,
                             CsaEndWord result, CsaEndWord reason);

typedef struct {
    const char *host;
    int port;
    const char *id, *password;
    const char *game;            /* game name for LOGIN, may be NULL */
    int games;                   /* games to play, 0: until stopped */
    const char *engine_cmd;      /* the USI engine's command line */
    const EngineOption *options; /* sent after usi, before the first game */
    int n_options;
    bool engine_stderr;      /* let the engine write to our stderr */
    const char *records_dir; /* may be NULL */
    FILE *log;               /* protocol log (server lines and the engine's USI), may be NULL */
    CsaPlayConfig play;
    int64_t connect_timeout_ms;
    int max_backoff_s;        /* the longest wait between reconnections */
    int max_failures;         /* consecutive failed connections or games before giving up, 0: never */
    CsaGameEndFn on_game_end; /* may be NULL */
    void *on_game_end_ctx;
} CsaClientConfig;

typedef struct {
    int played, wins, losses, draws, aborted, rejected;
} CsaClientStats;

/* Runs the session. Returns 0 when the games were played (aborted ones included), 1 when
 * the engine could not start, the login was refused or max_failures was reached (the
 * reason on stderr), 130 when stopped by play.stop. */
int csa_client_run(const CsaClientConfig *cfg, CsaClientStats *stats);

#endif
