/* test_searcher.c - the searcher interface's common layer (bookgen/searcher.h): dynamic
 * MultiPV widening against a scripted searcher whose scores are known, the score scale
 * of parsed info lines, and think's provenance comments and --rethink-if conditions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bookgen/think.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

/* A searcher that answers MultiPV m with the first m legal moves, scored scores[0..m). */
typedef struct {
    Searcher base;
    const int *scores;
    int n_scores;
    int calls;
    int mpv_seen[8];
} Scripted;

static SearchStatus scripted_analyse(Searcher *s, int slot, Position *pos, const SearchBudget *b, int mpv,
                                     SearchAnswer *out) {
    (void)slot;
    (void)b;
    Scripted *sc = (Scripted *)s;
    sc->mpv_seen[sc->calls++ % 8] = mpv;
    ExtMove moves[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, moves);
    for (int i = 0; i < mpv && i < n && i < sc->n_scores; i++) {
        out->c[i].move = move_to_move16(moves[i].move);
        out->c[i].score = sc->scores[i];
        out->c[i].has_score = true;
        out->n++;
    }
    out->nodes = 100;
    return SEARCH_OK;
}

static void scripted_nop(Searcher *s) { (void)s; }

/* A searcher whose MultiPV lines come from different iterations and repeat a move. */
static SearchStatus repeating_analyse(Searcher *s, int slot, Position *pos, const SearchBudget *b, int mpv,
                                      SearchAnswer *out) {
    (void)s;
    (void)slot;
    (void)b;
    (void)mpv;
    ExtMove moves[MAX_MOVES];
    int n = generate_moves(pos, GEN_LEGAL, moves);
    assert_true(n >= 2);
    const int pick[3] = {0, 0, 1}; /* index 2 repeats index 1's move */
    for (int i = 0; i < 3; i++) {
        out->c[i].move = move_to_move16(moves[pick[i]].move);
        out->c[i].score = 100 - 10 * i;
        out->c[i].has_score = true;
    }
    out->n = 3;
    return SEARCH_OK;
}

static const SearcherOps REPEATING_OPS = {repeating_analyse, scripted_nop, NULL, NULL, scripted_nop};

