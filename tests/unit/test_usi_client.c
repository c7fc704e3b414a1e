/* test_usi_client.c - the one USI client (match/usi_client.h) against scripted fake
 * engines: small sh scripts written to a temporary directory that answer well, slowly,
 * never, with garbage, or die in the middle of a search. Each outcome is checked against
 * what the script was written to do (the options it was sent are logged by the script
 * itself, so the order and the omissions are the engine's view, not ours). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "match/usi_client.h"
#include "shogi/notation.h"
#include "shogi/position.h"

static char dir[64];

/* Writes script NAME into the temporary directory; returns the command that runs it with
 * the log file as its argument ($1). */
static const char *script(const char *name, const char *body, char *cmd, size_t len) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s.sh", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fputs(body, f);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, len, "sh %s %s/%s.log", path, dir, name);
    return cmd;
}

/* The log file a script wrote (every line it read, as "cmd rest"), or "" when none. */
static char *read_log(const char *name, char *buf, size_t len) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s.log", dir, name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The read loop every fake shares: logs each command, answers the handshake (unless
 * told otherwise) and runs GO_ACTION on `go`, STOP_ACTION on `stop`. */
#define FAKE(USI, READY, GO, STOP)                                                                                     \
    "while read -r cmd rest; do\n"                                                                                     \
    "  echo \"$cmd $rest\" >> \"$1\"\n"                                                                                \
    "  case \"$cmd\" in\n"                                                                                             \
    "    usi) " USI " ;;\n"                                                                                            \
    "    isready) " READY " ;;\n"                                                                                      \
    "    go) " GO " ;;\n"                                                                                              \
    "    stop) " STOP " ;;\n"                                                                                          \
    "    quit) exit 0 ;;\n"                                                                                            \
    "  esac\n"                                                                                                         \
    "done\n"

#define USIOK                                                                                                          \
    "echo 'id name Fake'; echo 'option name Threads type spin default 1 min 1 max 8'; "                                \
    "echo 'option name USI_Hash type spin default 16 min 1 max 1024'; echo usiok"
#define READYOK "echo readyok"

typedef struct {
    int missing;
    char missing_name[64];
    int infos, bad;
    char bad_why[160];
} Seen;

static void on_missing(void *ctx, const char *name) {
    Seen *s = ctx;
    s->missing++;
    snprintf(s->missing_name, sizeof s->missing_name, "%s", name);
}

static void on_info(void *ctx, const UsiInfo *in, const char *line) {
    (void)in;
    (void)line;
    ((Seen *)ctx)->infos++;
}

static void on_bad(void *ctx, const char *line, const char *why) {
    Seen *s = ctx;
    (void)line;
    s->bad++;
    snprintf(s->bad_why, sizeof s->bad_why, "%s", why);
}

/* Starts cmd with a handshake of handshake_ms; asserts the outcome wanted. */
static bool start(EngineProc *e, const char *cmd, int64_t handshake_ms, Seen *seen, char *err, size_t len) {
    static const EngineOption opts[] = {{"threads", "2"}, {"NoSuchOption", "1"}, {"USI_Hash", "64"}};
    UsiClientConfig cfg = {.cmd = cmd,
                           .stderr_mode = ENGINE_STDERR_NULL,
                           .options = opts,
                           .n_options = 3,
                           .handshake_ms = handshake_ms,
                           .missing_option = on_missing,
                           .ctx = seen};
    engine_init(e);
    return usi_client_start(e, &cfg, NULL, err, len);
}

/* One search at the start position with a limit of limit_ms. */
static void go(EngineProc *e, Position *pos, int64_t limit_ms, Seen *seen, UsiGoResult *r) {
    UsiGo g = {.position_line = "position startpos",
               .go_line = "go btime 0 wtime 0 byoyomi 100",
               .limit_us = limit_ms * 1000,
               .pos = pos,
               .on_info = on_info,
               .on_bad_line = on_bad,
               .ctx = seen};
    usi_client_go(e, &g, r);
}

static Position start_pos;
static StateInfo start_st;

