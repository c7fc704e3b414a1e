/* test_engine_pool.c - the book-making engine pool (bookgen/engine_pool.h) against scripted
 * fake engines: the rule for an info line whose PV turns illegal (docs/book_making.md,
 * "The searcher: in this process or external engines"), the bare-bestmove fallback, an engine that never says
 * readyok (retired within one handshake deadline, the position not blamed), and the
 * budget as the `go` line the engine reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <unistd.h>

#include "bookgen/engine_pool.h"
#include "shogi/notation.h"

static char dir[64];
static Position start_pos;
static StateInfo start_st;

/* Writes a fake engine that logs what it reads to NAME.log and runs GO on `go`. */
static void fake(const char *name, const char *usi, const char *ready, const char *go, char *cmd, size_t len) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s.sh", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "while read -r cmd rest; do\n"
            "  echo \"$cmd $rest\" >> '%s/%s.log'\n"
            "  case \"$cmd\" in\n"
            "    usi) %s ;;\n"
            "    isready) %s ;;\n"
            "    go) %s ;;\n"
            "    quit) exit 0 ;;\n"
            "  esac\n"
            "done\n",
            dir, name, usi, ready, go);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, len, "sh %s", path);
}

static char *slurp(FILE *f, char *buf, size_t len) {
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    return buf;
}

/* One search of the start position by a pool of the one command cmd. */
static SearchStatus analyse(const char *cmd, int64_t startup_ms, int64_t timeout_ms, FILE *warn, SearchAnswer *a,
                            char *failures, size_t flen) {
    const char *cmds[] = {cmd};
    EnginePoolOptions o = {
        .cmds = cmds, .n_cmds = 1, .startup_ms = startup_ms, .timeout_ms = timeout_ms, .warn = warn, .quiet = false};
    char err[128];
    Searcher *s = engine_pool_create(&o, err, sizeof err);
    assert_non_null(s);
    SearchBudget b = {.nodes = 100, .multipv = 1};
    SearchStatus st = searcher_analyse(s, 0, &start_pos, &b, a);
    searcher_failures(s, failures, flen);
    searcher_destroy(s);
    return st;
}

static Move16 m16(const char *usi) {
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    return m;
}

static void test_illegal_pv_keeps_its_legal_prefix_and_says_so(void **state) {
    (void)state;
    char cmd[256], text[4096], fails[1024];
    fake("prefix", "echo 'id name Prefix'; echo usiok", "echo readyok",
         "echo 'info depth 5 score cp 123 pv 7g7f 9z9z'; echo 'bestmove 7g7f'", cmd, sizeof cmd);
    FILE *warn = tmpfile();
    assert_non_null(warn);
    SearchAnswer a;
    assert_int_equal(analyse(cmd, 0, 0, warn, &a, fails, sizeof fails), SEARCH_OK);
    /* the line's score and depth are kept with the legal first move, and that is what is said */
    assert_int_equal(a.n, 1);
    assert_int_equal(a.c[0].move, m16("7g7f"));
    assert_true(a.c[0].has_score);
    assert_int_equal(a.c[0].score, 123);
    assert_int_equal(a.c[0].depth, 5);
    assert_int_equal(a.c[0].pv_len, 1);
    assert_int_equal(a.warnings, 1);
    assert_non_null(strstr(slurp(warn, text, sizeof text),
                           "engine #1 (Prefix): kept the legal PV prefix of info depth 5 score cp 123 pv 7g7f 9z9z "
                           "(PV move 2 is not legal) at sfen "));
    assert_null(strstr(text, "ignored"));
    fclose(warn);
}

static void test_pv_without_a_legal_first_move_is_ignored(void **state) {
    (void)state;
    char cmd[256], text[4096], fails[1024];
    fake("nolegal", "echo 'id name NoLegal'; echo usiok", "echo readyok",
         "echo 'info depth 5 score cp 123 pv 9z9z 7g7f'; echo 'bestmove 2g2f'", cmd, sizeof cmd);
    FILE *warn = tmpfile();
    assert_non_null(warn);
    SearchAnswer a;
    assert_int_equal(analyse(cmd, 0, 0, warn, &a, fails, sizeof fails), SEARCH_OK);
    /* nothing of the line: the bare bestmove is the answer, unscored */
    assert_int_equal(a.n, 1);
    assert_int_equal(a.c[0].move, m16("2g2f"));
    assert_false(a.c[0].has_score);
    assert_int_equal(a.depth, 0);
    assert_non_null(
        strstr(slurp(warn, text, sizeof text),
               "engine #1 (NoLegal): ignored info depth 5 score cp 123 pv 9z9z 7g7f (PV move 1 is not legal)"));
    fclose(warn);
}

