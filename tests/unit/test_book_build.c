/* test_book_build.c - book build from the real records in ../shared/refdata, its filters,
 * book merge with its policies and weights, and import-losses (docs/book_making.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "bookgen/make.h"
#include "rec_helpers.h"

#define FLOODGATE REF "csa/shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa"
#define AFTER_76  "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"

typedef struct {
    Book *b;
    BookBuildOptions o;
    BookBuildStats s;
    StateInfo *st;
    size_t cap;
    const char *opponent;
    ImportLossStats is;
} Ctx;

static bool add(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    assert_true(book_build_add_game(c->b, g, &c->o, &c->s, &c->st, &c->cap));
    return true;
}

static bool loss(void *ctx, const RecordGame *g) {
    Ctx *c = ctx;
    assert_true(book_import_loss(c->b, g, c->opponent, 0, &c->is, &c->st, &c->cap));
    return true;
}

static void feed(Ctx *c, const char *path, RecordGameFn fn) {
    RecordReadOptions ro = {.on_game = fn, .ctx = c};
    char err[256];
    if (!record_read_file(path, REC_FMT_AUTO, &ro, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static const BookMove *find_move(const Book *b, const char *sfen, const char *usi, BookMoveList *l) {
    BookKey k;
    char err[64];
    assert_true(book_key_from_sfen(sfen, &k, NULL, err, sizeof err));
    uint32_t id;
    if (!book_find(b, &k, &id))
        return NULL;
    book_position_moves(b, id, l);
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    for (int i = 0; i < l->n; i++)
        if (l->moves[i].move == m)
            return &l->moves[i];
    return NULL;
}

static uint32_t games_at(const Book *b, const char *sfen, uint32_t *bw, uint32_t *ww) {
    BookKey k;
    char err[64];
    assert_true(book_key_from_sfen(sfen, &k, NULL, err, sizeof err));
    uint32_t id;
    assert_true(book_find(b, &k, &id));
    BookStats s;
    assert_true(book_get_stats(b, id, MOVE_NONE, &s));
    *bw = s.black_wins;
    *ww = s.white_wins;
    return s.games;
}

static void test_build_counts(void **state) {
    (void)state;
    Ctx c = {.b = book_create()};
    c.o.min_rating = REC_NO_RATING;
    /* 3 games, all 7g7f; results W, B (the server's summary: an illegal kachi), B */
    feed(&c, REF "csa/derived/multi-game-3.csa", add);
    feed(&c, FLOODGATE, add); /* the first game once more */
    assert_int_equal(c.s.games, 4);
    assert_int_equal(c.s.games_used, 4);
    BookMoveList *l = malloc(sizeof *l);
    const BookMove *m = find_move(c.b, STARTPOS_SFEN, "7g7f", l);
    assert_non_null(m);
    assert_int_equal(m->count, 4);
    assert_false(m->has_score);
    uint32_t bw, ww;
    assert_int_equal(games_at(c.b, STARTPOS_SFEN, &bw, &ww), 4);
    assert_int_equal(bw, 2);
    assert_int_equal(ww, 2);
    m = find_move(c.b, AFTER_76, "3c3d", l);
    assert_non_null(m);
    assert_int_equal(m->count, 3); /* gps9_p's opponent played 8c8d */
    /* min-count keeps the moves seen at least 3 times */
    Book *f = book_filter_min_count(c.b, 3);
    assert_non_null(find_move(f, AFTER_76, "3c3d", l));
    assert_null(find_move(f, AFTER_76, "8c8d", l));
    book_free(f);
    free(l);
    free(c.st);
    book_free(c.b);
}

static void test_build_filters(void **state) {
    (void)state;
    BookMoveList *l = malloc(sizeof *l);
    /* black's moves only, 10 plies */
    Ctx c = {.b = book_create(), .o = {.side = BUILD_SIDE_BLACK, .max_ply = 10, .min_rating = REC_NO_RATING}};
    feed(&c, REF "csa/derived/multi-game-3.csa", add);
    assert_non_null(find_move(c.b, STARTPOS_SFEN, "7g7f", l));
    assert_null(find_move(c.b, AFTER_76, "3c3d", l));
    assert_int_equal(c.s.moves_counted, 15);
    book_free(c.b);
    /* the winner's moves: one white win, two black wins (game 2's %KACHI was illegal) */
    c = (Ctx){.b = book_create(), .o = {.winner_only = true, .min_rating = REC_NO_RATING}, .st = c.st, .cap = c.cap};
    feed(&c, REF "csa/derived/multi-game-3.csa", add);
    assert_int_equal(find_move(c.b, STARTPOS_SFEN, "7g7f", l)->count, 2);
    assert_int_equal(find_move(c.b, AFTER_76, "3c3d", l)->count, 1);
    book_free(c.b);
    /* by player, by rating */
    c = (Ctx){.b = book_create(), .o = {.player = "gps_l", .min_rating = REC_NO_RATING}, .st = c.st, .cap = c.cap};
    feed(&c, REF "csa/derived/multi-game-3.csa", add);
    assert_null(find_move(c.b, STARTPOS_SFEN, "7g7f", l));
    assert_int_equal(find_move(c.b, AFTER_76, "3c3d", l)->count, 1);
    book_free(c.b);
    c = (Ctx){.b = book_create(), .o = {.min_rating = 3400}, .st = c.st, .cap = c.cap};
    feed(&c, REF "csa/json-kifu-format/v2.csa", add); /* black 3345, white 3453 */
    assert_null(find_move(c.b, STARTPOS_SFEN, "7g7f", l));
    assert_int_equal(find_move(c.b, AFTER_76, "8c8d", l)->count, 1);
    book_free(c.b);
    /* KIF variations and a handicap game build too; tsume problems are skipped */
    c = (Ctx){.b = book_create(), .o = {.min_rating = REC_NO_RATING}, .st = c.st, .cap = c.cap};
    feed(&c, REF "kif/json-kifu-format/20081220kyoochi.kif", add);
    feed(&c, REF "kif/json-kifu-format/9fu.kif", add);
    assert_int_equal(c.s.games_used, 1);
    assert_int_equal(book_position_count(c.b), 142);
    free(c.st);
    book_free(c.b);
    free(l);
}

