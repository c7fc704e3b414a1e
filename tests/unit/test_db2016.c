/* test_db2016.c - the DB2016 reader, writer and on-the-fly lookup on ShogiHome's and
 * rshogi's real files in ../shared/refdata/db, plus a corpus of malformed input. The
 * expected entries were read off the files by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/db2016.h"
#include "shogi/game.h"
#include "shogi/movegen.h"
#include "shogi/notation.h"

#define SH                 "../shared/refdata/db/shogihome/"
#define RS                 "../shared/refdata/db/rshogi/"
#define POS_7G7F_3C3D_2G2F "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 1"
#define POS_FOURTH         "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 1"

static Move16 m16(const char *usi) {
    Move16 m;
    if (!move16_from_usi(usi, strlen(usi), &m))
        fail_msg("bad move %s", usi);
    return m;
}

typedef struct {
    int n;
    uint64_t lines[64];
    char reasons[64][160];
} Errors;

static void collect(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)file;
    Errors *e = ctx;
    if (e->n < 64) {
        e->lines[e->n] = line;
        snprintf(e->reasons[e->n], sizeof e->reasons[0], "%s", reason);
    }
    e->n++;
}

static Book *read_path(const char *path, const Db2016ReadOptions *o, Db2016Stats *st) {
    Book *b = book_create();
    char err[256];
    if (!db2016_read_file(path, b, o, st, err, sizeof err))
        fail_msg("%s", err);
    return b;
}

static int lookup_sfen(const Book *b, const char *sfen, BookMoveList *out) {
    Position pos;
    StateInfo st;
    if (!position_from_sfen(&pos, &st, sfen, NULL, 0))
        fail_msg("bad sfen %s", sfen);
    return book_lookup(b, &pos, out) ? out->n : -1;
}

/* Field by field: BookMove has padding bytes. */
static void expect_same_moves(const BookMoveList *a, const BookMoveList *b) {
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        const BookMove *x = &a->moves[i], *y = &b->moves[i];
        assert_int_equal(x->move, y->move);
        assert_int_equal(x->ponder, y->ponder);
        assert_int_equal(x->has_score, y->has_score);
        assert_int_equal(x->score, y->score);
        assert_int_equal(x->has_depth, y->has_depth);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->count, y->count);
    }
}

static void expect_move(const BookMove *m, const char *move, const char *ponder, bool has_score, int score,
                        bool has_depth, int depth, uint64_t count) {
    assert_int_equal(m->move, m16(move));
    assert_int_equal(m->ponder, ponder ? m16(ponder) : MOVE_NONE);
    assert_int_equal(m->has_score, has_score);
    if (has_score)
        assert_int_equal(m->score, score);
    assert_int_equal(m->has_depth, has_depth);
    if (has_depth)
        assert_int_equal(m->depth, depth);
    assert_int_equal(m->count, count);
}

