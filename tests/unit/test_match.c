/* test_match.c - the match runner's pure parts: the Elo estimate on hand-computed
 * values, CSA move text on hand-checked moves (drops, promotions, captures of promoted
 * pieces), whole CSA records, end markers, and the openings file parser. The runner
 * itself, with real engines, is tested by tests/e2e/match_peers.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <math.h>

#include "match/clock.h"
#include "match/match.h"
#include "match/resume.h"
#include "record/csa_write.h"
#include "record/reader.h"
#include "shogi/game.h"
#include "shogi/notation.h"

/* ---- Elo ---- */

static void test_elo_from_score(void **state) {
    (void)state;
    /* -400 log10(1/p - 1): p = 3/4 gives 400 log10(3) = 190.8485. */
    assert_float_equal(elo_from_score(0.75), 190.8485, 1e-3);
    assert_float_equal(elo_from_score(0.25), -190.8485, 1e-3);
    assert_float_equal(elo_from_score(0.5), 0.0, 1e-12);
    /* 10/11: 1/p - 1 = 0.1, so exactly 400. */
    assert_float_equal(elo_from_score(10.0 / 11.0), 400.0, 1e-9);
    assert_true(isinf(elo_from_score(1.0)) && elo_from_score(1.0) > 0);
    assert_true(isinf(elo_from_score(0.0)) && elo_from_score(0.0) < 0);
}

static void test_elo_estimate_known_values(void **state) {
    (void)state;
    /* +60 =20 -20: p = 0.7; per-game variance (60*0.09 + 20*0.04 + 20*0.49)/100 = 0.16,
     * se = sqrt(0.16/100) = 0.04; p -+ 1.96 se = 0.6216 .. 0.7784. */
    EloEstimate e = elo_estimate(60, 20, 20);
    assert_float_equal(e.score, 0.7, 1e-12);
    assert_float_equal(e.se, 0.04, 1e-12);
    assert_float_equal(e.elo, 147.1907, 1e-3);
    assert_float_equal(e.elo_lo, 86.2240, 1e-3);
    assert_float_equal(e.elo_hi, 218.2532, 1e-3);
    assert_float_equal(e.los, 0.5 * (1.0 + erf(40.0 / sqrt(160.0))), 1e-12);

    /* +10 =5 -5: p = 0.625, se = 0.0927025, Elo 88.74 [-39.57, 248.19]. */
    e = elo_estimate(10, 5, 5);
    assert_float_equal(e.score, 0.625, 1e-12);
    assert_float_equal(e.se, 0.0927025, 1e-6);
    assert_float_equal(e.elo, 88.7395, 1e-3);
    assert_float_equal(e.elo_lo, -39.5672, 1e-3);
    assert_float_equal(e.elo_hi, 248.1886, 1e-3);

    /* +3 -1: the upper end passes p = 1, so the interval is open above. */
    e = elo_estimate(3, 0, 1);
    assert_float_equal(e.elo, 190.8485, 1e-3);
    assert_float_equal(e.elo_lo, -126.4556, 1e-3);
    assert_true(isinf(e.elo_hi) && e.elo_hi > 0);

    /* Symmetry: the other engine's view is the negation. */
    EloEstimate a = elo_estimate(7, 3, 2), b = elo_estimate(2, 3, 7);
    assert_float_equal(a.elo, -b.elo, 1e-9);
    assert_float_equal(a.elo_lo, -b.elo_hi, 1e-9);
}

static void test_elo_edges(void **state) {
    (void)state;
    EloEstimate e = elo_estimate(5, 0, 0); /* p = 1: se = 0, everything +inf */
    assert_true(isinf(e.elo) && e.elo > 0);
    assert_true(isinf(e.elo_lo) && e.elo_lo > 0);
    e = elo_estimate(0, 0, 4);
    assert_true(isinf(e.elo) && e.elo < 0);
    e = elo_estimate(0, 6, 0); /* all draws: 0 with an empty interval */
    assert_float_equal(e.elo, 0.0, 1e-12);
    assert_float_equal(e.elo_lo, 0.0, 1e-12);
    assert_float_equal(e.elo_hi, 0.0, 1e-12);
    assert_float_equal(e.los, 0.5, 1e-12);
    e = elo_estimate(0, 0, 0);
    assert_true(isnan(e.elo) && isnan(e.score));

    char buf[16];
    assert_string_equal(elo_format(INFINITY, buf, sizeof buf), "+inf");
    assert_string_equal(elo_format(-INFINITY, buf, sizeof buf), "-inf");
    assert_string_equal(elo_format(NAN, buf, sizeof buf), "n/a");
    assert_string_equal(elo_format(elo_from_score(0.5), buf, sizeof buf), "+0.0");
    assert_string_equal(elo_format(-35.26, buf, sizeof buf), "-35.3");
}

/* ---- CSA moves ---- */

static void load(Game *g, const char *usi) {
    char err[256];
    if (!game_set_from_usi(g, usi, err, sizeof err))
        fail_msg("position %s: %s", usi, err);
}