static void test_no_readyok_retires_at_once_without_blaming_the_position(void **state) {
    (void)state;
    char cmd[256], text[4096], fails[1024];
    fake("noready", "echo 'id name NoReady'; echo usiok", ":", "echo 'bestmove 7g7f'", cmd, sizeof cmd);
    /* the deadline is --engine-startup's (--engine-timeout, the search's, does not shorten it) */
    const int64_t limits[][2] = {{300, 0}, {300, 100}};
    for (int i = 0; i < 2; i++) {
        FILE *warn = tmpfile();
        assert_non_null(warn);
        SearchAnswer a;
        assert_int_equal(analyse(cmd, limits[i][0], limits[i][1], warn, &a, fails, sizeof fails), SEARCH_RETIRED);
        assert_true(a.engine_fault);
        assert_non_null(strstr(fails, "waiting for readyok: timed out"));
        slurp(warn, text, sizeof text);
        assert_non_null(strstr(text, "waiting for readyok: timed out; retired: it never completed a handshake"));
        assert_null(strstr(text, "restarting")); /* one failure, no second start */
        fclose(warn);
    }
}

static void test_budget_text_and_go_line(void **state) {
    (void)state;
    char d[128], g[128];
    struct {
        SearchBudget b;
        const char *describe, *go;
    } cases[] = {
        {{.nodes = 100}, "nodes 100", "go nodes 100"},
        {{.movetime = 250}, "movetime 250", "go movetime 250"},
        {{.depth = 12}, "depth 12", "go depth 12"},
        {{.depth = 0}, "depth 8", "go depth 8"}, /* SEARCH_DEFAULT_DEPTH */
        {{.go_raw = "btime 0 wtime 0 byoyomi 1000"},
         "go btime 0 wtime 0 byoyomi 1000",
         "go btime 0 wtime 0 byoyomi 1000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        search_budget_describe(&cases[i].b, d, sizeof d);
        search_budget_go_line(&cases[i].b, g, sizeof g);
        assert_string_equal(d, cases[i].describe);
        assert_string_equal(g, cases[i].go);
    }
    assert_int_equal(SEARCH_DEFAULT_DEPTH, 8);
    /* the engine reads the same line */
    char cmd[256], fails[1024], log[2048], path[128];
    fake("golog", "echo usiok", "echo readyok", "echo 'bestmove 7g7f'", cmd, sizeof cmd);
    SearchAnswer a;
    assert_int_equal(analyse(cmd, 0, 0, stderr, &a, fails, sizeof fails), SEARCH_OK);
    snprintf(path, sizeof path, "%s/golog.log", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(strstr(slurp(f, log, sizeof log), "\ngo nodes 100\n"));
    fclose(f);
}

static void test_bare_bestmove_fallback(void **state) {
    (void)state;
    SearchAnswer a;
    memset(&a, 0, sizeof a);
    assert_null(search_answer_bare_bestmove(&a, MOVE_NONE, MOVE_NONE));
    assert_null(search_answer_bare_bestmove(&a, MOVE_RESIGN, MOVE_NONE));
    SearchCandidate *c = search_answer_bare_bestmove(&a, m16("7g7f"), m16("3c3d"));
    assert_non_null(c);
    assert_int_equal(a.n, 1);
    assert_int_equal(c->move, m16("7g7f"));
    assert_int_equal(c->ponder, m16("3c3d"));
    assert_false(c->has_score);
    assert_null(search_answer_bare_bestmove(&a, m16("2g2f"), MOVE_NONE)); /* only when there is none */
    assert_int_equal(a.n, 1);
}

static int setup(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/hayanagi_engine_pool.XXXXXX");
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
        cmocka_unit_test(test_illegal_pv_keeps_its_legal_prefix_and_says_so),
        cmocka_unit_test(test_pv_without_a_legal_first_move_is_ignored),
        cmocka_unit_test(test_no_readyok_retires_at_once_without_blaming_the_position),
        cmocka_unit_test(test_budget_text_and_go_line),
        cmocka_unit_test(test_bare_bestmove_fallback),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