static Book *book_of(const char *text) {
    Book *b = book_create();
    char err[256];
    if (!db2016_read_memory("mem", text, strlen(text), b, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    return b;
}

static void test_merge(void **state) {
    (void)state;
    BookMoveList *l = malloc(sizeof *l);
    const char *A = "sfen " STARTPOS_SFEN "\n7g7f none 30 10 4\n2g2f none 20 12 2\n";
    const char *B = "sfen " STARTPOS_SFEN "\n7g7f none 50 20 1\n5g5f none 0 20 1\nsfen " AFTER_76 "\n3c3d none 0 5 3\n";
    Book *acc = book_create(), *a = book_of(A), *b = book_of(B);
    assert_true(book_merge_policy(&acc, a, 1.0, MERGE_SUM));
    assert_true(book_merge_policy(&acc, b, 2.0, MERGE_SUM));
    const BookMove *m = find_move(acc, STARTPOS_SFEN, "7g7f", l);
    assert_int_equal(m->count, 6);
    assert_int_equal(m->score, 50); /* the deeper evaluation */
    assert_int_equal(find_move(acc, STARTPOS_SFEN, "5g5f", l)->count, 2);
    assert_int_equal(find_move(acc, AFTER_76, "3c3d", l)->count, 6);
    book_free(acc);
    acc = book_create();
    assert_true(book_merge_policy(&acc, a, 1.0, MERGE_PREFER_FIRST));
    assert_true(book_merge_policy(&acc, b, 1.0, MERGE_PREFER_FIRST));
    assert_null(find_move(acc, STARTPOS_SFEN, "5g5f", l));
    assert_int_equal(find_move(acc, STARTPOS_SFEN, "7g7f", l)->score, 30);
    assert_non_null(find_move(acc, AFTER_76, "3c3d", l));
    book_free(acc);
    acc = book_create();
    assert_true(book_merge_policy(&acc, a, 1.0, MERGE_PREFER_DEEPER));
    assert_true(book_merge_policy(&acc, b, 1.0, MERGE_PREFER_DEEPER));
    assert_null(find_move(acc, STARTPOS_SFEN, "2g2f", l));
    assert_int_equal(find_move(acc, STARTPOS_SFEN, "7g7f", l)->score, 50);
    book_free(acc);
    book_free(a);
    book_free(b);
    free(l);
}

static void test_import_losses(void **state) {
    (void)state;
    BookMoveList *l = malloc(sizeof *l);
    /* gps_normal (black) lost the floodgate game to gps_l: white's moves become first choices */
    Book *b = book_of("sfen " AFTER_76 "\n8c8d none 100 20 7\n3c3d none 10 20 1\n");
    Ctx c = {.b = b, .opponent = "gps_normal"};
    feed(&c, FLOODGATE, loss);
    assert_int_equal(c.is.games, 1);
    assert_int_equal(c.is.positions, 79);
    const BookMove *m = find_move(b, AFTER_76, "3c3d", l);
    assert_int_equal(m->count, 8);
    assert_int_equal(m->score, 101);
    book_sort_moves(l->moves, l->n);
    Move16 m16;
    move16_from_usi("3c3d", 4, &m16);
    assert_int_equal(l->moves[0].move, m16);
    /* black's moves are not touched, and a rival who won imports nothing */
    assert_null(find_move(b, STARTPOS_SFEN, "7g7f", l));
    c.opponent = "gps_l";
    c.is = (ImportLossStats){0};
    feed(&c, FLOODGATE, loss);
    assert_int_equal(c.is.games, 0);
    free(c.st);
    book_free(b);
    free(l);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_counts),
        cmocka_unit_test(test_build_filters),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_import_losses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