/* The CSA text of USI move text in the position given by usi. */
static void expect_csa(const char *usi, const char *move, const char *want) {
    Game g;
    game_init(&g);
    load(&g, usi);
    Move m = position_parse_usi_move(&g.pos, move);
    if (m == MOVE_NONE)
        fail_msg("%s is not legal after %s", move, usi);
    char buf[CSA_MOVE_MAX];
    assert_string_equal(csa_move(&g.pos, m, buf), want);
    game_free(&g);
}

static void test_csa_moves(void **state) {
    (void)state;
    expect_csa("startpos", "7g7f", "+7776FU");
    expect_csa("startpos moves 7g7f", "3c3d", "-3334FU");
    /* Bishop exchange: 8h takes on 2b and promotes (UM), the silver takes the horse back
     * (a capture of a promoted piece: the silver is what is written). */
    expect_csa("startpos moves 7g7f 3c3d", "8h2b+", "+8822UM");
    expect_csa("startpos moves 7g7f 3c3d 8h2b+", "3a2b", "-3122GI");
    /* Then each side drops its bishop. */
    expect_csa("startpos moves 7g7f 3c3d 8h2b+ 3a2b", "B*5e", "+0055KA");
    expect_csa("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*5e", "B*4d", "-0044KA");
    /* A dragon (already promoted) moves and keeps its name; a pawn enters the zone
     * without promoting; a silver promotes on leaving the zone. */
    expect_csa("sfen 4k4/9/9/9/9/9/7R1/9/4K4 b - 1 moves 2g2c+ 5a4a", "2c2a", "+2321RY");
    expect_csa("sfen 4k4/9/9/7P1/9/9/9/9/4K4 b - 1", "2d2c", "+2423FU");
    expect_csa("sfen 4k4/9/7S1/9/9/9/9/9/4K4 b - 1", "2c3d+", "+2334NG");
    /* White promotes a pawn on rank 7 and a knight on rank 9. */
    expect_csa("sfen 4k4/9/9/9/9/7p1/9/9/4K4 w - 1", "2f2g+", "-2627TO");
    expect_csa("sfen 4k4/9/9/9/9/9/7n1/9/K8 w - 1", "2g1i+", "-2719NK");
    /* A promoted lance captures a black dragon. */
    expect_csa("sfen 4k4/9/9/9/9/9/7+l1/7+R1/K8 w - 1", "2g2h", "-2728NY");
}

static void test_csa_end_markers(void **state) {
    (void)state;
    assert_string_equal(csa_end_marker(END_RESIGN, BLACK, BLACK), "%TORYO");
    assert_string_equal(csa_end_marker(END_MATE, WHITE, WHITE), "%TSUMI");
    assert_string_equal(csa_end_marker(END_REPETITION, BLACK, BLACK), "%SENNICHITE");
    assert_string_equal(csa_end_marker(END_PERPETUAL_CHECK, BLACK, WHITE), "%+ILLEGAL_ACTION");
    assert_string_equal(csa_end_marker(END_PERPETUAL_CHECK, WHITE, WHITE), "%-ILLEGAL_ACTION");
    assert_string_equal(csa_end_marker(END_DECLARATION, WHITE, BLACK), "%KACHI");
    assert_string_equal(csa_end_marker(END_DECLARATION, WHITE, WHITE), "%TSUMI"); /* try rule */
    assert_string_equal(csa_end_marker(END_FALSE_DECLARATION, BLACK, BLACK), "%ILLEGAL_MOVE");
    assert_string_equal(csa_end_marker(END_ILLEGAL, WHITE, WHITE), "%ILLEGAL_MOVE");
    assert_string_equal(csa_end_marker(END_MAX_MOVES, BLACK, BLACK), "%JISHOGI");
    assert_string_equal(csa_end_marker(END_TIME, BLACK, BLACK), "%TIME_UP");
    assert_string_equal(csa_end_marker(END_CRASH, BLACK, BLACK), "%TORYO");
    assert_string_equal(csa_end_marker(END_CRASH, WHITE, BLACK), "%-ILLEGAL_ACTION");
    assert_string_equal(csa_end_marker(END_NONE, BLACK, BLACK), "%CHUDAN");
}

/* Builds a record from a USI position (its moves become game moves, 1500 ms each). */
static void make_record(GameRecord *r, const char *usi, int n_opening) {
    Game g;
    game_init(&g);
    load(&g, usi);
    game_record_init(r);
    snprintf(r->black, sizeof r->black, "Alice");
    snprintf(r->white, sizeof r->white, "Bob");
    snprintf(r->root_sfen, sizeof r->root_sfen, "%s", g.root_sfen);
    for (int i = 0; i < g.count; i++)
        assert_true(game_record_push(r, g.moves[i], i < n_opening ? -1 : 1500, i == 2 ? -42 : RECORD_NO_SCORE));
    r->n_opening = n_opening;
    game_free(&g);
}