/* yaneuraou.db and its BOM / CRLF / no-header variants read to the same book. */
static void test_shogihome_variants(void **state) {
    (void)state;
    const char *files[] = {SH "yaneuraou.db",           SH "yaneuraou-crlf.db",          SH "yaneuraou-bom-crlf.db",
                           SH "yaneuraou-no-header.db", SH "yaneuraou-bom-no-header.db", SH "yaneuraou-copy.db"};
    BookMoveList *l = malloc(sizeof *l);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        Db2016Stats st;
        Book *b = read_path(files[f], NULL, &st);
        assert_int_equal(book_position_count(b), 5);
        assert_int_equal(book_move_count(b), 18);
        assert_int_equal(st.positions, 5);
        assert_int_equal(st.moves, 18);
        assert_int_equal(st.errors, 0);
        assert_int_equal(st.had_header, strstr(files[f], "no-header") == NULL);
        assert_true(st.sorted);
        /* The start position: five moves, the first with every field. */
        assert_int_equal(lookup_sfen(b, STARTPOS_SFEN, l), 5);
        expect_move(&l->moves[0], "2g2f", "3c3d", true, 63, true, 27, 935);
        expect_move(&l->moves[1], "7g7f", NULL, true, 20, true, 25, 6);
        expect_move(&l->moves[4], "3g3f", NULL, true, -74, true, 18, 1);
        assert_int_equal(l->ply, 1);
        /* "none none none 103": no score, no depth, count 103. */
        assert_int_equal(lookup_sfen(b, POS_7G7F_3C3D_2G2F, l), 3);
        expect_move(&l->moves[0], "2b8h+", NULL, false, 0, false, 0, 103);
        expect_move(&l->moves[2], "4a3b", NULL, false, 0, false, 0, 2);
        /* "7i6h none   8": YaneuraOu reads 8 as the value (runs of spaces are one
         * separator) and defaults the count to 1; the copy ShogiHome wrote says count 8. */
        assert_int_equal(lookup_sfen(b, POS_FOURTH, l), 3);
        if (strstr(files[f], "copy"))
            expect_move(&l->moves[0], "7i6h", NULL, false, 0, false, 0, 8);
        else {
            expect_move(&l->moves[0], "7i6h", NULL, true, 8, false, 0, 1);
            assert_int_equal(st.ambiguous_lines, 3);
        }
        book_free(b);
    }
    /* With shogihome_columns the empty columns read as ShogiHome meant them. */
    Db2016ReadOptions o = {.shogihome_columns = true};
    Book *b = read_path(SH "yaneuraou.db", &o, NULL);
    assert_int_equal(lookup_sfen(b, POS_FOURTH, l), 3);
    expect_move(&l->moves[0], "7i6h", NULL, false, 0, false, 0, 8);
    expect_move(&l->moves[1], "3g3f", NULL, false, 0, false, 0, 1);
    book_free(b);
    free(l);
}

static void test_invalid_header(void **state) {
    (void)state;
    Book *b = book_create();
    char err[256];
    assert_false(db2016_read_file(SH "yaneuraou-invalid-header.db", b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "yaneuraou-invalid-header.db:1: unsupported header '#YANEURAOU-DB2016 2.00'"));
    assert_int_equal(book_position_count(b), 0);
    assert_null(db2016_otf_open(SH "yaneuraou-invalid-header.db", err, sizeof err));
    assert_non_null(strstr(err, "unsupported header"));
    book_free(b);
}

