/* test_csa_client.c - the CSA client's parsers and clock (csa/message.h, csa/clock.h) and
 * the CSA move reader (record/csa_write.h: csa_move_parse).
 *
 * Where the texts come from: the Game_Summary is shogi-server's own template
 * (shogi_server/game.rb, propose_message: the key order, "Declaration:Jishogi 1.1", moves
 * already played as "+2726FU,T12"), filled in by hand; the clock figures are worked out by
 * hand from shogi-server's arithmetic (shogi_server/time_clock.rb: a move is charged
 * max(floor(T), Least_Time_Per_Move), the increment is added and the charge taken off,
 * the remaining time is floored at zero), written next to each check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csa/clock.h"
#include "csa/message.h"
#include "record/csa_write.h"
#include "shogi/game.h"
#include "shogi/notation.h"

static const char SHOGI_SERVER_SUMMARY[] = "BEGIN Game_Summary\n"
                                           "Protocol_Version:1.2\n"
                                           "Protocol_Mode:Server\n"
                                           "Format:Shogi 1.0\n"
                                           "Declaration:Jishogi 1.1\n"
                                           "Game_ID:wdoor+floodgate-300-10F+a+b+20261206150000\n"
                                           "Name+:a\n"
                                           "Name-:b\n"
                                           "Your_Turn:-\n"
                                           "Rematch_On_Draw:NO\n"
                                           "To_Move:+\n"
                                           "Max_Moves:256\n"
                                           "BEGIN Time\n"
                                           "Time_Unit:1sec\n"
                                           "Total_Time:300\n"
                                           "Byoyomi:0\n"
                                           "Increment:10\n"
                                           "Least_Time_Per_Move:0\n"
                                           "END Time\n"
                                           "BEGIN Position\n"
                                           "PI\n"
                                           "+\n"
                                           "+2726FU,T12\n"
                                           "-3334FU,T6\n"
                                           "+7776FU,T10\n"
                                           "END Position\n"
                                           "END Game_Summary\n";

/* Feeds text line by line; returns the last state and the error. */
static CsaFeed feed_text(CsaSummaryParser *p, CsaSummary *s, const char *text, char *err, size_t err_len) {
    csa_summary_begin(p, s);
    CsaFeed f = CSA_FEED_MORE;
    const char *t = text;
    char line[CSA_LINE_MAX * 2];
    while (*t && f == CSA_FEED_MORE) {
        const char *nl = strchr(t, '\n');
        size_t n = nl ? (size_t)(nl - t) : strlen(t);
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, t, n);
        line[n] = 0;
        f = csa_summary_feed(p, line, err, err_len);
        t = nl ? nl + 1 : t + n;
    }
    return f;
}

typedef struct {
    CsaSummaryParser p;
    CsaSummary s;
} Fixture;

static int setup(void **state) {
    shogi_init();
    Fixture *f = malloc(sizeof *f);
    *state = f;
    return f ? 0 : -1;
}

static int teardown(void **state) {
    free(*state);
    return 0;
}

static void test_shogi_server_summary(void **state) {
    Fixture *f = *state;
    char err[256] = "";
    assert_int_equal(feed_text(&f->p, &f->s, SHOGI_SERVER_SUMMARY, err, sizeof err), CSA_FEED_DONE);
    const CsaSummary *s = &f->s;
    assert_string_equal(s->name[BLACK], "a");
    assert_string_equal(s->name[WHITE], "b");
    assert_string_equal(s->game_id, "wdoor+floodgate-300-10F+a+b+20261206150000");
    assert_int_equal(s->my_color, WHITE);
    assert_int_equal(s->to_move, BLACK);
    assert_int_equal(s->max_moves, 256);
    assert_int_equal(s->time_unit_ms, 1000);
    assert_int_equal(s->time[BLACK].total_ms, 300000);
    assert_int_equal(s->time[WHITE].increment_ms, 10000);
    assert_int_equal(s->time[WHITE].byoyomi_ms, 0);
    assert_int_equal(s->time[WHITE].remaining_ms, -1);
    assert_string_equal(s->root_sfen, STARTPOS_SFEN);
    assert_int_equal(s->n_moves, 3);
    char m[USI_MOVE_MAX];
    assert_string_equal(move_to_usi(s->moves[0], m), "2g2f");
    assert_string_equal(move_to_usi(s->moves[1], m), "3c3d");
    assert_string_equal(move_to_usi(s->moves[2], m), "7g7f");
    assert_int_equal(s->move_units[0], 12);
    assert_int_equal(s->move_units[1], 6);
    assert_int_equal(s->move_units[2], 10);

    /* the clock at white's move: black 300 - 12 + 10 - 10 + 10 = 298 s, white 300 - 6 + 10 = 304 s */
    CsaClock c;
    csa_clock_init(&c, s);
    assert_int_equal(c.remaining_ms[BLACK], 298000);
    assert_int_equal(c.remaining_ms[WHITE], 304000);
    char go[160];
    assert_string_equal(csa_clock_go(&c, WHITE, 300, go, sizeof go), "btime 298000 wtime 303700 binc 10000 winc 10000");
    /* the server allows up to remaining + increment (floored: strictly less) */
    assert_int_equal(csa_clock_budget_ms(&c, WHITE, 300), 304000 + 10000 - 300);
}