static void test_handshake_sends_declared_options_in_order(void **state) {
    (void)state;
    char cmd[256], err[256], log[4096];
    Seen seen = {0};
    EngineProc e;
    script("good", FAKE(USIOK, READYOK, "echo 'bestmove 7g7f'", ":"), cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    assert_string_equal(e.name, "Fake");
    assert_int_equal(seen.missing, 1);
    assert_string_equal(seen.missing_name, "NoSuchOption");
    assert_true(usi_client_newgame(&e, 5000, err, sizeof err));
    engine_close(&e, ENGINE_QUIT_WAIT_MS);
    /* the engine's own spelling, in the order given, the undeclared one left out */
    assert_string_equal(read_log("good", log, sizeof log), "usi \n"
                                                           "setoption name Threads value 2\n"
                                                           "setoption name USI_Hash value 64\n"
                                                           "isready \n"
                                                           "isready \n"
                                                           "usinewgame \n"
                                                           "quit \n");
}

static void test_one_handshake_timeout_for_usiok_and_readyok(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    script("silent", FAKE(":", READYOK, ":", ":"), cmd, sizeof cmd);
    assert_false(start(&e, cmd, 300, &seen, err, sizeof err));
    assert_string_equal(err, "waiting for usiok: timed out");
    assert_int_equal(e.pid, -1); /* closed: nothing left running */
    /* a budget the script's usiok meets on a loaded machine too (300 ms did not, under
     * three matches and a nice 19 build on two cores), so only readyok can time out */
    script("noready", FAKE(USIOK, ":", ":", ":"), cmd, sizeof cmd);
    assert_false(start(&e, cmd, 3000, &seen, err, sizeof err));
    assert_string_equal(err, "waiting for readyok: timed out");
    assert_int_equal(e.pid, -1);
    script("exits", "exit 3\n", cmd, sizeof cmd);
    assert_false(start(&e, cmd, 5000, &seen, err, sizeof err));
    assert_non_null(strstr(err, "usi"));
    UsiClientConfig dflt = {.cmd = cmd};
    assert_int_equal(usi_client_handshake_ms(&dflt), USI_HANDSHAKE_MS);
}

static void test_go_reads_infos_and_the_bestmove(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    script("think",
           FAKE(USIOK, READYOK,
                "echo 'info depth 1 score cp 5 pv 7g7f'; echo 'info string hello'; echo 'some noise'; "
                "echo 'info depth 2 score cp 12 pv 7g7f 3c3d'; echo 'bestmove 7g7f ponder 3c3d'",
                ":"),
           cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    UsiGoResult r;
    go(&e, &start_pos, 5000, &seen, &r);
    assert_int_equal(r.status, USI_GO_BESTMOVE);
    assert_int_equal(r.kind, USI_BESTMOVE_MOVE);
    char a[8], b[8];
    assert_string_equal(move_to_usi(r.best, a), "7g7f");
    assert_string_equal(move_to_usi(r.ponder, b), "3c3d");
    assert_string_equal(r.bestmove, "7g7f");
    assert_int_equal(seen.infos, 3); /* the string line too; the noise is no info */
    assert_int_equal(seen.bad, 0);
    assert_true(r.has_score);
    assert_int_equal(r.scored.score, 12);
    assert_int_equal(r.scored.depth, 2);
    assert_false(r.hung);
    engine_close(&e, ENGINE_QUIT_WAIT_MS);
}

static void test_bestmove_kinds(void **state) {
    (void)state;
    char cmd[256], err[256];
    struct {
        const char *line;
        UsiBestmove kind;
        int bad;
    } cases[] = {
        {"bestmove resign", USI_BESTMOVE_RESIGN, 0},
        {"bestmove win", USI_BESTMOVE_WIN, 0},
        {"bestmove 5e5d", USI_BESTMOVE_BAD, 1}, /* no piece there: not legal at the start */
        {"bestmove", USI_BESTMOVE_BAD, 1},
        {"bestmove 2g2f", USI_BESTMOVE_MOVE, 0}, /* bare: no info line before it */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[1024], go_action[64];
        snprintf(go_action, sizeof go_action, "echo '%s'", cases[i].line);
        snprintf(body, sizeof body, FAKE(USIOK, READYOK, "%s", ":"), go_action);
        Seen seen = {0};
        EngineProc e;
        script("kinds", body, cmd, sizeof cmd);
        assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
        UsiGoResult r;
        go(&e, &start_pos, 5000, &seen, &r);
        assert_int_equal(r.status, USI_GO_BESTMOVE);
        assert_int_equal(r.kind, cases[i].kind);
        assert_int_equal(seen.bad, cases[i].bad);
        assert_false(r.has_score);
        if (cases[i].kind == USI_BESTMOVE_MOVE) {
            char a[8];
            assert_string_equal(move_to_usi(r.best, a), "2g2f");
            assert_int_equal(r.ponder, MOVE_NONE);
        } else
            assert_int_equal(r.best, MOVE_NONE);
        engine_close(&e, ENGINE_QUIT_WAIT_MS);
    }
}

static void test_slow_engine_is_stopped(void **state) {
    (void)state;
    char cmd[256], err[256], log[4096];
    Seen seen = {0};
    EngineProc e;
    /* thinks until told to stop, then answers at once */
    script("slow", FAKE(USIOK, READYOK, ":", "echo 'bestmove 7g7f'"), cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    UsiGoResult r;
    go(&e, &start_pos, 200, &seen, &r);
    assert_int_equal(r.status, USI_GO_TIMEOUT);
    assert_false(r.hung);
    assert_true(r.elapsed_us >= 200000);
    /* the late bestmove was collected: the next search is answered by its own */
    engine_close(&e, ENGINE_QUIT_WAIT_MS);
    assert_non_null(strstr(read_log("slow", log, sizeof log), "go btime 0 wtime 0 byoyomi 100\nstop \n"));
}

static void test_hung_engine_is_said_hung(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    script("hang", FAKE(USIOK, READYOK, "sleep 30", ":"), cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    UsiGoResult r;
    go(&e, &start_pos, 200, &seen, &r);
    assert_int_equal(r.status, USI_GO_TIMEOUT);
    assert_true(r.hung);
    engine_close(&e, 200); /* SIGTERM to its process group ends the sleep too */
    assert_int_equal(e.pid, -1);
}

static void test_engine_dying_mid_think(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    script("dies", FAKE(USIOK, READYOK, "echo 'info depth 3 score mate 5 pv 7g7f'; exit 1", ":"), cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    UsiGoResult r;
    go(&e, &start_pos, 5000, &seen, &r);
    assert_int_equal(r.status, USI_GO_EOF);
    assert_true(r.has_score); /* what it said before dying is kept */
    assert_true(r.scored.score_mate);
    assert_int_equal(r.scored.score, 5);
    assert_int_equal(r.kind, USI_BESTMOVE_NO);
    engine_close(&e, 200);
}

static void test_garbage_is_reported_then_ends_the_search(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    /* one malformed info line, then junk without end (more than USI_JUNK_MAX lines) */
    script("garbage",
           FAKE(USIOK, READYOK, "echo 'info depth x'; i=0; while [ $i -lt 1100 ]; do echo junk; i=$((i+1)); done", ":"),
           cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    UsiGoResult r;
    go(&e, &start_pos, 20000, &seen, &r);
    assert_int_equal(r.status, USI_GO_JUNK);
    assert_int_equal(seen.bad, 1);
    assert_string_equal(seen.bad_why, "bad number 'x'");
    engine_close(&e, 200);
}

static void test_abort_flag_stops_the_search(void **state) {
    (void)state;
    char cmd[256], err[256];
    Seen seen = {0};
    EngineProc e;
    volatile sig_atomic_t flag = 0;
    script("abort", FAKE(USIOK, READYOK, ":", "echo 'bestmove 7g7f'"), cmd, sizeof cmd);
    assert_true(start(&e, cmd, 5000, &seen, err, sizeof err));
    flag = 1;
    e.abort_flag = &flag;
    UsiGoResult r;
    go(&e, &start_pos, 20000, &seen, &r);
    assert_int_equal(r.status, USI_GO_ABORTED);
    assert_false(r.hung); /* the answer to stop was read although the flag is up */
    e.abort_flag = NULL;
    engine_close(&e, ENGINE_QUIT_WAIT_MS);
}

/* The default engine of book grow and csa: this test binary's own path, started directly
 * (its build path holds nothing a shell would read), and it runs: the path is a file. */
static void test_self_command_is_this_program(void **state) {
    (void)state;
    char *cmd = engine_self_command();
    assert_non_null(cmd);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    if (!engine_cmd_needs_shell(exe) && !strpbrk(exe, " \t"))
        assert_string_equal(cmd, exe);
    else
        assert_true(cmd[0] == '\'' && cmd[strlen(cmd) - 1] == '\'');
    struct stat st;
    assert_int_equal(stat(exe, &st), 0);
    free(cmd);
}

static int setup(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/hayanagi_usi_client.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char err[128];
    return position_from_sfen(&start_pos, &start_st, STARTPOS_SFEN, err, sizeof err) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_command_is_this_program),
        cmocka_unit_test(test_handshake_sends_declared_options_in_order),
        cmocka_unit_test(test_one_handshake_timeout_for_usiok_and_readyok),
        cmocka_unit_test(test_go_reads_infos_and_the_bestmove),
        cmocka_unit_test(test_bestmove_kinds),
        cmocka_unit_test(test_slow_engine_is_stopped),
        cmocka_unit_test(test_hung_engine_is_said_hung),
        cmocka_unit_test(test_engine_dying_mid_think),
        cmocka_unit_test(test_garbage_is_reported_then_ends_the_search),
        cmocka_unit_test(test_abort_flag_stops_the_search),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
