/* engine.h - the USI engine as the CSA client drives it: started once for a session
 * (match/engine_proc.h), told who it plays before each game, sent `position` + `go`,
 * `go ponder` / `ponderhit` / `stop`, read without blocking while the server is read too.
 * Everything USI the client does is in this file: the start and the new game go through
 * match/usi_client.h (one handshake, one timeout); the search is read here without
 * blocking (the game loop polls the server and the engine together), its lines parsed by
 * usi_info.h's one parser.
 *
 * The opponent: an engine that declares `USI_Opponent` gets UCI_Opponent's value format
 * "<title|none> <rating|none> <computer|human> <name>" ("none none computer NAME": a CSA
 * server says neither title nor rating nor kind, and floodgate's players are programs);
 * one that declares `RivalBookDir` gets the --rival-books directory. Engines that declare
 * neither get neither.
 *
 * Ownership: a CsaEngine owns its EngineProc (csa_engine_close()).
 */
#ifndef HAYANAGI_CSA_ENGINE_H
#define HAYANAGI_CSA_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "match/engine_proc.h"
#include "match/usi_info.h"

typedef struct {
    EngineProc e;
    bool started;
    bool user_max_moves; /* the user set MaxMovesToDraw: the server's Max_Moves does not override it */
} CsaEngine;

/* What the engine said during one think. */
typedef struct {
    bool has_info; /* info holds the last complete (multipv 1) info line */
    UsiInfo info;
    bool done; /* bestmove read */
    UsiBestmove kind;
    Move best, ponder;
} CsaThink;

/* Starts cmd (its stderr ours when inherit_stderr, else /dev/null) through usi_client_start(): USI_Ponder (to
 * ponder), each of opts[0..n) (an option the engine did not declare is an error: a typo must not go unnoticed) and
 * EnteringKingRule CSARule27 unless opts set it, then readyok. Returns false with the reason in err (the engine is then
 * closed). */
bool csa_engine_start(CsaEngine *ce, const char *cmd, const EngineOption *opts, int n_opts, bool ponder,
                      bool inherit_stderr, const EngineLog *log, char *err, size_t err_len);

/* Before a game: USI_Opponent and RivalBookDir as said above (rival_dir may be NULL),
 * MaxMovesToDraw from the server's Max_Moves (max_moves > 0; when the engine declares it
 * and the user did not set it), isready, usinewgame. False with the reason in err when the
 * engine is gone. */
bool csa_engine_new_game(CsaEngine *ce, const char *opponent, const char *rival_dir, int max_moves, char *err,
                         size_t err_len);

/* Sends position_line and go_line (`go ...` or `go ponder ...`) and clears *t. False when
 * the engine is gone. */
bool csa_engine_go(CsaEngine *ce, const char *position_line, const char *go_line, CsaThink *t);

/* Sends a bare command: "stop", "ponderhit", "gameover win". False when the engine is
 * gone. */
bool csa_engine_send(CsaEngine *ce, const char *cmd);

/* The descriptor to poll for the engine's output. */
int csa_engine_fd(const CsaEngine *ce);

/* Reads what the engine has written so far, without waiting: info lines into t (PV
 * moves checked against pos, which is left as it was), the bestmove into t->done.
 * Returns false when the engine has died or closed its output. */
bool csa_engine_poll(CsaEngine *ce, Position *pos, CsaThink *t);

/* Quits the engine (killing it when it does not go) and frees it. Safe when not started. */
void csa_engine_close(CsaEngine *ce);

#endif