static void test_duplicate_moves_dropped(void **state) {
    (void)state;
    Searcher s = {&REPEATING_OPS, 1, false};
    Game g;
    game_init(&g);
    assert_true(game_set_from_usi(&g, "startpos", NULL, 0));
    SearchBudget b = {.nodes = 1, .multipv = 3};
    SearchAnswer a;
    assert_int_equal(searcher_analyse(&s, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(a.n, 2);
    assert_int_not_equal(a.c[0].move, a.c[1].move);
    assert_int_equal(a.c[0].score, 100); /* the better-ranked line stays */
    assert_int_equal(a.c[1].score, 80);
    game_free(&g);
}

static const SearcherOps SCRIPTED_OPS = {scripted_analyse, scripted_nop, NULL, NULL, scripted_nop};

static void start(Game *g) {
    game_init(g);
    assert_true(game_set_from_usi(g, "startpos", NULL, 0));
}

static void test_widening(void **state) {
    (void)state;
    static const int scores[] = {100, 90, 80, 70, 60, 50, 40, 30};
    Scripted sc = {{&SCRIPTED_OPS, 1, false}, scores, 8, 0, {0}};
    Game g;
    start(&g);
    SearchAnswer a;
    /* K 2, margin 25, max 8: MultiPV 2 (90 within 25) -> 4 (70 is 30 behind): keep 3 */
    SearchBudget b = {.nodes = 1, .multipv = 2, .multipv_margin = 25, .multipv_max = 8};
    assert_int_equal(searcher_analyse(&sc.base, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(sc.calls, 2);
    assert_int_equal(sc.mpv_seen[0], 2);
    assert_int_equal(sc.mpv_seen[1], 4);
    assert_int_equal(a.n, 3);
    assert_int_equal(a.multipv_used, 4);
    assert_int_equal(a.nodes, 200); /* both searches count */
    /* margin 1000: widens to the maximum and keeps everything */
    sc.calls = 0;
    b.multipv_margin = 1000;
    b.multipv_max = 5;
    assert_int_equal(searcher_analyse(&sc.base, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(sc.calls, 3); /* 2, 4, then 5: the maximum caps the doubling */
    assert_int_equal(a.multipv_used, 5);
    assert_int_equal(a.n, 5);
    sc.calls = 0;
    b.multipv_max = 8;
    assert_int_equal(searcher_analyse(&sc.base, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(sc.calls, 3); /* 2, 4, 8 */
    assert_int_equal(a.n, 8);
    /* no margin: one search, K kept */
    sc.calls = 0;
    b.multipv_margin = 0;
    assert_int_equal(searcher_analyse(&sc.base, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(sc.calls, 1);
    assert_int_equal(a.n, 2);
    /* margin 5: 90 is 10 behind: no widening, K kept */
    sc.calls = 0;
    b.multipv_margin = 5;
    assert_int_equal(searcher_analyse(&sc.base, 0, &g.pos, &b, &a), SEARCH_OK);
    assert_int_equal(sc.calls, 1);
    assert_int_equal(a.n, 2);
    game_free(&g);
}

static void test_candidate_scale(void **state) {
    (void)state;
    Game g;
    start(&g);
    UsiInfo in;
    SearchCandidate c;
    assert_true(usi_info_parse("info depth 9 score mate 3 pv 7g7f 3c3d", &g.pos, &in, NULL, 0));
    assert_true(searcher_candidate_from_info(&in, &c));
    assert_int_equal(c.score, 32000 - 3);
    assert_int_equal(c.depth, 9);
    assert_int_not_equal(c.ponder, MOVE_NONE);
    assert_true(usi_info_parse("info depth 9 score mate -4 pv 7g7f", &g.pos, &in, NULL, 0));
    assert_true(searcher_candidate_from_info(&in, &c));
    assert_int_equal(c.score, -32000 + 4);
    assert_int_equal(c.ponder, MOVE_NONE);
    assert_true(usi_info_parse("info depth 9 score mate + pv 7g7f", &g.pos, &in, NULL, 0));
    assert_true(searcher_candidate_from_info(&in, &c));
    assert_true(c.score > 30000 && c.score < 32000 - 100); /* a mate, of unknown (the longest) length */
    assert_true(usi_info_parse("info depth 9 score cp 99999 pv 7g7f", &g.pos, &in, NULL, 0));
    assert_true(searcher_candidate_from_info(&in, &c));
    assert_int_equal(c.score, 30000); /* centipawns never look like a mate */
    assert_true(usi_info_parse("info depth 9 score cp 5", &g.pos, &in, NULL, 0));
    assert_false(searcher_candidate_from_info(&in, &c));
    game_free(&g);
}

/* A game set from a position (the in-process searcher's and expand's start) is the game its
 * SFEN text gives: same root text, keys, hands, side and move number, and no history. */
static void test_game_from_position(void **state) {
    (void)state;
    Game g, a, b;
    game_init(&g);
    assert_true(game_set_from_usi(&g, "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e", NULL, 0));
    char sfen[SFEN_MAX];
    position_to_sfen(&g.pos, sfen, true);
    game_init(&a);
    game_init(&b);
    assert_true(game_set_position(&a, &g.pos, NULL, 0));
    assert_true(game_set_sfen(&b, sfen, NULL, 0));
    assert_string_equal(a.root_sfen, sfen);
    assert_string_equal(a.root_sfen, b.root_sfen);
    assert_int_equal(a.count, 0);
    assert_null(a.pos.st->previous);
    assert_true(a.pos.st->board_key == b.pos.st->board_key && a.pos.st->hand_key == b.pos.st->hand_key);
    assert_true(a.pos.st->board_key == g.pos.st->board_key);
    assert_int_equal(a.pos.side, WHITE);
    assert_int_equal(a.pos.ply, 6);
    assert_true(a.pos.hand[WHITE] == b.pos.hand[WHITE] && a.pos.hand[WHITE] != 0);
    /* a position without a king is refused, the game left as it was */
    Position nk = g.pos;
    nk.board[nk.king_sq[BLACK]] = NO_PIECE;
    char err[128] = "";
    assert_false(game_set_position(&a, &nk, err, sizeof err));
    assert_true(strlen(err) > 0);
    assert_string_equal(a.root_sfen, sfen);
    game_free(&g);
    game_free(&a);
    game_free(&b);
}

static void test_provenance_and_rethink(void **state) {
    (void)state;
    ThinkProvenance p;
    const char *comment = "an older note\n"
                          "think engine=Weak 1.0; budget=nodes 1000; depth=5; nodes=1000; date=2026-01-02T00:00:00Z\n"
                          "think engine=YaneuraOu NNUE 8.30; budget=go btime 0 wtime 0 byoyomi 1000; depth=22; "
                          "nodes=123456789; date=2026-12-06T01:02:03Z";
    assert_true(think_provenance_parse(comment, &p));
    assert_string_equal(p.engine, "YaneuraOu NNUE 8.30"); /* the last line wins */
    assert_string_equal(p.budget, "go btime 0 wtime 0 byoyomi 1000");
    assert_int_equal(p.depth, 22);
    assert_true(p.nodes == 123456789ULL);
    assert_string_equal(p.date, "2026-12-06T01:02:03Z");
    assert_false(think_provenance_parse("no think here; engine=x", &p));
    ThinkRethink r;
    char err[256];
    assert_true(think_rethink_parse("engine!=YaneuraOu NNUE 8.30", &r, err, sizeof err));
    assert_true(think_provenance_parse(comment, &p));
    assert_false(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("engine=YaneuraOu NNUE 8.30", &r, err, sizeof err));
    assert_true(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("depth<23", &r, err, sizeof err));
    assert_true(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("depth<22", &r, err, sizeof err));
    assert_false(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("nodes>=123456789", &r, err, sizeof err));
    assert_true(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("date<2026-12-07", &r, err, sizeof err));
    assert_true(think_rethink_matches(&r, &p));
    assert_true(think_rethink_parse("date<2026-12-06", &r, err, sizeof err));
    assert_false(think_rethink_matches(&r, &p));
    assert_false(think_rethink_parse("engine<x", &r, err, sizeof err));
    assert_false(think_rethink_parse("colour=red", &r, err, sizeof err));
    assert_false(think_rethink_parse("depth<", &r, err, sizeof err));
    assert_true(strlen(err) > 0);
    /* Numbers are whole and non-negative, with nothing after them. */
    const char *bad[] = {"depth<abc", "depth<<9", "depth<4.5", "nodes>=-5", "depth<9abc", "nodes>=+5", "depth< 9 x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_false(think_rethink_parse(bad[i], &r, err, sizeof err));
        assert_non_null(strstr(err, "--rethink-if"));
    }
    assert_true(think_rethink_parse("depth < 9", &r, err, sizeof err));
    assert_true(r.number == 9);
}

/* The lines of one search (MultiPvLines): the answer is the last report whose lines came
 * 1..K with one depth, exact; a report cut short (the second line still at the previous
 * depth, as Stockfish and our search print it) or with a bound is passed over. */
static void feed_lines(MultiPvLines *c, Position *pos, const char *const *lines, int n) {
    for (int i = 0; i < n; i++) {
        UsiInfo in;
        SearchLine line;
        assert_true(usi_info_parse(lines[i], pos, &in, NULL, 0));
        if (searcher_line_from_info(&in, &line))
            multipv_lines_add(c, &line);
    }
}

static void answer_text(const MultiPvLines *c, char *buf, size_t len) {
    SearchAnswer a;
    memset(&a, 0, sizeof a);
    multipv_lines_answer(c, &a);
    buf[0] = 0;
    for (int i = 0; i < a.n; i++) {
        char usi[USI_MOVE_MAX];
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s:%d@%d", i ? " " : "", move_to_usi(a.c[i].move, usi), a.c[i].score,
                 a.c[i].depth);
    }
}

static void test_multipv_lines_of_one_iteration(void **state) {
    (void)state;
    Game g;
    game_init(&g);
    assert_true(game_set_sfen(&g, STARTPOS_SFEN, NULL, 0));
    MultiPvLines *c = malloc(sizeof *c);
    char got[256];
    multipv_lines_init(c, &g.pos, 2);
    static const char *const d5[] = {"info depth 5 multipv 1 score cp 50 pv 7g7f 3c3d",
                                     "info depth 5 multipv 2 score cp 30 pv 2g2f 8c8d"};
    static const char *const cut[] = {"info depth 6 multipv 1 score cp 10 pv 2g2f 8c8d",
                                      "info depth 5 multipv 2 score cp 50 pv 7g7f 3c3d"};
    static const char *const bound[] = {"info depth 6 multipv 1 score cp 60 lowerbound pv 7g7f",
                                        "info depth 6 multipv 2 score cp 40 pv 2g2f"};
    static const char *const d6[] = {"info depth 6 multipv 1 score cp 20 pv 2g2f", "info string between the lines",
                                     "info depth 6 currmove 7g7f currmovenumber 2",
                                     "info depth 6 multipv 2 score cp 15 pv 7g7f"};
    feed_lines(c, &g.pos, d5, 2);
    feed_lines(c, &g.pos, cut, 2);
    answer_text(c, got, sizeof got);
    assert_string_equal(got, "7g7f:50@5 2g2f:30@5"); /* before: 2g2f:10@6 7g7f:50@5 */
    feed_lines(c, &g.pos, bound, 2);
    answer_text(c, got, sizeof got);
    assert_string_equal(got, "7g7f:50@5 2g2f:30@5");
    feed_lines(c, &g.pos, d6, 4); /* progress and string lines between do not break a report */
    answer_text(c, got, sizeof got);
    assert_string_equal(got, "2g2f:20@6 7g7f:15@6");
    /* no whole report (MultiPV 3, two lines each time): each index's latest exact line */
    multipv_lines_init(c, &g.pos, 3);
    feed_lines(c, &g.pos, d5, 2);
    feed_lines(c, &g.pos, cut, 2);
    answer_text(c, got, sizeof got);
    assert_string_equal(got, "2g2f:10@6 7g7f:50@5");
    /* MultiPV 3 where one move is legal (white's king, checked by the lance on the 1-file,
     * can only go to 2a: 2b is the pawn's): that one line is a whole report */
    Game h;
    game_init(&h);
    assert_true(game_set_sfen(&h, "8k/9/7P1/9/9/9/9/9/4K3L w - 1", NULL, 0));
    multipv_lines_init(c, &h.pos, 3);
    static const char *const only[] = {"info depth 3 multipv 1 score cp -900 pv 1a2a",
                                       "info depth 4 multipv 1 score cp -950 pv 1a2a",
                                       "info depth 5 multipv 1 score cp -990 lowerbound pv 1a2a"};
    feed_lines(c, &h.pos, only, 3);
    answer_text(c, got, sizeof got);
    assert_string_equal(got, "1a2a:-950@4");
    game_free(&h);
    game_free(&g);
    free(c);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widening),
        cmocka_unit_test(test_duplicate_moves_dropped),
        cmocka_unit_test(test_candidate_scale),
        cmocka_unit_test(test_game_from_position),
        cmocka_unit_test(test_provenance_and_rethink),
        cmocka_unit_test(test_multipv_lines_of_one_iteration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