/* P1..P9 rows with pieces in hand and white to move: the SFEN written by hand (rows run
 * from file 9 to file 1, so the king in the sixth column stands on 4a). */
static void test_rows_and_hands(void **state) {
    Fixture *f = *state;
    static const char text[] = "BEGIN Game_Summary\n"
                               "Name+:x\nName-:y\nYour_Turn:+\n"
                               "BEGIN Position\n"
                               "P1 *  *  *  *  * -OU *  *  * \n"
                               "P2 *  *  *  *  *  *  *  *  * \n"
                               "P3 *  *  *  *  *  *  *  *  * \n"
                               "P4 *  *  *  *  *  *  *  *  * \n"
                               "P5 *  *  *  *  *  *  *  *  * \n"
                               "P6 *  *  *  *  *  *  *  *  * \n"
                               "P7 *  *  *  *  *  *  *  *  * \n"
                               "P8 *  *  *  *  *  *  *  *  * \n"
                               "P9 *  *  *  * +OU *  *  *  * \n"
                               "P+00KI00FU\n"
                               "P-00HI\n"
                               "-\n"
                               "END Position\n"
                               "END Game_Summary\n";
    char err[256] = "";
    assert_int_equal(feed_text(&f->p, &f->s, text, err, sizeof err), CSA_FEED_DONE);
    Position pos;
    StateInfo st;
    assert_true(position_from_sfen(&pos, &st, f->s.root_sfen, NULL, 0));
    char sfen[SFEN_MAX];
    position_to_sfen(&pos, sfen, false);
    assert_string_equal(sfen, "5k3/9/9/9/9/9/9/9/4K4 w GPr");
    assert_int_equal(f->s.time_unit_ms, 1000);
    assert_int_equal(f->s.n_moves, 0);
}

/* Per-side Time sections, a unit of minutes, Remaining_Time and Time_Roundup. */
static void test_time_sections(void **state) {
    Fixture *f = *state;
    static const char text[] = "BEGIN Game_Summary\nName+:x\nName-:y\nYour_Turn:+\n"
                               "BEGIN Time+\nTime_Unit:1min\nTotal_Time:10\nByoyomi:1\nTime_Roundup:YES\n"
                               "Remaining_Time+:3\nEND Time+\n"
                               "BEGIN Time-\nTotal_Time:5\nLeast_Time_Per_Move:1\nEND Time-\n"
                               "BEGIN Position\nPI\n+\nEND Position\nEND Game_Summary\n";
    char err[256] = "";
    assert_int_equal(feed_text(&f->p, &f->s, text, err, sizeof err), CSA_FEED_DONE);
    const CsaSummary *s = &f->s;
    assert_int_equal(s->time[BLACK].total_ms, 600000);
    assert_int_equal(s->time[BLACK].byoyomi_ms, 60000);
    assert_true(s->time[BLACK].roundup);
    assert_int_equal(s->time[BLACK].remaining_ms, 180000);
    assert_int_equal(s->time[WHITE].total_ms, 300000);
    assert_int_equal(s->time[WHITE].byoyomi_ms, 0);
    assert_false(s->time[WHITE].roundup);
    CsaClock c;
    csa_clock_init(&c, s);
    assert_int_equal(c.remaining_ms[BLACK], 180000); /* the server's figure wins */
    /* rounding up: one unit (a minute) less is ours; margin 0 */
    assert_int_equal(csa_clock_budget_ms(&c, BLACK, 0), 180000 + 60000 - 60000);
    /* white is charged at least a minute even for T0 */
    csa_clock_charge(&c, WHITE, 0);
    assert_int_equal(c.remaining_ms[WHITE], 240000);
}

/* Byoyomi: the main time floors at zero, the byoyomi is never banked, the margin comes
 * off the byoyomi. */