/* ShogiHome's patch-merge output: 8 positions, counts added, comments interleaved. */
static void test_merge_output(void **state) {
    (void)state;
    Db2016Stats st;
    Db2016ReadOptions o = {.keep_comments = true};
    Book *b = read_path(SH "yaneuraou-merge.db", &o, &st);
    assert_int_equal(book_position_count(b), 8);
    assert_int_equal(book_move_count(b), 20);
    BookMoveList *l = malloc(sizeof *l);
    assert_int_equal(lookup_sfen(b, "lnsgkgsnl/1r5b1/p1pppp1pp/1p4p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL b - 1", l), 1);
    expect_move(&l->moves[0], "2f2e", NULL, true, 20, true, 19, 89);
    assert_int_equal(lookup_sfen(b, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/3P5/PPP1PPPPP/1BS4R1/LN1GKGSNL w - 1", l), 4);
    expect_move(&l->moves[3], "8b3b", NULL, false, 0, false, 0, 2);
    assert_int_equal(lookup_sfen(b, "lnsgkgsnl/6rb1/pppppp1pp/6p2/9/2PP5/PP2PPPPP/1BS4R1/LN1GKGSNL w - 1", l), 1);
    expect_move(&l->moves[0], "3d3f", NULL, true, 15, true, 21, 7);
    /* Comments: "#patch-1" follows the move 2f2e; "#position comment 1/2" the sfen line. */
    uint32_t id;
    BookKey k;
    assert_true(book_key_from_sfen("lnsgkgsnl/1r5b1/p1pppp1pp/1p4p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL b - 1", &k, NULL,
                                   NULL, 0));
    assert_true(book_find(b, &k, &id));
    BookStats s;
    assert_true(book_get_stats(b, id, m16("2f2e"), &s));
    assert_string_equal(s.comment, "patch-1");
    assert_true(
        book_key_from_sfen("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/3P5/PPP1PPPPP/1BS4R1/LN1GKGSNL w - 1", &k, NULL, NULL, 0));
    assert_true(book_find(b, &k, &id));
    assert_true(book_get_stats(b, id, MOVE_NONE, &s));
    assert_string_equal(s.comment, "position comment 1\nposition comment 2");
    book_free(b);
    free(l);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static char *write_to_string(const Book *b, bool comments, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    Db2016WriteOptions wo = {.write_comments = comments};
    char err[128];
    assert_true(db2016_write_stream(f, b, &wo, err, sizeof err));
    fclose(f);
    *len = n;
    return buf;
}

/* The writer reproduces ShogiHome's re-save of yaneuraou.db byte for byte (comments kept,
 * empty columns read ShogiHome's way), from every variant of the input. */
static void test_write_matches_shogihome_copy(void **state) {
    (void)state;
    size_t want_len;
    char *want = slurp(SH "yaneuraou-copy.db", &want_len);
    const char *files[] = {SH "yaneuraou.db",           SH "yaneuraou-crlf.db",          SH "yaneuraou-bom-crlf.db",
                           SH "yaneuraou-no-header.db", SH "yaneuraou-bom-no-header.db", SH "yaneuraou-copy.db"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        Db2016ReadOptions o = {.keep_comments = true, .shogihome_columns = true};
        Book *b = read_path(files[i], &o, NULL);
        size_t len;
        char *got = write_to_string(b, true, &len);
        if (len != want_len || memcmp(got, want, len) != 0)
            fail_msg("%s: output differs from yaneuraou-copy.db:\n%s", files[i], got);
        free(got);
        book_free(b);
    }
    free(want);
}

/* read -> write -> read -> write: the second write equals the first, and both books hold
 * the same entries. On the rshogi fixtures (YaneuraOu's own output, 4-field lines, "#
 * NOE" comments, positions not in SFEN order). */
static void test_round_trip(void **state) {
    (void)state;
    const char *files[] = {SH "yaneuraou.db",
                           SH "yaneuraou-merge.db",
                           RS "book_backprop_check_in.db",
                           RS "book_backprop_check_expected.db",
                           RS "book_backprop_yo_in.db",
                           RS "book_backprop_yo_expected.db"};
    BookMoveList *l1 = malloc(sizeof *l1), *l2 = malloc(sizeof *l2);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        Db2016Stats st;
        Db2016ReadOptions o = {.keep_comments = true};
        Book *a = read_path(files[i], &o, &st);
        size_t len1, len2;
        char *w1 = write_to_string(a, true, &len1);
        Book *b = book_create();
        char err[128];
        assert_true(db2016_read_memory("w1", w1, len1, b, &o, &st, err, sizeof err));
        assert_true(st.sorted);
        assert_true(st.had_header);
        char *w2 = write_to_string(b, true, &len2);
        assert_int_equal(len1, len2);
        assert_memory_equal(w1, w2, len1);
        assert_int_equal(book_position_count(a), book_position_count(b));
        for (uint32_t id = 0; id < book_position_count(a); id++) {
            BookKey k;
            uint32_t id2;
            book_position_key(a, id, &k);
            assert_true(book_find(b, &k, &id2));
            book_position_moves(a, id, l1);
            book_position_moves(b, id2, l2);
            book_sort_moves(l1->moves, l1->n);
            expect_same_moves(l1, l2);
            assert_int_equal(book_position_ply(a, id), book_position_ply(b, id2));
        }
        free(w1);
        free(w2);
        book_free(a);
        book_free(b);
    }
    /* The rshogi check file's 4-field lines: count defaults to 1. */
    Book *b = read_path(RS "book_backprop_check_expected.db", NULL, NULL);
    assert_int_equal(book_position_count(b), 4);
    assert_int_equal(lookup_sfen(b, "5k3/9/4R4/9/9/9/9/9/K8 b - 2", l1), 2);
    expect_move(&l1->moves[0], "5c4c", NULL, true, -80, true, 9997, 1);
    assert_int_equal(l1->ply, 2);
    book_free(b);
    free(l1);
    free(l2);
}

/* Duplicate positions merge (smallest ply kept), duplicate moves add their counts. */
static void test_duplicates_and_transpositions(void **state) {
    (void)state;
    const char *text = "#YANEURAOU-DB2016 1.00\n"
                       "sfen " STARTPOS_SFEN "\n"
                       "7g7f 3c3d 30 10 5\n"
                       "2g2f\n"
                       "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 7\n"
                       "7g7f none 40 12 2\n"
                       "\n"
                       "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -\n"
                       "5g5f  none   -3   2    4   trailing words are ignored\n";
    Book *b = book_create();
    Db2016Stats st;
    char err[128];
    assert_true(db2016_read_memory("dup", text, strlen(text), b, NULL, &st, err, sizeof err));
    assert_int_equal(book_position_count(b), 1);
    assert_int_equal(st.duplicate_positions, 2);
    assert_int_equal(st.duplicate_moves, 1);
    assert_false(st.sorted);
    BookMoveList *l = malloc(sizeof *l);
    /* Found from ply 33: the ply is not part of the key. */
    assert_int_equal(lookup_sfen(b, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 33", l), 3);
    assert_int_equal(l->ply, 1);
    expect_move(&l->moves[0], "7g7f", "3c3d", true, 40, true, 12, 7);
    expect_move(&l->moves[1], "2g2f", NULL, false, 0, false, 0, 1);
    expect_move(&l->moves[2], "5g5f", NULL, true, -3, true, 2, 4);
    free(l);
    book_free(b);
}

/* A comment line ending in two CRs (found by the fuzzer): the comment loses its CRs, so a
 * second round trip is byte-identical. */
static void test_comment_trailing_cr(void **state) {
    (void)state;
    const char *text = "sfen " STARTPOS_SFEN "\r\n#note\r\r\n7g7f none 1 2 3 #why\r\r\n";
    Db2016ReadOptions o = {.keep_comments = true};
    Book *a = book_create(), *b = book_create();
    char err[128];
    assert_true(db2016_read_memory("cr", text, strlen(text), a, &o, NULL, err, sizeof err));
    size_t l1, l2;
    char *w1 = write_to_string(a, true, &l1);
    assert_string_equal(w1, "#YANEURAOU-DB2016 1.00\nsfen " STARTPOS_SFEN "\n#note\n7g7f none 1 2 3\n#why\n");
    assert_true(db2016_read_memory("w1", w1, l1, b, &o, NULL, err, sizeof err));
    char *w2 = write_to_string(b, true, &l2);
    assert_string_equal(w1, w2);
    free(w1);
    free(w2);
    book_free(a);
    book_free(b);
}

/* Every malformed line is reported with its line number and skipped; the good lines around
 * it still load. Fatal problems stop the read with file:line. */
static void test_malformed_corpus(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int errors;      /* reported entry errors, -1 = fatal */
        uint64_t line;   /* line of the first report */
        const char *why; /* part of the first reason (or of the fatal message) */
        int positions;   /* positions loaded */
    } cases[] = {
        {"7g7f none 0 0 1\n", 1, 1, "outside an entry", 0},
        {"sfen " STARTPOS_SFEN "\n7g7x none\n2g2f\n", 1, 2, "malformed move '7g7x'", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f 3c3 1 2 3\n", 1, 2, "malformed ponder", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 12x\n", 1, 2, "malformed value '12x'", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 deep\n", 1, 2, "malformed depth", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 2 -5\n", 1, 2, "malformed count", 1},
        {"sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1\n7g7f\nsfen " STARTPOS_SFEN "\n2g2f\n",
         1, 1, "bad sfen", 1},
        {"sfen \n", 1, 1, "bad sfen", 0},
        {"sfen " STARTPOS_SFEN "\n\n7g7f\n", 1, 3, "outside an entry", 1},
        {"sfen " STARTPOS_SFEN "\nnone none\n", 1, 2, "malformed move 'none'", 1},
        /* a cut last line is read but reported, and so is a clamped number */
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 2 3", 1, 2, "ends in the middle of a line", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 2 3\n# no line end after a comment", 0, 0, "", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 99999999999 2 3\n", 1, 2, "out of range was clamped", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 40000 3\n", 1, 2, "out of range was clamped", 1},
        {"sfen " STARTPOS_SFEN "\n7g7f none 1 2 99999999999\n", 1, 2, "out of range was clamped", 1},
        {"sfen " STARTPOS_SFEN "\r\n\r\n", 0, 0, "", 1},
        {"#YANEURAOU-DB2016 0.99\n", -1, 1, "t:1: unsupported header", 0},
        {"sfen " STARTPOS_SFEN "\n7g7f\0 none\n", -1, 2, "t:2: NUL byte", 1},
        {"\xEF\xBB\xBF#YANEURAOU-DB2016 1.00\r\nsfen " STARTPOS_SFEN "\r\n7g7f\r\n", 0, 0, "", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].text);
        if (strstr(cases[i].why, "NUL"))
            len = strlen(cases[i].text) + 1 + strlen(cases[i].text + strlen(cases[i].text) + 1);
        Errors e = {0};
        Db2016ReadOptions o = {.on_error = collect, .ctx = &e};
        Book *b = book_create();
        char err[256] = "";
        Db2016Stats st;
        bool ok = db2016_read_memory("t", cases[i].text, len, b, &o, &st, err, sizeof err);
        if (cases[i].errors < 0) {
            if (ok || !strstr(err, cases[i].why))
                fail_msg("case %zu: expected fatal '%s', got ok=%d '%s'", i, cases[i].why, ok, err);
        } else {
            if (!ok)
                fail_msg("case %zu: unexpected fatal error %s", i, err);
            assert_int_equal(e.n, cases[i].errors);
            assert_int_equal(st.errors, cases[i].errors);
            if (e.n) {
                assert_int_equal(e.lines[0], cases[i].line);
                if (!strstr(e.reasons[0], cases[i].why))
                    fail_msg("case %zu: reason '%s' lacks '%s'", i, e.reasons[0], cases[i].why);
            }
        }
        assert_int_equal(book_position_count(b), cases[i].positions);
        book_free(b);
    }
}

/* strict: the first entry error is fatal and names file and line. */
static void test_strict(void **state) {
    (void)state;
    const char *text = "sfen " STARTPOS_SFEN "\n7g7f\nbogus\n2g2f\n";
    Db2016ReadOptions o = {.strict = true};
    Book *b = book_create();
    char err[256];
    assert_false(db2016_read_memory("book.db", text, strlen(text), b, &o, NULL, err, sizeof err));
    assert_string_equal(err, "book.db:3: malformed move 'bogus'");
    book_free(b);
}

/* Lines longer than the limit, up to a 10 MB line, are a fatal error with bounded memory
 * (the reader's buffer is the limit plus 64 KiB), from memory and from a file. */
static void test_long_lines(void **state) {
    (void)state;
    size_t n = 10u << 20;
    char *text = malloc(n + 256);
    strcpy(text, "sfen " STARTPOS_SFEN "\n7g7f ");
    size_t at = strlen(text);
    memset(text + at, '9', n);
    text[at + n] = '\n';
    Book *b = book_create();
    char err[256];
    assert_false(db2016_read_memory("mem", text, at + n + 1, b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "mem:2: line longer than 65536 bytes"));
    char path[] = "/tmp/hayanagi_test_db2016_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fwrite(text, 1, at + n + 1, f);
    fclose(f);
    assert_false(db2016_read_file(path, b, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, ":2: line longer than 65536 bytes"));
    /* A raised limit accepts it; the huge count saturates. */
    Db2016ReadOptions o = {.max_line = n + 100};
    Book *c = book_create();
    Db2016Stats st;
    assert_true(db2016_read_file(path, c, &o, &st, err, sizeof err));
    assert_int_equal(st.errors, 1); /* "999...9" is not a valid ponder move */
    unlink(path);
    book_free(b);
    book_free(c);
    free(text);
}

/* Random bytes and mutations of a real file: no crash, bounded work (ASan checks the rest). */
static void test_garbage(void **state) {
    (void)state;
    size_t len;
    char *base = slurp(SH "yaneuraou-merge.db", &len);
    uint64_t s = 99;
    char *buf = malloc(len + 1);
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, base, len);
        int edits = 1 + round % 8;
        for (int k = 0; k < edits; k++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            buf[s % len] =
                (char)(round < 1500 ? (char)(s >> 32) : " \n\r#s+*0123456789abcdefghiPLNSGBRK-/"[(s >> 24) % 37]);
        }
        Book *b = book_create();
        Errors e = {0};
        Db2016ReadOptions o = {
            .on_error = collect, .ctx = &e, .check_legality = round % 2 == 0, .keep_comments = round % 3 == 0};
        char err[256];
        db2016_read_memory("fuzz", buf, len, b, &o, NULL, err, sizeof err);
        book_free(b);
    }
    free(buf);
    free(base);
}

