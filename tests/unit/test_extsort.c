/* test_extsort.c - the external sort as a stream (book/extsort.h) on hand-written DB2016
 * books: two inputs (always sorted into runs) hand each position out once, in SFEN order,
 * with what each input holds for it, duplicates inside an input combined as a whole read
 * combines them (counts summed, the comment kept); one small input is handed out from
 * memory; positions added one by one come back deduplicated; the reader gives a sorted
 * file's entries back with their keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/extsort.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"
#include "shogi/position.h"

#define START "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define A76   "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The count of move usi at position 0 of b, -1 when it is not there. */
static long long count_of(const Book *b, uint32_t id, const char *usi) {
    BookMoveList list;
    Move16 m;
    assert_true(move16_from_usi(usi, strlen(usi), &m));
    book_position_moves(b, id, &list);
    for (int i = 0; i < list.n; i++)
        if (list.moves[i].move == m)
            return (long long)list.moves[i].count;
    return -1;
}

static void test_two_streams(void **state) {
    (void)state;
    char a[] = "/tmp/test_extsort_a.XXXXXX", b[] = "/tmp/test_extsort_b.XXXXXX";
    close(mkstemp(a));
    close(mkstemp(b));
    /* A holds START twice (7g7f 3 + 2 = 5, the comment kept); B holds START and A76 */
    write_text(a,
               "#YANEURAOU-DB2016 1.00\nsfen " START "\n7g7f none 10 2 3\n#note a\nsfen " START "\n7g7f none 10 2 2\n");
    write_text(b, "#YANEURAOU-DB2016 1.00\nsfen " A76 "\n3c3d none 0 0 7\nsfen " START "\n7g7f none 10 2 4\n"
                  "2g2f none 5 1 1\n");
    ExtSortOptions o = {.memory = 0, .tmpdir = "/tmp", .keep_comments = true};
    ExtSort *es = extsort_open(&o, "/tmp/out.db");
    assert_non_null(es);
    char err[256];
    assert_true(extsort_add_file(es, a, err, sizeof err));
    assert_true(extsort_add_file(es, b, err, sizeof err));
    assert_true(extsort_finish(es, err, sizeof err));
    assert_int_equal(extsort_runs(es), 2);
    assert_null(extsort_memory_book(es));
    const char *key;
    const ExtSortEntry *e;
    /* A76's SFEN sorts first ('2' < '9' in the fifth rank) */
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 1);
    assert_string_equal(key, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w -");
    assert_null(e[0].book);
    assert_non_null(e[1].book);
    assert_int_equal(count_of(e[1].book, e[1].id, "3c3d"), 7);
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 1);
    assert_string_equal(key, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -");
    assert_int_equal(count_of(e[0].book, e[0].id, "7g7f"), 5);
    assert_int_equal(count_of(e[0].book, e[0].id, "2g2f"), -1);
    assert_true(book_has_stats(e[0].book));
    assert_int_equal(count_of(e[1].book, e[1].id, "7g7f"), 4);
    assert_int_equal(count_of(e[1].book, e[1].id, "2g2f"), 1);
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 0);
    extsort_close(es);

    /* one input that fits: from memory, the same order */
    es = extsort_open(&o, "/tmp/out.db");
    assert_true(extsort_add_file(es, b, err, sizeof err));
    assert_true(extsort_finish(es, err, sizeof err));
    assert_int_equal(extsort_runs(es), 0);
    assert_non_null(extsort_memory_book(es));
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 1);
    assert_int_equal(count_of(e[0].book, e[0].id, "3c3d"), 7);
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 1);
    assert_int_equal(count_of(e[0].book, e[0].id, "7g7f"), 4);
    assert_int_equal(extsort_next(es, &key, &e, err, sizeof err), 0);
    extsort_close(es);

    /* the reader: b's entries in file order with their keys */
    FILE *f = fopen(b, "r");
    ExtSortReader *r = extsort_reader_open(fileno(f), b, 4096, err, sizeof err);
    assert_non_null(r);
    const char *text;
    size_t len;
    assert_int_equal(extsort_reader_next(r, &key, &text, &len, err, sizeof err), 1);
    assert_string_equal(key, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w -");
    assert_int_equal(len, strlen("sfen " A76 "\n3c3d none 0 0 7\n"));
    assert_int_equal(extsort_reader_next(r, &key, &text, &len, err, sizeof err), 1);
    assert_int_equal(extsort_reader_next(r, &key, &text, &len, err, sizeof err), 0);
    extsort_reader_close(r);
    fclose(f);
    unlink(a);
    unlink(b);
}

/* Adds the positions up to depth plies below pos to es and to ref (the truth). */
static void add_tree(ExtSort *es, Book *ref, Position *pos, int depth, int ply) {
    ExtMove moves[MAX_MOVES];
    StateInfo st;
    char err[256];
    int n = generate_moves(pos, GEN_LEGAL, moves);
    for (int i = 0; i < n; i++) {
        BookKey k;
        uint32_t id;
        book_key_after_move(pos, moves[i].move, &k);
        assert_true(extsort_add_position(es, &k, ply, err, sizeof err));
        assert_true(book_add_position(ref, &k, ply, &id));
        if (depth > 1) {
            position_do_move(pos, moves[i].move, &st);
            add_tree(es, ref, pos, depth - 1, ply + 1);
            position_undo_move(pos, moves[i].move);
        }
    }
}

/* Positions added one by one (three plies from the start, twice, the second time at
 * other plies), past the memory so that they go through runs: each comes back once, in
 * order, at the lowest ply it was added at. */
static void test_positions(void **state) {
    (void)state;
    ExtSortOptions o = {.memory = EXTSORT_MEMORY_MIN, .tmpdir = "/tmp"};
    ExtSort *es = extsort_open(&o, "/tmp/out.db");
    Book *ref = book_create();
    char err[256];
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    add_tree(es, ref, &pos, 3, 5);
    add_tree(es, ref, &pos, 3, 2);
    assert_true(extsort_finish(es, err, sizeof err));
    assert_true(extsort_runs(es) > 1);
    const char *key;
    const ExtSortEntry *e;
    char prev[SFEN_MAX] = "";
    size_t got = 0;
    while (extsort_next(es, &key, &e, err, sizeof err) == 1) {
        assert_true(strcmp(prev, key) < 0);
        snprintf(prev, sizeof prev, "%s", key);
        BookKey k;
        uint32_t id;
        book_position_key(e[0].book, e[0].id, &k);
        assert_true(book_find(ref, &k, &id));
        assert_int_equal(book_position_ply(e[0].book, e[0].id), book_position_ply(ref, id));
        got++;
    }
    assert_int_equal(got, book_position_count(ref));
    book_free(ref);
    extsort_close(es);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_streams), cmocka_unit_test(test_positions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