static void test_byoyomi_clock(void **state) {
    (void)state;
    CsaSummary *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->time_unit_ms = 1000;
    snprintf(s->root_sfen, sizeof s->root_sfen, "%s", STARTPOS_SFEN);
    for (int c = 0; c < COLOR_NB; c++) {
        s->time[c].total_ms = 10000;
        s->time[c].byoyomi_ms = 3000;
        s->time[c].remaining_ms = -1;
    }
    CsaClock c;
    csa_clock_init(&c, s);
    csa_clock_charge(&c, BLACK, 7);
    assert_int_equal(c.remaining_ms[BLACK], 3000);
    csa_clock_charge(&c, BLACK, 5); /* 3 s of main time and 2 s of byoyomi */
    assert_int_equal(c.remaining_ms[BLACK], 0);
    char go[160];
    assert_string_equal(csa_clock_go(&c, BLACK, 250, go, sizeof go), "btime 0 wtime 10000 byoyomi 2750");
    assert_int_equal(csa_clock_budget_ms(&c, BLACK, 250), 2750);
    /* sudden death: the margin comes off the main time, never below zero */
    c.time[WHITE].byoyomi_ms = 0;
    c.remaining_ms[WHITE] = 100;
    assert_string_equal(csa_clock_go(&c, WHITE, 250, go, sizeof go), "btime 0 wtime 0 byoyomi 0");
    free(s);
}

static void expect_error(Fixture *f, const char *text, const char *want) {
    char err[256] = "";
    assert_int_equal(feed_text(&f->p, &f->s, text, err, sizeof err), CSA_FEED_ERROR);
    if (!strstr(err, want))
        fail_msg("expected '%s' in '%s'", want, err);
}

static void test_refusals(void **state) {
    Fixture *f = *state;
    expect_error(f, "hello\n", "summary line 1: expected BEGIN Game_Summary");
    expect_error(f, "BEGIN Game_Summary\nName+:x\nName-:y\nBEGIN Position\nPI\n+\nEND Position\nEND Game_Summary\n",
                 "summary line 8: the summary has no Your_Turn");
    expect_error(f, "BEGIN Game_Summary\nName+:x\nYour_Turn:+\nBEGIN Position\nPI\n+\nEND Position\nEND Game_Summary\n",
                 "no Name-");
    expect_error(f, "BEGIN Game_Summary\nYour_Turn:*\n", "summary line 2: the side is neither + nor -");
    expect_error(f, "BEGIN Game_Summary\nBEGIN Time\nTime_Unit:1hour\n", "summary line 3: bad Time_Unit");
    expect_error(f, "BEGIN Game_Summary\nBEGIN Time\nTotal_Time:-5\n", "bad time value");
    expect_error(f, "BEGIN Game_Summary\nBEGIN Time\nTotal_Time:99999999999\n", "bad time value");
    expect_error(f, "BEGIN Game_Summary\njust words\n", "summary line 2: not a Key:Value line");
    expect_error(f, "BEGIN Game_Summary\nName+:\n", "bad name");
    expect_error(f, "BEGIN Game_Summary\nEND Time\n", "unexpected BEGIN/END");
    /* a move by the wrong side, found by the record reader, with its line in the block */
    expect_error(f,
                 "BEGIN Game_Summary\nName+:x\nName-:y\nYour_Turn:+\nBEGIN Position\nPI\n+\n+2726FU,T1\n+7776FU,T1\n"
                 "END Position\n",
                 "summary line 10: position block line 4");
    expect_error(f,
                 "BEGIN Game_Summary\nName+:x\nName-:y\nYour_Turn:+\nTo_Move:-\nBEGIN Position\nPI\n+\nEND Position\n"
                 "END Game_Summary\n",
                 "summary line 10: To_Move is not the side to move");
    /* a tsume-style position (one king) reads as a record but cannot start a game */
    expect_error(f,
                 "BEGIN Game_Summary\nName+:x\nName-:y\nYour_Turn:+\nBEGIN Position\nP1 *  *  *  * -OU *  *  *  * \n"
                 "P+00KI\n+\nEND Position\n",
                 "summary line 9: the position cannot start a game");
    expect_error(f, "BEGIN Game_Summary\nBEGIN Position\nPI\n+\n+2726FU,X1\n", "malformed move in the position block");
    expect_error(f, "BEGIN Game_Summary\nBEGIN Position\nPI\n+\nEND Position\nBEGIN Position\n",
                 "a second position block");
    /* bounded: a line over the limit, and too many lines */
    char *big = malloc(CSA_LINE_MAX + 64);
    assert_non_null(big);
    memset(big, 'x', CSA_LINE_MAX + 10);
    big[CSA_LINE_MAX + 10] = 0;
    csa_summary_begin(&f->p, &f->s);
    char err[256];
    assert_int_equal(csa_summary_feed(&f->p, "BEGIN Game_Summary", err, sizeof err), CSA_FEED_MORE);
    assert_int_equal(csa_summary_feed(&f->p, big, err, sizeof err), CSA_FEED_ERROR);
    assert_non_null(strstr(err, "line too long"));
    free(big);
    csa_summary_begin(&f->p, &f->s);
    CsaFeed st = csa_summary_feed(&f->p, "BEGIN Game_Summary", err, sizeof err);
    int lines = 1;
    while (st == CSA_FEED_MORE && lines < CSA_SUMMARY_LINES_MAX + 10) {
        st = csa_summary_feed(&f->p, "Protocol_Version:1.2", err, sizeof err);
        lines++;
    }
    assert_int_equal(st, CSA_FEED_ERROR);
    assert_int_equal(lines, CSA_SUMMARY_LINES_MAX + 1);
    assert_non_null(strstr(err, "summary too long"));
    /* nothing is accepted after an error */
    assert_int_equal(csa_summary_feed(&f->p, "END Game_Summary", err, sizeof err), CSA_FEED_ERROR);
}