/* book check: illegal positions, moves and ponders are reported with their lines. */
static void test_check_legality(void **state) {
    (void)state;
    const char *text = "#YANEURAOU-DB2016 1.00\n"
                       "sfen " STARTPOS_SFEN "\n"
                       "7g7f 3c3d 0 0 1\n"
                       "7g7e none 0 0 1\n"
                       "2g2f 2g2e 0 0 1\n"
                       "sfen 4k4/9/9/9/9/9/P8/P8/4K4 b - 1\n"
                       "5i5h\n"
                       "sfen 4k4/9/9/9/9/9/9/9/4K4 b P 1\n"
                       "P*5a\n"
                       "P*5b\n";
    Errors e = {0};
    Db2016ReadOptions o = {.check_legality = true, .on_error = collect, .ctx = &e};
    Book *b = book_create();
    char err[128];
    Db2016Stats st;
    assert_true(db2016_read_memory("c", text, strlen(text), b, &o, &st, err, sizeof err));
    assert_int_equal(e.n, 4);
    assert_int_equal(e.lines[0], 4);
    assert_string_equal(e.reasons[0], "illegal move 7g7e");
    assert_int_equal(e.lines[1], 5);
    assert_string_equal(e.reasons[1], "illegal ponder 2g2e after 2g2f");
    assert_int_equal(e.lines[2], 6);
    assert_non_null(strstr(e.reasons[2], "illegal position"));
    assert_int_equal(e.lines[3], 9);
    assert_string_equal(e.reasons[3], "illegal move P*5a");
    assert_int_equal(book_move_count(b), 2); /* 7g7f and P*5b */
    book_free(b);
}