static void test_csa_record_text(void **state) {
    (void)state;
    GameRecord games[2];
    make_record(&games[0], "startpos moves 7g7f 3c3d 8h2b+", 1);
    games[0].end = END_RESIGN;
    games[0].outcome = OUTCOME_BLACK_WINS;
    /* White to move, with pawns and a bishop in hand. */
    make_record(&games[1], "sfen 4k4/9/9/9/9/9/9/9/4K4 w 2Pb 1 moves B*5e", 0);
    games[1].end = END_TIME;
    games[1].outcome = OUTCOME_WHITE_WINS;
    snprintf(games[1].detail, sizeof games[1].detail, "Alice: no bestmove");
    size_t len = 0;
    char err[128];
    char *text = csa_format_games(games, NULL, 2, &len, err, sizeof err);
    assert_non_null(text);
    const char *want = "V2.2\n"
                       "N+Alice\n"
                       "N-Bob\n"
                       "PI\n"
                       "+\n"
                       "+7776FU\n"
                       "'end of opening (1 moves)\n"
                       "-3334FU\n"
                       "T1\n"
                       "+8822UM\n"
                       "T1\n"
                       "'** -42\n"
                       "%TORYO\n"
                       "'summary:toryo:Alice win:Bob lose\n"
                       "/\n"
                       "N+Alice\n"
                       "N-Bob\n"
                       "P1 *  *  *  * -OU *  *  *  * \n"
                       "P2 *  *  *  *  *  *  *  *  * \n"
                       "P3 *  *  *  *  *  *  *  *  * \n"
                       "P4 *  *  *  *  *  *  *  *  * \n"
                       "P5 *  *  *  *  *  *  *  *  * \n"
                       "P6 *  *  *  *  *  *  *  *  * \n"
                       "P7 *  *  *  *  *  *  *  *  * \n"
                       "P8 *  *  *  *  *  *  *  *  * \n"
                       "P9 *  *  *  * +OU *  *  *  * \n"
                       "P+00FU00FU\n"
                       "P-00KA\n"
                       "-\n"
                       "-0055KA\n"
                       "T1\n"
                       "%TIME_UP\n"
                       "'summary:time up:Alice lose:Bob win\n"
                       "'Alice: no bestmove\n";
    assert_string_equal(text, want);
    assert_int_equal(len, strlen(want));
    free(text);
    /* a game given as raw text (match --resume's old games) is written as it is */
    const char *raw[2] = {"N+Carol\nN-Dan\nPI\n+\n%CHUDAN\n", NULL};
    text = csa_format_games(games, raw, 2, &len, err, sizeof err);
    assert_non_null(text);
    const char *head = "V2.2\nN+Carol\nN-Dan\nPI\n+\n%CHUDAN\n/\nN+Alice\nN-Bob\nP1 ";
    assert_memory_equal(text, head, strlen(head));
    assert_string_equal(strstr(text, "/\n") + 2, strstr(want, "/\n") + 2);
    free(text);
    game_record_free(&games[0]);
    game_record_free(&games[1]);
}

static void test_csa_rejects_a_record_that_does_not_replay(void **state) {
    (void)state;
    GameRecord r;
    make_record(&r, "startpos moves 7g7f", 0);
    r.moves[0] = move_make(square_make(6, 6), square_make(6, 4), false, piece_make(BLACK, PAWN)); /* 7g7e */
    size_t len;
    char err[128];
    assert_null(csa_format_games(&r, NULL, 1, &len, err, sizeof err));
    assert_non_null(strstr(err, "move 1 does not replay"));
    game_record_free(&r);
}

/* ---- Openings ---- */

static void expect_opening(const char *line, const char *want) {
    char *out = NULL;
    char err[256] = "";
    OpeningParse r = opening_parse_line(line, &out, err, sizeof err);
    if (r != OPENING_OK)
        fail_msg("'%s' rejected: %s", line, err);
    assert_string_equal(out, want);
    free(out);
}

static void expect_opening_error(const char *line, const char *reason) {
    char *out = NULL;
    char err[256] = "";
    assert_int_equal(opening_parse_line(line, &out, err, sizeof err), OPENING_ERROR);
    assert_null(out);
    if (!strstr(err, reason))
        fail_msg("'%s': reason '%s' lacks '%s'", line, err, reason);
}

