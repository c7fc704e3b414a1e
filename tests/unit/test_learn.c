/* test_learn.c - book learn (bookgen/learn.h) on hand-made CSA records whose expected
 * choices are worked out by hand below. Two record files, the player black in all games:
 *   easy.csa (player "hay-easy"): 7g7f in 8 games, 6 won; 2g2f in 2 games, both won.
 *            Mean 8/10 = 0.8; differences: 7g7f 6 - 8 * 0.8 = -0.4, 2g2f 2 - 2 * 0.8 = +0.4.
 *   hard.csa (player "hay-hard"): 2g2f in 8 games, 2 won. Mean 0.25, differences 0.
 * Raw win rates favour 7g7f (6/8 against 4/10); measured against each file's mean, 2g2f
 * scored better: values (prior 0) 7g7f -0.4 / 8 = -0.05, 2g2f +0.4 / 10 = +0.04.
 * A won game is "+M -3334FU +5756FU %TORYO" (white resigns), a lost one "+M -3334FU %TORYO".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bookgen/learn.h"
#include "rec_helpers.h"

#define AFTER_76_34 "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"

/* Appends one game to buf: black plays first (CSA "7776FU"), won or lost. */
static void add_game(char *buf, size_t cap, const char *black, const char *white, const char *first, bool black_wins) {
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "V2.2\nN+%s\nN-%s\nPI\n+\n+%s\n-3334FU\n%s%%TORYO\n/\n", black, white, first,
             black_wins ? "+5756FU\n" : "");
}

static bool on_game(void *ctx, const RecordGame *g) {
    assert_true(book_learn_add_game(ctx, g));
    return true;
}