static void test_messages(void **state) {
    (void)state;
    CsaMsg m;
    char why[128];
    assert_true(csa_message_parse("+7776FU,T12", &m, why, sizeof why));
    assert_int_equal(m.type, CSA_MSG_MOVE);
    assert_string_equal(m.move, "+7776FU");
    assert_int_equal(m.units, 12);
    assert_true(csa_message_parse("-3334FU", &m, why, sizeof why));
    assert_int_equal(m.units, -1);
    assert_true(csa_message_parse("+7776FU,'* 30 -3334FU +2726FU", &m, why, sizeof why));
    assert_int_equal(m.type, CSA_MSG_MOVE);
    assert_true(csa_message_parse("%TORYO,T3", &m, why, sizeof why));
    assert_int_equal(m.type, CSA_MSG_SPECIAL);
    assert_string_equal(m.special, "%TORYO");
    assert_int_equal(m.units, 3);
    assert_true(csa_message_parse("#OUTE_SENNICHITE", &m, why, sizeof why));
    assert_int_equal(m.type, CSA_MSG_END);
    assert_int_equal(m.word, CSA_END_OUTE_SENNICHITE);
    assert_false(csa_end_word_is_final(m.word));
    assert_true(csa_message_parse("#CENSORED", &m, why, sizeof why));
    assert_true(csa_end_word_is_final(m.word));
    assert_true(csa_message_parse("", &m, why, sizeof why));
    assert_int_equal(m.type, CSA_MSG_EMPTY);
    static const char *const bad[] = {"+77a6FU",     "+7776F",     "+7776FU,X", "+7776FU,T12,T3",
                                      "+7776FUx",    "#FOO",       "%FOO",      "+7776FU,T",
                                      "+7776FU,T-1", "LOGIN:x OK", "%TORYOX",   "+7776FU,T999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = 0;
        if (csa_message_parse(bad[i], &m, why, sizeof why))
            fail_msg("accepted '%s'", bad[i]);
        assert_true(why[0] != 0);
    }
}

static void test_move_parse(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    const char *why = NULL;
    char u[USI_MOVE_MAX];
    Move m = csa_move_parse(&g.pos, "+7776FU", 7, &why);
    assert_string_equal(move_to_usi(m, u), "7g7f");
    assert_int_equal(csa_move_parse(&g.pos, "-3334FU", 7, &why), MOVE_NONE);
    assert_string_equal(why, "move by the side not to move");
    assert_int_equal(csa_move_parse(&g.pos, "+8822UM", 7, &why), MOVE_NONE); /* the pawn on 77 blocks */
    assert_string_equal(why, "illegal move");
    assert_int_equal(csa_move_parse(&g.pos, "+0055FU", 7, &why), MOVE_NONE); /* nothing in hand */
    assert_int_equal(csa_move_parse(&g.pos, "+7776KI", 7, &why), MOVE_NONE);
    assert_string_equal(why, "piece mismatch");
    assert_true(game_push(&g, m));
    assert_true(game_push(&g, csa_move_parse(&g.pos, "-3334FU", 7, &why)));
    m = csa_move_parse(&g.pos, "+8822UM", 7, &why);
    assert_string_equal(move_to_usi(m, u), "8h2b+");
    char back[CSA_MOVE_MAX];
    assert_string_equal(csa_move(&g.pos, m, back), "+8822UM");
    game_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shogi_server_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_and_hands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_sections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byoyomi_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move_parse, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
