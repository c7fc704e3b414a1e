/* engine_proc.h - a USI engine running as a child process: start, line I/O with
 * deadlines, the usi and isready exchanges, and a shutdown that never leaves a process
 * behind. Callers talk to engines through match/usi_client.h, which holds the dialogue's
 * policies (the handshake, its timeout, the search loop); these are its building blocks.
 *
 * How a command line is started: when CMD holds only plain characters it is split on
 * blanks into argv and started directly with posix_spawnp (PATH is searched), so the
 * child is the engine itself. When it holds anything a shell would interpret (quotes,
 * $ ` \ | & ; < > ( ) { } [ ] * ? ~ # =) it is run as `/bin/sh -c CMD`, so
 * `cd /opt/yane && ./engine` or `FOO=1 engine` work. Either way the child gets its own
 * process group, and killing a hung engine kills the whole group (a shell and what it
 * started). Its stdin and stdout are pipes to us; its stderr goes to /dev/null unless
 * asked to inherit ours.
 *
 * Ownership: an EngineProc is owned by one thread at a time and holds the pipes, the
 * child and the list of option names; engine_close() releases all of them.
 */
#ifndef HAYANAGI_MATCH_ENGINE_PROC_H
#define HAYANAGI_MATCH_ENGINE_PROC_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/clock.h"

enum {
    ENGINE_LINE_MAX = 16384,    /* longer lines are truncated (the rest is dropped) */
    ENGINE_NAME_MAX = 128,      /* `id name` is truncated to this, NUL included */
    ENGINE_READ_BUF = 65536,    /* bytes buffered from the engine's stdout */
    ENGINE_QUIT_WAIT_MS = 2000, /* how long `quit` may take before SIGTERM, then SIGKILL */
    ENGINE_STOP_WAIT_MS = 1000, /* how long `stop` may take to produce a bestmove */
};

/* One `setoption`: NAME and VALUE (NULL: no value, a button). */
typedef struct {
    const char *name;
    const char *value;
} EngineOption;

/* Where the USI dialogue is logged (optional). The mutex is shared by every engine
 * writing to the same file. Each line starts with its time: the seconds since start_us
 * (an engine_now_us() value, `match --log`), or with utc_time_of_day the UTC time of
 * day, HH:MM:SS.mmm, as the server lines beside them (`csa --log`). */
typedef struct {
    FILE *file;
    pthread_mutex_t *lock;
    int64_t start_us;
    bool utc_time_of_day;
} EngineLog;

typedef struct {
    pid_t pid;       /* -1 when no child is running */
    int to_engine;   /* write end of the child's stdin, -1 when closed */
    int from_engine; /* read end of the child's stdout, -1 when closed */
    bool eof;        /* the child closed its stdout (or a read failed) */
    bool discarding; /* inside an over-long line whose tail is being dropped */
    size_t rlen;
    char rbuf[ENGINE_READ_BUF];
    char name[ENGINE_NAME_MAX]; /* from `id name`, empty until engine_usi() */
    char **options;             /* option names from `option name X type ...` */
    int n_options;
    int from_stderr;                         /* read end of the child's stderr when captured, -1 otherwise */
    size_t elen;                             /* bytes of the stderr line being read */
    char ebuf[256];                          /* the stderr line being read (cut at its size) */
    char last_stderr[256];                   /* the last non-empty line the engine wrote to stderr (captured) */
    char tag[48];                            /* prefix for log lines, e.g. "g3 e1" */
    const EngineLog *log;                    /* may be NULL */
    const volatile sig_atomic_t *abort_flag; /* when it becomes non-zero, waits give up */
} EngineProc;

typedef enum {
    ENGINE_READ_OK,
    ENGINE_READ_TIMEOUT, /* the deadline passed without a full line */
    ENGINE_READ_EOF,     /* the engine closed its stdout or died */
    ENGINE_READ_ABORTED  /* *abort_flag was set */
} EngineRead;

/* Monotonic clock in microseconds: util/clock.h's clock_now_us(). */
static inline int64_t engine_now_us(void) { return clock_now_us(); }

/* Sets e to the closed state (no child, no pipes). Call before any other function. */
void engine_init(EngineProc *e);

/* Starts CMD as described at the top. Returns false with the reason in err when the
 * pipes cannot be made or the program cannot be started. */
bool engine_start(EngineProc *e, const char *cmd, bool inherit_stderr, char *err, size_t err_len);

typedef enum {
    ENGINE_STDERR_NULL,    /* to /dev/null */
    ENGINE_STDERR_INHERIT, /* to ours */
    ENGINE_STDERR_CAPTURE  /* read by us as we wait for stdout; its last line is kept in last_stderr */
} EngineStderr;

/* engine_start with a choice of what happens to the engine's stderr. */
bool engine_start_ex(EngineProc *e, const char *cmd, EngineStderr mode, char *err, size_t err_len);

/* True when CMD will be run through /bin/sh -c (exposed for tests and messages). */
bool engine_cmd_needs_shell(const char *cmd);

/* This program (/proc/self/exe) as an engine command line: the path itself when it starts
 * directly, else single-quoted for the shell (a ' inside written '\''). For the verbs
 * whose default engine is this binary's own USI loop (book grow, csa). Returns a malloc'd
 * string (caller frees), or NULL when the path cannot be read or memory runs out. */
char *engine_self_command(void);

/* Writes line and a newline. Returns false when the engine is gone (broken pipe);
 * SIGPIPE must be ignored by the caller's process. */
bool engine_send(EngineProc *e, const char *line);

/* Reads one line (without the newline, a trailing CR dropped) into line (cap bytes)
 * waiting until deadline_us on engine_now_us()'s clock; deadline_us 0 means "only what
 * is already there". */
EngineRead engine_read_line(EngineProc *e, char *line, size_t cap, int64_t deadline_us);

/* Discards whatever the engine has written so far. */
void engine_drain(EngineProc *e);

/* Sends `usi`, records `id name` and the option names, and waits for `usiok`. */
bool engine_usi(EngineProc *e, int64_t timeout_ms, char *err, size_t err_len);

/* The engine's own spelling of option `name` (compared without case), or NULL when the
 * engine did not declare it. */
const char *engine_option_name(const EngineProc *e, const char *name);

/* Sends `setoption name N [value V]` (no value for a button) with the engine's own
 * spelling of N. Returns false, sending nothing, when the engine did not declare N (or
 * memory ran out). */
bool engine_setoption(EngineProc *e, const char *name, const char *value);

/* Sends `isready` and waits for `readyok`, dropping any other line. */
bool engine_isready(EngineProc *e, int64_t timeout_ms, char *err, size_t err_len);

/* Sends `quit` (unless the engine is known to be gone), waits up to wait_ms for the
 * child to exit, then SIGTERM and SIGKILL to its process group, reaps it, closes the
 * pipes and frees the option list. Safe on a closed EngineProc. */
void engine_close(EngineProc *e, int64_t wait_ms);

#endif
