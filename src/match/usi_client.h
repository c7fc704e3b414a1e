/* usi_client.h - the one client of another USI engine: the match runner, the tuner's
 * labeller (`tune label`) and the book-making engine pool (`book think/expand --engine`)
 * start, handshake and ask their engines to think through it alone.
 *
 * The dialogue (docs/match.md, "Protocol per game"; docs/book_making.md, "The searcher:
 * in this process or external engines"):
 *   start      the command (engine_proc.h says how it is run), `usi` -> `usiok` (the
 *              `id name` and declared option names are recorded), a `setoption` for each
 *              configured option the engine declares, in the order given (the others are
 *              reported through a callback and not sent), `isready` -> `readyok`.
 *   newgame    `isready` -> `readyok`, `usinewgame`.
 *   go         stale output dropped, `position ...`, `go ...`; info lines are parsed with
 *              usi_info.h (against the position when one is given) and handed to a
 *              callback; the `bestmove` line is parsed by usi_bestmove_parse() alone.
 *   close      engine_close() (quit, then SIGTERM and SIGKILL to its process group).
 *
 * One timeout policy for the handshake: every wait for `usiok` or `readyok` lasts at most
 * the configured handshake time, USI_HANDSHAKE_MS unless the caller sets one. One stop
 * policy for a search: when the deadline passes (or the abort flag rises) `stop` is sent
 * and the bestmove is awaited ENGINE_STOP_WAIT_MS more; without one the engine is hung
 * (the caller kills it). More than USI_JUNK_MAX lines that are no USI during one search
 * end it (an engine printing garbage in a loop never reaches the deadline otherwise).
 *
 * Ownership: the caller owns the EngineProc (engine_init() before, engine_close() after);
 * the configuration, its options and the Position given to a search are borrowed.
 */
#ifndef HAYANAGI_MATCH_USI_CLIENT_H
#define HAYANAGI_MATCH_USI_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match/engine_proc.h"
#include "match/usi_info.h"
#include "shogi/position.h"

enum {
    /* usi -> usiok and isready -> readyok: long enough for an engine that loads an NNUE
     * net or a model at isready, short enough that a silent engine is noticed in a minute */
    USI_HANDSHAKE_MS = 60000,
    USI_JUNK_MAX = 1000, /* lines that are no USI tolerated during one search */
};

/* How to start one engine. */
typedef struct {
    const char *cmd;
    EngineStderr stderr_mode;
    const EngineOption *options; /* sent where the engine declares them, in this order */
    int n_options;
    int64_t handshake_ms; /* each of usiok and readyok; 0: USI_HANDSHAKE_MS */
    /* called for each option the engine does not declare (not sent); may be NULL */
    void (*missing_option)(void *ctx, const char *name);
    void *ctx;
} UsiClientConfig;

/* The handshake deadline cfg gives (its own, or USI_HANDSHAKE_MS). */
int64_t usi_client_handshake_ms(const UsiClientConfig *cfg);

/* Starts cfg->cmd on e (closed before when still running) and does the handshake up to
 * the first `readyok`; *ready_us (when non-NULL) gets that isready round trip. Returns
 * false with the reason in err (the engine is then closed, its last stderr line kept). */
bool usi_client_start(EngineProc *e, const UsiClientConfig *cfg, int64_t *ready_us, char *err, size_t err_len);

/* `isready` -> `readyok` within handshake_ms; *ready_us (when non-NULL) gets the round
 * trip. Returns false with the reason in err. */
bool usi_client_ready(EngineProc *e, int64_t handshake_ms, int64_t *ready_us, char *err, size_t err_len);

/* `isready` -> `readyok`, then `usinewgame`. Returns false with the reason in err. */
bool usi_client_newgame(EngineProc *e, int64_t handshake_ms, char *err, size_t err_len);

typedef enum {
    USI_GO_BESTMOVE, /* a bestmove line arrived in time: see bestmove */
    USI_GO_TIMEOUT,  /* no bestmove by the deadline; `stop` was sent */
    USI_GO_EOF,      /* the engine died, closed its output or cannot be written to */
    USI_GO_ABORTED,  /* the abort flag rose; `stop` was sent */
    USI_GO_JUNK      /* more than USI_JUNK_MAX lines that are no USI */
} UsiGoStatus;

/* One search. */
typedef struct {
    const char *position_line; /* "position ..." */
    const char *go_line;       /* "go ..." */
    int64_t limit_us;          /* measured from just before `go` is written */
    Position *pos;             /* when non-NULL, PVs and the bestmove are checked on it (unchanged on return) */
    /* each info line that parses (usi_info.h); may be NULL */
    void (*on_info)(void *ctx, const UsiInfo *in, const char *line);
    /* each info line that does not parse, and a bestmove line that names no legal move
     * (why says which); may be NULL */
    void (*on_bad_line)(void *ctx, const char *line, const char *why);
    void *ctx;
} UsiGo;

typedef struct {
    UsiGoStatus status;
    int64_t elapsed_us; /* from just before `go` was written to the bestmove (or the give-up) */
    UsiBestmove kind;   /* USI_GO_BESTMOVE: what the bestmove line said */
    Move best, ponder;  /* USI_BESTMOVE_MOVE: legal moves when a position was given, Move16 otherwise */
    char bestmove[32];  /* the word after `bestmove` as written (cut), for messages */
    bool hung;          /* a timeout or abort and still no bestmove after `stop`: kill it */
    bool has_score;     /* an info line with a score was seen: */
    UsiInfo scored;     /* the last such line */
} UsiGoResult;

/* Runs one search as described at the top. */
void usi_client_go(EngineProc *e, const UsiGo *go, UsiGoResult *out);

#endif