/* On the fly: every position of a sorted file is found with the same moves as in memory;
 * misses miss; unsorted files are refused. */
static void test_on_the_fly(void **state) {
    (void)state;
    const char *files[] = {SH "yaneuraou.db", SH "yaneuraou-bom-crlf.db", SH "yaneuraou-bom-no-header.db",
                           SH "yaneuraou-merge.db"};
    BookMoveList *a = malloc(sizeof *a), *c = malloc(sizeof *c);
    char err[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        Book *b = read_path(files[i], NULL, NULL);
        Db2016File *f = db2016_otf_open(files[i], err, sizeof err);
        if (!f)
            fail_msg("%s: %s", files[i], err);
        for (uint32_t id = 0; id < book_position_count(b); id++) {
            BookKey k;
            Position pos;
            StateInfo st;
            book_position_key(b, id, &k);
            assert_true(book_key_to_position(&k, &pos, &st, 1));
            book_position_moves(b, id, a);
            assert_int_equal(db2016_otf_lookup(f, &pos, c, err, sizeof err), 1);
            assert_int_equal(a->ply, c->ply);
            expect_same_moves(a, c);
        }
        Position pos;
        StateInfo st;
        assert_true(position_from_sfen(&pos, &st, "4k4/9/9/9/9/9/9/9/4K4 b - 1", NULL, 0));
        assert_int_equal(db2016_otf_lookup(f, &pos, c, err, sizeof err), 0);
        db2016_otf_close(f);
        book_free(b);
    }
    /* rshogi's peta_shock output is not in SFEN order. */
    assert_null(db2016_otf_open(RS "book_backprop_check_in.db", err, sizeof err));
    assert_non_null(strstr(err, "not sorted"));
    assert_non_null(strstr(err, "book_backprop_check_in.db:"));
    /* An empty file opens and misses. */
    char path[] = "/tmp/hayanagi_test_otf_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    Db2016File *f = db2016_otf_open(path, err, sizeof err);
    assert_non_null(f);
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    assert_int_equal(db2016_otf_lookup(f, &pos, c, err, sizeof err), 0);
    db2016_otf_close(f);
    unlink(path);
    free(a);
    free(c);
}