static void test_opening_lines(void **state) {
    (void)state;
    expect_opening("startpos", "startpos");
    expect_opening("  startpos moves 7g7f 3c3d \r\n", "startpos moves 7g7f 3c3d");
    expect_opening("position startpos moves 2g2f", "startpos moves 2g2f");
    expect_opening("sfen " STARTPOS_SFEN " moves 7g7f", "sfen " STARTPOS_SFEN " moves 7g7f");
    expect_opening(STARTPOS_SFEN, "sfen " STARTPOS_SFEN);
    expect_opening("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 moves 3c3d",
                   "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 moves 3c3d");
    char *out = (char *)1;
    char err[64];
    assert_int_equal(opening_parse_line("", &out, err, sizeof err), OPENING_SKIP);
    assert_null(out);
    assert_int_equal(opening_parse_line("   \r", &out, err, sizeof err), OPENING_SKIP);
    assert_int_equal(opening_parse_line("# a comment", &out, err, sizeof err), OPENING_SKIP);

    expect_opening_error("startpos moves 7g7f 7g7f", "illegal");
    expect_opening_error("startpos moves 7g7x", "malformed");
    expect_opening_error("hello world", "expected 'startpos', 'sfen' or an SFEN");
    expect_opening_error("sfen lnsgkgsnl/9/9 b - 1", "bad sfen");
    /* Both kings are needed in a match, even though `position` accepts tsume positions. */
    expect_opening_error("sfen 4k4/9/9/9/9/9/9/9/9 b 2P 1", "king");
    /* Nifu in the start position. */
    expect_opening_error("sfen 4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1", "illegal start position");
    /* White is mated: nothing left to play. */
    expect_opening_error("sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", "already over");
}