/* One call per file: the learner groups games by RecordGame.file (name). */
static void feed(BookLearn *l, const char *name, const char *csa) {
    char err[256];
    RecordReadOptions opt = {.on_game = on_game, .ctx = l};
    if (!record_read_memory(name, csa, strlen(csa), REC_FMT_CSA, &opt, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static char *easy_file(void) {
    char *s = calloc(1, 8192);
    for (int i = 0; i < 8; i++)
        add_game(s, 8192, "hay-easy", "gps", "7776FU", i < 6);
    for (int i = 0; i < 2; i++)
        add_game(s, 8192, "hay-easy", "gps", "2726FU", true);
    return s;
}

static char *hard_file(void) {
    char *s = calloc(1, 8192);
    for (int i = 0; i < 8; i++)
        add_game(s, 8192, "hay-hard", "gps", "2726FU", i < 2);
    return s;
}

/* The book's moves at sfen as "usi:count ..." ("" when the position is missing). */
static void moves_at(const Book *b, const char *sfen, char *out, size_t cap) {
    BookKey k;
    char err[64];
    out[0] = 0;
    assert_true(book_key_from_sfen(sfen, &k, NULL, err, sizeof err));
    uint32_t id;
    if (!book_find(b, &k, &id))
        return;
    BookMoveList *l = malloc(sizeof *l);
    book_position_moves(b, id, l);
    for (int i = 0; i < l->n; i++) {
        char usi[USI_MOVE_MAX];
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s:%llu", i ? " " : "", move_to_usi(l->moves[i].move, usi),
                 (unsigned long long)l->moves[i].count);
        assert_false(l->moves[i].has_score);
    }
    free(l);
}

static Book *learn(const BookLearnOptions *o, BookLearnStats *st) {
    BookLearn *l = book_learn_create(o);
    assert_non_null(l);
    char *easy = easy_file(), *hard = hard_file();
    feed(l, "easy.csa", easy);
    feed(l, "hard.csa", hard);
    free(easy);
    free(hard);
    Book *b = book_learn_finish(l, st);
    book_learn_free(l);
    assert_non_null(b);
    return b;
}

static void test_results_against_the_file_mean(void **state) {
    (void)state;
    char got[256];
    BookLearnStats st;
    BookLearnOptions o = {.player = "hay-*", .max_ply = 1, .min_games = 1, .prior = 0};
    Book *b = learn(&o, &st);
    assert_int_equal(st.games, 18);
    assert_int_equal(st.player_games, 18);
    assert_int_equal(st.positions, 1);
    assert_int_equal(st.chosen, 1);
    assert_int_equal(st.changed, 0); /* 2g2f (10 games) is also the move played most */
    moves_at(b, STARTPOS_SFEN, got, sizeof got);
    assert_string_equal(got, "2g2f:10");
    /* the evidence of both moves is the position's comment */
    BookKey k;
    uint32_t id;
    BookStats s;
    assert_true(book_key_from_sfen(STARTPOS_SFEN, &k, NULL, got, sizeof got));
    assert_true(book_find(b, &k, &id));
    assert_true(book_get_stats(b, id, MOVE_NONE, &s));
    assert_string_equal(s.comment, "learn 2g2f: 10 games, mean result 0.400, value +0.0400 (chosen)\n"
                                   "learn 7g7f: 8 games, mean result 0.750, value -0.0500");
    book_free(b);
}

static void test_options(void **state) {
    (void)state;
    char got[256];
    BookLearnStats st;
    /* min_games 9: 7g7f (8 games) cannot be chosen, 2g2f (10) is */
    BookLearnOptions o = {.player = "hay-*", .max_ply = 1, .min_games = 9, .prior = 100};
    Book *b = learn(&o, &st);
    moves_at(b, STARTPOS_SFEN, got, sizeof got);
    assert_string_equal(got, "2g2f:10");
    book_free(b);
    /* min_games 11: no move qualifies, the book is empty */
    o.min_games = 11;
    b = learn(&o, &st);
    assert_int_equal(book_position_count(b), 0);
    assert_int_equal(st.chosen, 0);
    book_free(b);
    /* only the easy file's player: there 2g2f (+0.4 / 2) beats 7g7f (-0.4 / 8) */
    o = (BookLearnOptions){.player = "hay-easy", .max_ply = 1, .min_games = 1, .prior = 0};
    b = learn(&o, &st);
    assert_int_equal(st.player_games, 10);
    assert_int_equal(st.changed, 1); /* 2 games against 7g7f's 8 */
    moves_at(b, STARTPOS_SFEN, got, sizeof got);
    assert_string_equal(got, "2g2f:2");
    book_free(b);
    /* a large prior with min_games 1: 2g2f's +0.4 / (10 + 1000) still leads -0.4 / 1008 */
    o = (BookLearnOptions){.player = "hay-*", .max_ply = 1, .min_games = 1, .prior = 1000};
    b = learn(&o, &st);
    moves_at(b, STARTPOS_SFEN, got, sizeof got);
    assert_string_equal(got, "2g2f:10");
    book_free(b);
    /* ply 3 (black to move after 7g7f 3c3d, reached in 8 games; 5g5f played in the 6 won
     * ones, each 1 - 0.8 = +0.2 in the easy file): learned with max_ply 3 */
    o = (BookLearnOptions){.player = "hay-*", .max_ply = 3, .min_games = 1, .prior = 0};
    b = learn(&o, &st);
    assert_int_equal(st.positions, 3); /* the start, and ply 3 after 7g7f and after 2g2f */
    moves_at(b, AFTER_76_34, got, sizeof got);
    assert_string_equal(got, "5g5f:6");
    book_free(b);
    /* nobody of that name: nothing learned */
    o.player = "gpsusi";
    b = learn(&o, &st);
    assert_int_equal(st.player_games, 0);
    assert_int_equal(book_position_count(b), 0);
    book_free(b);
}

static void test_white_and_unknown_results(void **state) {
    (void)state;
    char got[256], csa[4096] = "";
    /* the player white: its moves at ply 2 are learned, black's are not; a game without an
     * end marker has no result and teaches nothing */
    add_game(csa, sizeof csa, "gps", "hay", "7776FU", false); /* hay (white) wins with 3c3d */
    strcat(csa, "V2.2\nN+gps\nN-hay\nPI\n+\n+7776FU\n-8384FU\n/\n");
    BookLearnOptions o = {.player = "hay", .max_ply = 8, .min_games = 1, .prior = 0};
    BookLearn *l = book_learn_create(&o);
    feed(l, "white.csa", csa);
    BookLearnStats st;
    Book *b = book_learn_finish(l, &st);
    book_learn_free(l);
    assert_int_equal(st.games, 2);
    assert_int_equal(st.player_games, 1);
    moves_at(b, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2", got, sizeof got);
    assert_string_equal(got, "3c3d:1");
    moves_at(b, STARTPOS_SFEN, got, sizeof got);
    assert_string_equal(got, "");
    book_free(b);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_against_the_file_mean),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_white_and_unknown_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
