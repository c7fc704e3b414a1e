/* test_think_journal.c - the `book think` journal reader and writer (think_journal.h):
 * the end line is what POSIX `cksum` prints (its published check value), whole entries are
 * read back, cut and damaged ones are dropped with their byte offset, a header of another
 * input or other options is refused, a bad line inside a whole entry is named by line, and
 * a second lock on one journal is refused naming the holder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bookgen/think_journal.h"
#include "shogi/position.h"

#define AFTER_76 "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
#define PROV     "#think engine=T; budget=nodes 1; depth=3; nodes=9; date=2026-01-01T00:00:00Z\n"

static ThinkJournalId the_id(void) {
    ThinkJournalId id = {.input_name = "in.db", .options = "--nodes=1"};
    snprintf(id.input, sizeof id.input, "positions=1 moves=1 hash=0");
    return id;
}

/* Appends text with its end line to buf. */
static void block(char *buf, size_t cap, const char *text) {
    size_t used = strlen(buf);
    snprintf(buf + used, cap - used, "%s#end %u %zu\n", text, (unsigned)think_journal_cksum(text, strlen(text)),
             strlen(text));
}

static void header(char *buf, size_t cap, const char *options) {
    char h[512];
    snprintf(h, sizeof h,
             "#hayanagi think journal 1\n#input-name in.db\n#input positions=1 moves=1 hash=0\n#options %s\n", options);
    buf[0] = '\0';
    block(buf, cap, h);
}

static const char ENTRY[] = "sfen " AFTER_76 "\n" PROV "3c3d 2g2f -40 3 1\n8c8d none none none 1\n";

/* POSIX cksum of "123456789" is 930766865 (the check value every cksum prints). */
static void test_cksum(void **state) {
    (void)state;
    assert_int_equal(think_journal_cksum("123456789", 9), 930766865u);
    assert_int_equal(think_journal_cksum("", 0), 4294967295u);
}

static size_t parse(const char *text, size_t len, Book *done, ThinkJournalScan *scan, bool *ok, char *err) {
    ThinkJournalId id = the_id();
    char *out = NULL;
    size_t out_len = 0;
    FILE *warn = open_memstream(&out, &out_len);
    *ok = think_journal_parse(text, len, "j", &id, done, NULL, warn, scan, err, 512);
    fclose(warn);
    snprintf(err + strlen(err), 512 - strlen(err), "%s", out ? out : "");
    free(out);
    return scan->entries;
}

static void test_whole_and_cut(void **state) {
    (void)state;
    char buf[4096], err[512] = "";
    header(buf, sizeof buf, "--nodes=1");
    size_t header_len = strlen(buf);
    block(buf, sizeof buf, ENTRY);
    size_t whole = strlen(buf);
    ThinkJournalScan scan;
    bool ok;
    Book *done = book_create();
    assert_int_equal(parse(buf, whole, done, &scan, &ok, err), 1);
    assert_true(ok);
    assert_false(scan.cut_tail);
    assert_int_equal(scan.good_end, whole);
    assert_int_equal(book_position_count(done), 1);
    assert_int_equal(book_move_count(done), 2);
    book_free(done);
    /* every cut inside the entry (its end line included) drops it and names the offset */
    for (size_t cut = header_len + 1; cut < whole; cut++) {
        done = book_create();
        err[0] = '\0';
        assert_int_equal(parse(buf, cut, done, &scan, &ok, err), 0);
        assert_true(ok);
        assert_true(scan.cut_tail);
        assert_int_equal(scan.good_end, header_len);
        assert_int_equal(book_position_count(done), 0);
        char want[64];
        snprintf(want, sizeof want, "j: byte %zu: the last entry was cut", header_len);
        assert_non_null(strstr(err, want));
        book_free(done);
    }
    /* a changed digit: the end line no longer matches */
    char *bad = strdup(buf);
    *strstr(bad, "-40") = '+';
    done = book_create();
    err[0] = '\0';
    assert_int_equal(parse(bad, whole, done, &scan, &ok, err), 0);
    assert_true(ok);
    char want[96];
    snprintf(want, sizeof want, "j:6: (byte %zu) an entry whose end line does not match its bytes", header_len);
    assert_non_null(strstr(err, want));
    free(bad);
    book_free(done);
}

static void test_foreign_header(void **state) {
    (void)state;
    char buf[4096], err[512] = "";
    header(buf, sizeof buf, "--nodes=2");
    block(buf, sizeof buf, ENTRY);
    ThinkJournalScan scan;
    bool ok;
    Book *done = book_create();
    parse(buf, strlen(buf), done, &scan, &ok, err);
    assert_false(ok);
    assert_non_null(strstr(err, "was written with other options"));
    assert_non_null(strstr(err, "--nodes=2"));
    assert_int_equal(book_position_count(done), 0);
    char *other = strdup(buf);
    header(other, sizeof buf, "--nodes=1");
    *strstr(other, "hash=0") = 'H'; /* another input (the end line then fails too: fix it) */
    char h[512];
    snprintf(h, sizeof h,
             "#hayanagi think journal 1\n#input-name x.db\n#input positions=2 moves=1 hash=0\n#options "
             "--nodes=1\n");
    other[0] = '\0';
    block(other, sizeof buf, h);
    err[0] = '\0';
    parse(other, strlen(other), done, &scan, &ok, err);
    assert_false(ok);
    assert_non_null(strstr(err, "was written for another input: x.db (positions=2"));
    /* no header at all: an older journal */
    static const char old[] = "sfen " AFTER_76 "\n3c3d none 1 1 1\n\n";
    err[0] = '\0';
    parse(old, sizeof old - 1, done, &scan, &ok, err);
    assert_false(ok);
    assert_non_null(strstr(err, "is not a journal of this version"));
    /* empty, or a header cut in its first line: a new journal */
    parse("", 0, done, &scan, &ok, err);
    assert_true(ok);
    parse("#hayanagi thi", 13, done, &scan, &ok, err);
    assert_true(ok);
    assert_true(scan.cut_tail);
    assert_int_equal(scan.good_end, 0);
    free(other);
    book_free(done);
}