static void test_openings_text(void **state) {
    (void)state;
    Openings o;
    char err[256];
    const char *text = "\xEF\xBB\xBF# openings\r\n"
                       "startpos moves 7g7f 3c3d\r\n"
                       "\r\n"
                       "position startpos moves 2g2f 8c8d\n"
                       "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"; /* no final newline */
    assert_true(openings_parse_text(&o, text, "t.txt", err, sizeof err));
    assert_int_equal(o.n, 3);
    assert_string_equal(o.lines[0], "startpos moves 7g7f 3c3d");
    assert_string_equal(o.lines[1], "startpos moves 2g2f 8c8d");
    assert_string_equal(o.lines[2], "sfen " STARTPOS_SFEN);

    /* Shuffling is a deterministic permutation. */
    Openings p;
    assert_true(openings_parse_text(&p, text, "t.txt", err, sizeof err));
    openings_shuffle(&o, 12345);
    openings_shuffle(&p, 12345);
    int found = 0;
    for (int i = 0; i < o.n; i++) {
        assert_string_equal(o.lines[i], p.lines[i]);
        found |= (strcmp(o.lines[i], "startpos moves 7g7f 3c3d") == 0) << 0;
        found |= (strcmp(o.lines[i], "startpos moves 2g2f 8c8d") == 0) << 1;
        found |= (strcmp(o.lines[i], "sfen " STARTPOS_SFEN) == 0) << 2;
    }
    assert_int_equal(found, 7);
    openings_free(&o);
    openings_free(&p);

    assert_false(openings_parse_text(&o, "startpos\n\nstartpos moves 7g7f 7g7f\n", "bad.txt", err, sizeof err));
    assert_non_null(strstr(err, "bad.txt:3: "));
    assert_int_equal(o.n, 0);
    assert_false(openings_parse_text(&o, "# nothing\n\n", "empty.txt", err, sizeof err));
    assert_non_null(strstr(err, "no openings"));
    assert_false(openings_load(&o, "/nonexistent/openings.txt", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/openings.txt"));
}

static void test_time_control_text(void **state) {
    (void)state;
    char buf[96];
    TimeControl b = {0, 0, 100, 0}, f = {60000, 1000, 0, 0}, t = {30000, 0, 5000, 0}, n = {0, 0, 0, 5000};
    assert_string_equal(time_control_describe(&b, buf, sizeof buf), "byoyomi 100 ms");
    assert_string_equal(time_control_describe(&f, buf, sizeof buf), "60000 ms + 1000 ms/move");
    assert_string_equal(time_control_describe(&t, buf, sizeof buf), "30000 ms + byoyomi 5000 ms");
    assert_string_equal(time_control_describe(&n, buf, sizeof buf), "nodes 5000");
}

static void test_engine_command_splitting(void **state) {
    (void)state;
    assert_false(engine_cmd_needs_shell("/usr/games/fairy-stockfish"));
    assert_false(engine_cmd_needs_shell("build/hayanagi usi"));
    assert_true(engine_cmd_needs_shell("cd /opt/e && ./engine"));
    assert_true(engine_cmd_needs_shell("FOO=1 engine"));
    assert_true(engine_cmd_needs_shell("engine 'a b'"));
    assert_true(engine_cmd_needs_shell("engine > log"));
}

/* --option NAME=VALUE as match and tune label read it. */
static void test_engine_option_from_arg(void **state) {
    (void)state;
    EngineOption o;
    char *copy;
    const char *why = NULL;
    assert_true(engine_option_from_arg("USI Hash =a=b", &o, &copy, &why));
    assert_string_equal(o.name, "USI Hash");
    assert_string_equal(o.value, "a=b");
    free(copy);
    assert_true(engine_option_from_arg("Clear Hash", &o, &copy, &why));
    assert_string_equal(o.name, "Clear Hash");
    assert_null(o.value);
    free(copy);
    const char *bad[] = {"", "=16", "  =16", "Hash=1\nquit", "Ha\nsh=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        assert_false(engine_option_from_arg(bad[i], &o, &copy, &why));
        assert_null(copy);
        assert_string_equal(why, "expects NAME=VALUE");
    }
}

/* match --resume reads every game and drops none: a finished game is counted, an
 * interrupted one (%CHUDAN) and a finished one whose summary line is missing are kept as
 * written and played again; a CRLF copy reads the same. */
static void test_resume_keeps_every_game(void **state) {
    (void)state;
    const char *g1 = "N+A\nN-B\n$EVENT:hayanagi match, game 1 of 2\nPI\n+\n+7776FU\n%JISHOGI\n"
                     "'summary:max_moves:A draw:B draw\n";
    const char *g2 = "N+B\nN-A\n$EVENT:hayanagi match, game 2 of 2\nPI\n+\n+2726FU\n-3334FU\n%CHUDAN\n";
    char rec[1024];
    snprintf(rec, sizeof rec, "V2.2\n%s/\n%s", g1, g2);
    MatchResume r;
    char err[256];
    assert_true(match_resume_read_memory("rec.csa", rec, strlen(rec), 2, &r, err, sizeof err));
    assert_int_equal(r.n_done, 1);
    assert_int_equal(r.done[0].end, END_MAX_MOVES);
    assert_int_equal(r.done[0].outcome, OUTCOME_DRAW);
    assert_int_equal(r.done[1].end, END_NONE);
    assert_non_null(r.text[0]);
    assert_string_equal(r.text[0], g1);
    assert_non_null(r.text[1]); /* the interrupted game's moves stay */
    assert_string_equal(r.text[1], g2);
    match_resume_free(&r);

    /* the finished game without its summary: not counted, kept */
    char g1bare[256];
    snprintf(g1bare, sizeof g1bare, "%.*s", (int)(strstr(g1, "'summary") - g1), g1);
    snprintf(rec, sizeof rec, "V2.2\n%s/\n%s", g1bare, g2);
    assert_true(match_resume_read_memory("rec.csa", rec, strlen(rec), 2, &r, err, sizeof err));
    assert_int_equal(r.n_done, 0);
    assert_non_null(r.text[0]);
    assert_string_equal(r.text[0], g1bare);
    assert_non_null(r.text[1]);
    match_resume_free(&r);

    /* CRLF */
    snprintf(rec, sizeof rec, "V2.2\n%s/\n%s", g1, g2);
    char crlf[2048];
    size_t m = 0;
    for (const char *p = rec; *p; p++) {
        if (*p == '\n')
            crlf[m++] = '\r';
        crlf[m++] = *p;
    }
    assert_true(match_resume_read_memory("crlf.csa", crlf, m, 2, &r, err, sizeof err));
    assert_int_equal(r.n_done, 1);
    assert_int_equal(r.done[0].end, END_MAX_MOVES);
    assert_non_null(r.text[1]);
    assert_non_null(strstr(r.text[1], "%CHUDAN\r\n"));
    match_resume_free(&r);
}

/* ---- The clock: each engine's own (time odds) ---- */

static void expect_go(const MatchClock *c, Color side, const char *want) {
    char buf[160];
    assert_string_equal(match_clock_go(c, side, false, buf, sizeof buf), want);
}

/* Fischer odds, 10 s + 100 ms against 60 s + 1 s: both remaining times and each side's own
 * increment in every go line, each clock charged by its own rule (hand-computed). */
static void test_clock_fischer_odds(void **state) {
    (void)state;
    const TimeControl b = {.time_ms = 10000, .inc_ms = 100}, w = {.time_ms = 60000, .inc_ms = 1000};
    MatchClock c;
    match_clock_start(&c, &b, &w);
    expect_go(&c, BLACK, "go btime 10000 wtime 60000 binc 100 winc 1000");
    assert_int_equal(match_clock_allowed_ms(&c, BLACK), 10000);
    match_clock_charge(&c, BLACK, 2500); /* 10000 - 2500 + 100 */
    expect_go(&c, WHITE, "go btime 7600 wtime 60000 binc 100 winc 1000");
    assert_int_equal(match_clock_allowed_ms(&c, WHITE), 60000);
    match_clock_charge(&c, WHITE, 400); /* 60000 - 400 + 1000 */
    expect_go(&c, BLACK, "go btime 7600 wtime 60600 binc 100 winc 1000");
    match_clock_charge(&c, BLACK, 9000); /* over: floored at 0, then + 100 */
    assert_int_equal(c.remaining_ms[BLACK], 100);
    assert_int_equal(match_clock_allowed_ms(&c, BLACK), 100);
    assert_int_equal(c.remaining_ms[WHITE], 60600);
    /* colours swapped (the next game): the same engines' clocks by colour */
    match_clock_start(&c, &w, &b);
    expect_go(&c, BLACK, "go btime 60000 wtime 10000 binc 1000 winc 100");
    /* for an engine that reads them the wrong way round, the figures trade places */
    char buf[160];
    assert_string_equal(match_clock_go(&c, BLACK, true, buf, sizeof buf),
                        "go btime 10000 wtime 60000 binc 100 winc 1000");
    assert_string_equal(match_clock_go(&c, WHITE, true, buf, sizeof buf),
                        "go btime 10000 wtime 60000 binc 100 winc 1000");
}

/* Byoyomi odds, 100 ms against 2000 ms: each mover is told its own byoyomi and may take it. */
static void test_clock_byoyomi_odds(void **state) {
    (void)state;
    const TimeControl b = {.byoyomi_ms = 100}, w = {.byoyomi_ms = 2000};
    MatchClock c;
    match_clock_start(&c, &b, &w);
    expect_go(&c, BLACK, "go btime 0 wtime 0 byoyomi 100");
    expect_go(&c, WHITE, "go btime 0 wtime 0 byoyomi 2000");
    assert_int_equal(match_clock_allowed_ms(&c, BLACK), 100);
    assert_int_equal(match_clock_allowed_ms(&c, WHITE), 2000);
    match_clock_charge(&c, WHITE, 1900);
    assert_int_equal(match_clock_allowed_ms(&c, WHITE), 2000); /* nothing banked, nothing lost */
}

/* Two forms at once: main time + byoyomi against Fischer; and fixed nodes against a clock. */
static void test_clock_mixed_forms(void **state) {
    (void)state;
    const TimeControl b = {.time_ms = 30000, .byoyomi_ms = 5000}, w = {.time_ms = 10000, .inc_ms = 500};
    MatchClock c;
    match_clock_start(&c, &b, &w);
    expect_go(&c, BLACK, "go btime 30000 wtime 10000 byoyomi 5000");
    expect_go(&c, WHITE, "go btime 30000 wtime 10000 binc 0 winc 500");
    assert_int_equal(match_clock_allowed_ms(&c, BLACK), 35000);
    match_clock_charge(&c, BLACK, 33000); /* into the byoyomi: main time 0, the byoyomi not banked */
    assert_int_equal(match_clock_allowed_ms(&c, BLACK), 5000);
    expect_go(&c, WHITE, "go btime 0 wtime 10000 binc 0 winc 500");

    const TimeControl n = {.nodes = 300}, by = {.byoyomi_ms = 100};
    match_clock_start(&c, &n, &by);
    assert_true(match_clock_by_nodes(&c, BLACK));
    assert_false(match_clock_by_nodes(&c, WHITE));
    expect_go(&c, BLACK, "go nodes 300");
    expect_go(&c, WHITE, "go btime 0 wtime 0 byoyomi 100");
    match_clock_charge(&c, BLACK, 99999); /* nodes: no clock to charge */
    assert_int_equal(c.remaining_ms[BLACK], 0);
    /* sudden death: no byoyomi, no increment sent */
    const TimeControl sd = {.time_ms = 5000};
    match_clock_start(&c, &sd, &sd);
    expect_go(&c, WHITE, "go btime 5000 wtime 5000");
}

/* The command line's clock options, common ([0]) and one engine's own ([1]); -1 not given. */
static bool resolve(long long t0, long long i0, long long b0, long long n0, long long t1, long long i1, long long b1,
                    long long n1, TimeControl *out, char *why) {
    const ClockArgs common = {{t0, "--time"}, {i0, "--inc"}, {b0, "--byoyomi"}, {n0, "--nodes"}};
    const ClockArgs own = {{t1, "--time2"}, {i1, "--inc2"}, {b1, "--byoyomi2"}, {n1, "--nodes2"}};
    why[0] = '\0';
    return time_control_resolve(&common, &own, "engine 2", out, why, 256);
}

static void expect_tc(const TimeControl *tc, long long time, long long inc, long long byo, long long nodes) {
    assert_int_equal(tc->time_ms, time);
    assert_int_equal(tc->inc_ms, inc);
    assert_int_equal(tc->byoyomi_ms, byo);
    assert_int_equal(tc->nodes, nodes);
}

static void test_clock_options(void **state) {
    (void)state;
    TimeControl tc;
    char why[256];
    /* nothing given: byoyomi 1000 */
    assert_true(resolve(-1, -1, -1, -1, -1, -1, -1, -1, &tc, why));
    expect_tc(&tc, 0, 0, 1000, 0);
    /* the own options override the common ones, field by field */
    assert_true(resolve(60000, 1000, -1, -1, 10000, 100, -1, -1, &tc, why));
    expect_tc(&tc, 10000, 100, 0, 0);
    assert_true(resolve(60000, -1, 1000, -1, -1, -1, 2000, -1, &tc, why));
    expect_tc(&tc, 60000, 0, 2000, 0);
    assert_true(resolve(-1, -1, 100, -1, 30000, -1, -1, -1, &tc, why)); /* main time + the common byoyomi */
    expect_tc(&tc, 30000, 0, 100, 0);
    /* an increment needs a main time, common or own */
    assert_false(resolve(-1, -1, -1, -1, -1, 100, -1, -1, &tc, why));
    assert_string_equal(why, "engine 2: --inc2 needs a main time (--time2 or --time)");
    assert_false(resolve(-1, 100, -1, -1, -1, -1, -1, -1, &tc, why));
    assert_string_equal(why, "engine 2: --inc needs a main time (--time2 or --time)");
    assert_true(resolve(-1, 100, -1, -1, 5000, -1, -1, -1, &tc, why));
    expect_tc(&tc, 5000, 100, 0, 0);
    /* Fischer or byoyomi, named by the options that gave them */
    assert_false(resolve(60000, 1000, -1, -1, -1, -1, 2000, -1, &tc, why));
    assert_string_equal(why, "engine 2: use either --inc (Fischer) or --byoyomi2, not both");
    assert_false(resolve(-1, -1, -1, -1, 1000, 10, 20, -1, &tc, why));
    assert_string_equal(why, "engine 2: use either --inc2 (Fischer) or --byoyomi2, not both");
    /* nodes: the own one wins over the common clock; the common one yields to an own clock */
    assert_true(resolve(-1, -1, 100, -1, -1, -1, -1, 300, &tc, why));
    assert_int_equal(tc.nodes, 300);
    assert_true(resolve(-1, -1, -1, 5000, -1, -1, 100, -1, &tc, why));
    expect_tc(&tc, 0, 0, 100, 0);
    assert_true(resolve(-1, -1, -1, 5000, -1, -1, -1, -1, &tc, why));
    assert_int_equal(tc.nodes, 5000);
    assert_false(resolve(-1, -1, -1, -1, -1, -1, 100, 300, &tc, why));
    assert_string_equal(why, "engine 2: --nodes2 cannot be combined with --byoyomi2, --time2 or --inc2");
    assert_false(resolve(-1, -1, 100, 5000, -1, -1, -1, -1, &tc, why));
    assert_string_equal(why, "--nodes cannot be combined with --byoyomi, --time or --inc");
}

static void test_clocks_text(void **state) {
    (void)state;
    char buf[160];
    TimeControl same[2] = {{.byoyomi_ms = 100}, {.byoyomi_ms = 100}};
    assert_string_equal(time_controls_describe(same, buf, sizeof buf), "byoyomi 100 ms");
    TimeControl odds[2] = {{.byoyomi_ms = 100}, {.byoyomi_ms = 2000}};
    assert_string_equal(time_controls_describe(odds, buf, sizeof buf),
                        "engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms");
    TimeControl fischer[2] = {{.time_ms = 10000, .inc_ms = 100}, {.time_ms = 60000, .inc_ms = 1000}};
    assert_string_equal(time_controls_describe(fischer, buf, sizeof buf),
                        "engine 1 10000 ms + 100 ms/move; engine 2 60000 ms + 1000 ms/move");
    TimeControl one_nodes[2] = {{.byoyomi_ms = 60000, .nodes = 20000}, {.byoyomi_ms = 60000}};
    assert_string_equal(time_controls_describe(one_nodes, buf, sizeof buf), "byoyomi 60000 ms; engine 1 nodes 20000");
    TimeControl nodes[2] = {{.nodes = 5000}, {.nodes = 5000}};
    assert_string_equal(time_controls_describe(nodes, buf, sizeof buf), "nodes 5000");
    nodes[1].nodes = 300;
    assert_string_equal(time_controls_describe(nodes, buf, sizeof buf), "engine 1 nodes 5000; engine 2 nodes 300");
}

/* ---- The record states each side's clock (CSA V3.0 $TIME lines), and reads it back ---- */

typedef struct {
    int games;
    RecordTimeControl time[4][COLOR_NB];
} TimesRead;

static bool take_times(void *ctx, const RecordGame *g) {
    TimesRead *t = ctx;
    if (t->games < 4)
        memcpy(t->time[t->games], g->time, sizeof g->time);
    t->games++;
    return true;
}

static void read_times(const char *text, TimesRead *t) {
    memset(t, 0, sizeof *t);
    RecordReadOptions ro = {.on_game = take_times, .ctx = t};
    char err[128];
    assert_true(record_read_memory("t.csa", text, strlen(text), REC_FMT_CSA, &ro, NULL, err, sizeof err));
}

static void expect_rtc(const RecordTimeControl *t, bool set, long long total, long long byo, long long inc) {
    assert_int_equal(t->set, set);
    assert_int_equal(t->total_ms, total);
    assert_int_equal(t->byoyomi_ms, byo);
    assert_int_equal(t->increment_ms, inc);
}

static void test_record_clocks_round_trip(void **state) {
    (void)state;
    GameRecord games[3];
    for (int i = 0; i < 3; i++) {
        make_record(&games[i], "startpos moves 7g7f 3c3d", 0);
        games[i].end = END_RESIGN;
        games[i].outcome = OUTCOME_BLACK_WINS;
    }
    const TimeControl odds[2] = {{.byoyomi_ms = 100}, {.time_ms = 60000, .inc_ms = 1500}};
    games[0].clock[BLACK] = time_control_for_record(&odds[0]);
    games[0].clock[WHITE] = time_control_for_record(&odds[1]);
    games[1].clock[BLACK] = games[1].clock[WHITE] = time_control_for_record(&odds[1]);
    const TimeControl n = {.nodes = 300};
    games[2].clock[BLACK] = time_control_for_record(&n);
    games[2].clock[WHITE] = time_control_for_record(&odds[0]);
    size_t len;
    char err[128];
    char *text = csa_format_games(games, NULL, 3, &len, err, sizeof err);
    assert_non_null(text);
    assert_non_null(strstr(text, "N-Bob\n$TIME+:0+0.1+0\n$TIME-:60+0+1.5\nPI\n"));
    assert_non_null(strstr(text, "N-Bob\n$TIME:60+0+1.5\nPI\n"));
    assert_non_null(strstr(text, "N-Bob\n$TIME-:0+0.1+0\nPI\n")); /* black on nodes: no clock */
    TimesRead t;
    read_times(text, &t);
    assert_int_equal(t.games, 3);
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < COLOR_NB; c++)
            assert_true(record_time_control_equal(&t.time[i][c], &games[i].clock[c]));
    free(text);
    for (int i = 0; i < 3; i++)
        game_record_free(&games[i]);

    /* a side's own line wins over $TIME in either order; a value that does not read states
     * nothing; the next game starts with nothing */
    read_times("V3.0\n$TIME-:0+30+0\n$TIME:600+10+0\nPI\n+\n+7776FU\n/\n$TIME:1.2.3+0+0\n$TIME+:10+0+0.0005\nPI\n+\n"
               "/\n$TIME+:999999999.999+0+0\n$TIME-:1+2\nPI\n+\n/\nPI\n+\n",
               &t);
    assert_int_equal(t.games, 4);
    expect_rtc(&t.time[0][BLACK], true, 600000, 10000, 0);
    expect_rtc(&t.time[0][WHITE], true, 0, 30000, 0);
    expect_rtc(&t.time[1][BLACK], false, 0, 0, 0);
    expect_rtc(&t.time[1][WHITE], false, 0, 0, 0);
    expect_rtc(&t.time[2][BLACK], true, 999999999999LL, 0, 0);
    expect_rtc(&t.time[2][WHITE], false, 0, 0, 0);
    expect_rtc(&t.time[3][BLACK], false, 0, 0, 0);
    char buf[RECORD_TIME_CONTROL_MAX];
    RecordTimeControl big = {true, 999999999999LL, 1, 10};
    assert_string_equal(record_time_control_format(&big, buf, sizeof buf), "999999999.999+0.001+0.01");
}

/* --resume refuses a record whose games were played at two time controls, and reports the
 * one they share (the command compares it with its own clocks). */
static void test_resume_time_control(void **state) {
    (void)state;
    const char *g1 = "N+A\nN-B\n$EVENT:hayanagi match, game 1 of 2\n'time control: engine 1 byoyomi 100 ms; "
                     "engine 2 byoyomi 2000 ms\nPI\n+\n%TORYO\n'summary:toryo:A lose:B win\n";
    const char *g2 = "N+B\nN-A\n$EVENT:hayanagi match, game 2 of 2\n'time control: byoyomi 100 ms\nPI\n+\n%CHUDAN\n";
    char rec[1024];
    snprintf(rec, sizeof rec, "V2.2\n%s/\n%s", g1, g2);
    MatchResume r;
    char err[256];
    assert_false(match_resume_read_memory("rec.csa", rec, strlen(rec), 2, &r, err, sizeof err));
    assert_non_null(strstr(err, "rec.csa:11: game 2 was played at 'byoyomi 100 ms', an earlier game at 'engine 1 "
                                "byoyomi 100 ms; engine 2 byoyomi 2000 ms'"));
    match_resume_free(&r);
    snprintf(rec, sizeof rec, "V2.2\n%s", g1);
    assert_true(match_resume_read_memory("rec.csa", rec, strlen(rec), 2, &r, err, sizeof err));
    assert_string_equal(r.time_control, "engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms");
    match_resume_free(&r);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elo_from_score),
        cmocka_unit_test(test_elo_estimate_known_values),
        cmocka_unit_test(test_elo_edges),
        cmocka_unit_test(test_csa_moves),
        cmocka_unit_test(test_csa_end_markers),
        cmocka_unit_test(test_csa_record_text),
        cmocka_unit_test(test_csa_rejects_a_record_that_does_not_replay),
        cmocka_unit_test(test_opening_lines),
        cmocka_unit_test(test_openings_text),
        cmocka_unit_test(test_time_control_text),
        cmocka_unit_test(test_engine_command_splitting),
        cmocka_unit_test(test_engine_option_from_arg),
        cmocka_unit_test(test_resume_keeps_every_game),
        cmocka_unit_test(test_clock_fischer_odds),
        cmocka_unit_test(test_clock_byoyomi_odds),
        cmocka_unit_test(test_clock_mixed_forms),
        cmocka_unit_test(test_clock_options),
        cmocka_unit_test(test_clocks_text),
        cmocka_unit_test(test_record_clocks_round_trip),
        cmocka_unit_test(test_resume_time_control),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
