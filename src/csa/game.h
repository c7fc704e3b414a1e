/* game.h - one game on a CSA server, from the Game_Summary to the final "#" line: agree,
 * play with the engine on the server's clock (ponder, declaration, resignation), and the
 * record of what was played. docs/csa.md describes the protocol coverage.
 *
 * Faults end the game, never the process: a line the protocol does not allow, a move of
 * the opponent that is illegal here, an echo of ours that is not what we sent, a server
 * that closes the connection or stops talking, are reported in the result's error (with
 * the line) and the game ends as "chudan" (the record's end is %CHUDAN). The engine dying
 * makes us resign (%TORYO), the only clean way out the protocol has.
 *
 * Ownership: the caller owns the connection, the engine and the result; a CsaGameResult
 * owns its record (csa_game_result_free()).
 */
#ifndef HAYANAGI_CSA_GAME_H
#define HAYANAGI_CSA_GAME_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "csa/clock.h"
#include "csa/conn.h"
#include "csa/engine.h"
#include "csa/message.h"
#include "record/csa_write.h"

typedef struct {
    int64_t margin_ms;                 /* network margin taken off the engine's time (clock.h) */
    bool ponder;                       /* think on the opponent's time */
    bool floodgate_comments;           /* send "'* <score> <pv>" after our moves */
    int resign_score;                  /* resign when our score is at or below -resign_score (0: never) */
    int64_t keepalive_ms;              /* an empty line after this long without sending (0: never) */
    int64_t summary_wait_ms;           /* how long to wait for a Game_Summary (0: forever) */
    int64_t silence_ms;                /* the server says nothing this long past our time: gone (0: never) */
    const char *rival_books;           /* RivalBookDir for the engine, may be NULL */
    const volatile sig_atomic_t *stop; /* when set: resign the game in progress, or stop waiting */
} CsaPlayConfig;

typedef enum {
    CSA_GAME_PLAYED,   /* the server ended it (see result, reason) */
    CSA_GAME_REJECTED, /* the summary was refused (REJECT sent) or the server rejected it */
    CSA_GAME_NONE,     /* no Game_Summary came (the connection closed, the wait ended) */
    CSA_GAME_ABORTED   /* a fault ended it (see error); the record ends in %CHUDAN */
} CsaGameStatus;

typedef struct {
    CsaGameStatus status;
    CsaEndWord result; /* WIN LOSE DRAW CENSORED CHUDAN (CHUDAN for a fault) */
    CsaEndWord reason; /* the word before it, CSA_END_NB when none came */
    Color my_color;
    char opponent[CSA_FIELD_MAX];
    char game_id[CSA_FIELD_MAX];
    char error[320];         /* what went wrong, with the line, for CSA_GAME_ABORTED/REJECTED */
    int moves;               /* moves in the record */
    int64_t my_remaining_ms; /* our main time left on the server's clock at the end */
    GameRecord record;       /* the game, ready for csa_format_games() */
} CsaGameResult;

void csa_game_result_init(CsaGameResult *r);
void csa_game_result_free(CsaGameResult *r);

/* Waits for a Game_Summary on conn, agrees to it (or rejects one it cannot play), plays
 * the game with ce and fills *out. Returns out->status. */
CsaGameStatus csa_play_game(CsaConn *conn, CsaEngine *ce, const CsaPlayConfig *cfg, CsaGameResult *out);

#endif