/* A larger sorted book written by us: every lookup agrees with memory mode. */
static void test_on_the_fly_written_book(void **state) {
    (void)state;
    Book *b = book_create();
    Game g;
    game_init(&g);
    uint64_t s = 5;
    for (int game = 0; game < 60; game++) {
        assert_true(game_set_sfen(&g, STARTPOS_SFEN, NULL, 0));
        for (int ply = 0; ply < 40; ply++) {
            ExtMove moves[MAX_MOVES];
            int n = generate_moves(&g.pos, GEN_LEGAL, moves);
            if (!n)
                break;
            BookKey k;
            uint32_t id;
            book_key_from_position(&g.pos, &k);
            assert_true(book_add_position(b, &k, g.pos.ply, &id));
            s = s * 6364136223846793005ull + 1;
            Move m = moves[(s >> 33) % (uint64_t)n].move;
            BookMove bmv = {
                .move = move_to_move16(m), .score = (int)(s >> 50) - 8000, .has_score = true, .count = (s >> 40) % 7};
            assert_true(book_add_move(b, id, &bmv, NULL));
            assert_true(game_push(&g, m));
        }
    }
    game_free(&g);
    char path[] = "/tmp/hayanagi_test_otf2_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[256];
    assert_true(db2016_write_file(path, b, NULL, err, sizeof err));
    Db2016File *f = db2016_otf_open(path, err, sizeof err);
    assert_non_null(f);
    BookMoveList *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    for (uint32_t id = 0; id < book_position_count(b); id++) {
        BookKey k;
        Position pos;
        StateInfo st;
        book_position_key(b, id, &k);
        book_key_to_position(&k, &pos, &st, 1);
        book_position_moves(b, id, x);
        book_sort_moves(x->moves, x->n);
        assert_int_equal(db2016_otf_lookup(f, &pos, y, err, sizeof err), 1);
        expect_same_moves(x, y);
    }
    db2016_otf_close(f);
    /* No temporary file is left next to the output. */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.0", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
    unlink(path);
    /* Writing into a missing directory fails cleanly. */
    assert_false(db2016_write_file("/nonexistent-dir/x.db", b, NULL, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir/x.db"));
    free(x);
    free(y);
    book_free(b);
}

static void test_parse_move_line(void **state) {
    (void)state;
    BookMove m;
    bool amb;
    char err[128];
    assert_true(db2016_parse_move_line("8h2b+ none", 10, false, &m, &amb, err, sizeof err));
    expect_move(&m, "8h2b+", NULL, false, 0, false, 0, 1);
    assert_false(amb);
    const char *big = "P*5e 5d5e 99999999999 -70000 18446744073709551615";
    assert_true(db2016_parse_move_line(big, strlen(big), false, &m, &amb, err, sizeof err));
    expect_move(&m, "P*5e", "5d5e", true, 2147483647, true, -BOOK_DEPTH_MAX, BOOK_COUNT_MAX);
    assert_int_equal(m.count, BOOK_COUNT_MAX);
    assert_true(db2016_parse_move_line("7g7f resign", 11, false, &m, &amb, err, sizeof err));
    assert_int_equal(m.ponder, MOVE_NONE);
    assert_false(db2016_parse_move_line("", 0, false, &m, &amb, err, sizeof err));
    assert_false(db2016_parse_move_line("7g7g", 4, false, &m, &amb, err, sizeof err));
    assert_false(db2016_parse_move_line("K*5e", 4, false, &m, &amb, err, sizeof err));
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shogihome_variants),
        cmocka_unit_test(test_invalid_header),
        cmocka_unit_test(test_merge_output),
        cmocka_unit_test(test_write_matches_shogihome_copy),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_duplicates_and_transpositions),
        cmocka_unit_test(test_comment_trailing_cr),
        cmocka_unit_test(test_malformed_corpus),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_check_legality),
        cmocka_unit_test(test_on_the_fly),
        cmocka_unit_test(test_on_the_fly_written_book),
        cmocka_unit_test(test_parse_move_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