static void test_bad_lines(void **state) {
    (void)state;
    static const char *const bad[][2] = {
        {"sfen " AFTER_76 "\n" PROV "7g7f none 1 1 1\n", "j:8: move '7g7f' is not legal"},
        {"sfen " AFTER_76 "\n" PROV "3c3d 3c3d 1 1 1\n", "j:8: ponder '3c3d' is not legal after 3c3d"},
        {"sfen " AFTER_76 "\n" PROV "3c3d none 32001 1 1\n", "j:8: score '32001'"},
        {"sfen " AFTER_76 "\n" PROV "3c3d none 1 0 1\n", "j:8: depth '0'"},
        {"sfen " AFTER_76 "\n" PROV "3c3d none 1 1 2\n", "j:8: count '2' is not 1"},
        {"sfen " AFTER_76 "\n" PROV "3c3d none 1 1 1\n3c3d none 1 1 1\n", "j:9: move '3c3d' is given twice"},
        {"sfen " AFTER_76 "\n" PROV "3c3d none -9\n", "j:8: a move line has 5 fields"},
        {"sfen " AFTER_76 "\n3c3d none 1 1 1\n", "j:7: the second line must be the provenance"},
        {"sfen " AFTER_76 "\n", "j:6: an entry needs its sfen and provenance lines"},
        {"sfen x\n" PROV, "j:6: bad SFEN"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char buf[4096], err[512] = "";
        header(buf, sizeof buf, "--nodes=1");
        block(buf, sizeof buf, bad[i][0]);
        ThinkJournalScan scan;
        bool ok;
        Book *done = book_create();
        assert_int_equal(parse(buf, strlen(buf), done, &scan, &ok, err), 0);
        assert_true(ok);
        assert_int_equal(scan.dropped, 1);
        if (!strstr(err, bad[i][1]))
            fail_msg("case %zu: '%s' not in '%s'", i, bad[i][1], err);
        assert_int_equal(book_position_count(done), 0);
        book_free(done);
    }
}

/* the options of a run with many engines make a header line of several kilobytes: read
 * back whole, matched whole */
static void test_long_options(void **state) {
    (void)state;
    size_t n = 20000;
    char *options = malloc(n + 1), *text = malloc(n + 4096), err[2048] = "";
    for (size_t i = 0; i < n; i++)
        options[i] = (char)('a' + i % 26);
    options[n] = '\0';
    char *h = malloc(n + 512);
    snprintf(h, n + 512,
             "#hayanagi think journal 1\n#input-name in.db\n#input positions=1 moves=1 hash=0\n#options %s\n", options);
    text[0] = '\0';
    block(text, n + 4096, h);
    block(text, n + 4096, ENTRY);
    ThinkJournalId id = the_id();
    id.options = options;
    ThinkJournalScan scan;
    Book *done = book_create();
    assert_true(think_journal_parse(text, strlen(text), "j", &id, done, NULL, NULL, &scan, err, sizeof err));
    assert_int_equal(scan.entries, 1);
    options[n - 1] = 'X'; /* one byte differs, at the far end */
    assert_false(think_journal_parse(text, strlen(text), "j", &id, done, NULL, NULL, &scan, err, sizeof err));
    assert_non_null(strstr(err, "was written with other options"));
    book_free(done);
    free(h);
    free(text);
    free(options);
}

/* open, append, reopen: the entry is read back; a second holder is refused with our pid */
static void test_file_and_lock(void **state) {
    (void)state;
    char path[64], err[512];
    snprintf(path, sizeof path, "/tmp/test_think_journal_%d", (int)getpid());
    unlink(path);
    ThinkJournalId id = the_id();
    ThinkJournalScan scan;
    Book *done = book_create();
    ThinkJournal *j = think_journal_open(path, &id, done, NULL, NULL, &scan, err, sizeof err);
    assert_non_null(j);
    assert_true(think_journal_append(j, ENTRY, strlen(ENTRY), err, sizeof err));
    pid_t child = fork();
    if (child == 0) { /* another process: the lock is held */
        Book *d = book_create();
        ThinkJournalScan s;
        char e[512];
        ThinkJournal *k = think_journal_open(path, &id, d, NULL, NULL, &s, e, sizeof e);
        char want[64];
        snprintf(want, sizeof want, "(pid %d)", (int)getppid());
        _exit(!k && strstr(e, "is in use by another") && strstr(e, want) ? 0 : 1);
    }
    int st;
    waitpid(child, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    think_journal_close(j);
    j = think_journal_open(path, &id, done, NULL, NULL, &scan, err, sizeof err);
    assert_non_null(j);
    assert_int_equal(scan.entries, 1);
    assert_int_equal(book_move_count(done), 2);
    think_journal_close(j);
    book_free(done);
    unlink(path);
}

int main(void) {
    shogi_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cksum),     cmocka_unit_test(test_whole_and_cut), cmocka_unit_test(test_foreign_header),
        cmocka_unit_test(test_bad_lines), cmocka_unit_test(test_long_options),  cmocka_unit_test(test_file_and_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
