/* test_prune.c - `book prune` (bookgen/prune.h) on a hand-made book: the share filter,
 * the ply limit (moves into dropped positions stay as leaves) and through_legal, which
 * finds the position after a move the book lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "book/db2016.h"
#include "bookgen/prune.h"
#include "shogi/notation.h"

#define START "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define A76   "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
#define A16   "lnsgkgsnl/1r5b1/ppppppppp/9/9/8P/PPPPPPPP1/1B5R1/LNSGKGSNL w - 2"
#define A56   "lnsgkgsnl/1r5b1/ppppppppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL w - 2"
#define A7634 "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
#define DEEP  "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4"
#define FAR   "4k4/9/9/9/9/9/9/9/4K4 b - 1"

static void add(Book *b, const char *sfen, const char *usi, uint64_t count) {
    BookKey k;
    uint32_t id;
    assert_true(book_key_from_sfen(sfen, &k, NULL, NULL, 0));
    assert_true(book_add_position(b, &k, 0, &id));
    BookMove m = {.count = count};
    assert_true(move16_from_usi(usi, strlen(usi), &m.move));
    assert_true(book_add_move(b, id, &m, NULL));
}

static int moves_of(const Book *b, const char *sfen) {
    BookKey k;
    uint32_t id;
    assert_true(book_key_from_sfen(sfen, &k, NULL, NULL, 0));
    return book_find(b, &k, &id) ? book_position_move_count(b, id) : -1;
}

static void test_prune(void **state) {
    (void)state;
    Book *b = book_create();
    add(b, START, "7g7f", 70);
    add(b, START, "2g2f", 25);
    add(b, START, "1g1f", 5);
    add(b, A76, "3c3d", 10);
    add(b, A16, "3c3d", 10);
    add(b, A56, "3c3d", 10);
    add(b, A7634, "2g2f", 10);
    add(b, DEEP, "8c8d", 10);
    add(b, FAR, "5i5h", 1);
    char err[128];
    PruneStats st;
    /* everything reachable through book moves */
    Book *p = book_prune(b, &(PruneOptions){0}, &st, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(st.positions, 5); /* START A76 A16 A7634 DEEP */
    assert_int_equal(moves_of(p, A56), -1);
    assert_int_equal(moves_of(p, FAR), -1);
    assert_int_equal(moves_of(p, START), 3);
    assert_int_equal(st.unreached, 2); /* A56 and FAR */
    book_free(p);
    /* 10%: 1g1f (5 of 100) goes, and A16 with it */
    p = book_prune(b, &(PruneOptions){.min_share = 10}, &st, err, sizeof err);
    assert_int_equal(st.rare_moves, 1);
    assert_int_equal(moves_of(p, START), 2);
    assert_int_equal(moves_of(p, A16), -1);
    assert_int_equal(moves_of(p, DEEP), 1);
    book_free(p);
    /* up to ply 3: DEEP (ply 4) goes, A7634's 2g2f stays as a leaf */
    p = book_prune(b, &(PruneOptions){.max_ply = 3}, &st, err, sizeof err);
    assert_int_equal(moves_of(p, DEEP), -1);
    assert_int_equal(moves_of(p, A7634), 1);
    assert_int_equal(st.positions, 4);
    book_free(p);
    /* through_legal finds A56, after a move the start position's entry lacks */
    p = book_prune(b, &(PruneOptions){.through_legal = true, .max_ply = 2}, &st, err, sizeof err);
    assert_int_equal(moves_of(p, A56), 1);
    assert_int_equal(moves_of(p, A7634), -1);
    assert_int_equal(st.positions, 4); /* START A76 A16 A56 */
    book_free(p);
    book_free(b);
}

/* The whole of a file (the caller frees it). */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

/* book_prune_file() (by passes over a sorted copy) writes what book_prune() and the
 * writer write, with the same counts, for each option set above. */
static void test_prune_file(void **state) {
    (void)state;
    Book *b = book_create();
    add(b, START, "7g7f", 70);
    add(b, START, "2g2f", 25);
    add(b, START, "1g1f", 5);
    add(b, A76, "3c3d", 10);
    add(b, A16, "3c3d", 10);
    add(b, A56, "3c3d", 10);
    add(b, A7634, "2g2f", 10);
    add(b, DEEP, "8c8d", 10);
    add(b, FAR, "5i5h", 1);
    char in[] = "/tmp/test_prune_in.XXXXXX", want[] = "/tmp/test_prune_want.XXXXXX",
         got[] = "/tmp/test_prune_got.XXXXXX", err[256];
    close(mkstemp(in));
    close(mkstemp(want));
    close(mkstemp(got));
    /* unsorted on purpose: the file writer sorts, so write it and append the start again */
    assert_true(db2016_write_file(in, b, NULL, err, sizeof err));
    FILE *f = fopen(in, "a");
    fputs("sfen " START "\n5g5f none 0 0 1\n#a comment\n", f);
    fclose(f);
    Book *whole = book_create();
    assert_true(db2016_read_file(in, whole, &(Db2016ReadOptions){.keep_comments = true}, NULL, err, sizeof err));
    const PruneOptions opts[] = {{0},
                                 {.min_share = 10},
                                 {.max_ply = 3},
                                 {.through_legal = true, .max_ply = 2},
                                 {.through_legal = true},
                                 {.max_ply = 1}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        PruneStats sw, sg;
        Book *p = book_prune(whole, &opts[i], &sw, err, sizeof err);
        assert_non_null(p);
        assert_true(db2016_write_file(want, p, &(Db2016WriteOptions){.write_comments = true}, err, sizeof err));
        book_free(p);
        ExtSortOptions eo = {.memory = EXTSORT_MEMORY_MIN, .tmpdir = "/tmp"};
        uint64_t written[2], passes;
        assert_true(book_prune_file(in, got, &opts[i], &eo, &sg, written, &passes, err, sizeof err));
        assert_memory_equal(&sw, &sg, sizeof sw);
        assert_true(passes >= 2);
        size_t lw, lg;
        char *bw = slurp(want, &lw), *bg = slurp(got, &lg);
        assert_int_equal(lw, lg);
        assert_memory_equal(bw, bg, lw);
        free(bw);
        free(bg);
    }
    book_free(whole);
    book_free(b);
    unlink(in);
    unlink(want);
    unlink(got);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_prune), cmocka_unit_test(test_prune_file)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
