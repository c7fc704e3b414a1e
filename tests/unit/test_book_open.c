/* test_book_open.c - the one way into book files (book/open.h): format detection by
 * positive content evidence on the real ShogiHome files and on files that are no book,
 * output formats by name, reads that refuse instead of returning an empty book; and the
 * temporary-file registry of util/atomic_file.h (a signal removes open temporary files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "book/open.h"
#include "util/atomic_file.h"
#include "util/interrupt.h"

#define REF "../shared/refdata/"

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    static uint8_t buf[1 << 20];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static const char *detect_file(const char *path) {
    char err[512];
    const BookFormat *f = book_format_detect(path, err, sizeof err);
    return f ? book_format_id(f) : NULL;
}

static const char *detect_text(const char *name, const char *text) {
    char err[512];
    const BookFormat *f = book_format_detect_memory(name, text, strlen(text), strlen(text), err, sizeof err);
    if (!f)
        assert_non_null(strstr(err, name));
    return f ? book_format_id(f) : NULL;
}

static void test_real_files(void **state) {
    (void)state;
    static const struct {
        const char *path, *id;
    } cases[] = {
        {REF "db/shogihome/yaneuraou.db", "db"},
        {REF "db/shogihome/yaneuraou-bom-crlf.db", "db"},
        {REF "db/shogihome/yaneuraou-no-header.db", "db"},
        {REF "db/shogihome/yaneuraou-bom-no-header.db", "db"},
        {REF "db/shogihome/yaneuraou-invalid-header.db", "db"}, /* detected, then refused by the reader */
        {REF "db/rshogi/book_backprop_check_in.db", "db"},
        {REF "sbk/shogihome/shogigui01.sbk", "sbk"},
        {REF "sbk/shogihome/shogigui02.sbk", "sbk"},
        {REF "sbk/shogihome/sbk-merge.sbk", "sbk"},
        {REF "ybb/shogihome/yaneuraou.ybb", "ybb"},
        {REF "apery/shogihome/apery.bin", "apery"},
        {REF "apery/shogihome/apery-merge.bin", "apery"},
        /* game records and other text are no book */
        {REF "csa/shogi-server/jishogi_kachi.csa", NULL},
        {REF "kif/json-kifu-format/8mai.kif", NULL},
        {REF "sbk/ENCODING.md", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = detect_file(cases[i].path);
        if ((got == NULL) != (cases[i].id == NULL) || (got && strcmp(got, cases[i].id)))
            fail_msg("%s: detected %s, expected %s", cases[i].path, got ? got : "nothing",
                     cases[i].id ? cases[i].id : "nothing");
    }
}

static void test_text_evidence(void **state) {
    (void)state;
    assert_string_equal(detect_text("a", "#YANEURAOU-DB2016 1.00\n"), "db");
    assert_string_equal(detect_text("b", "# a comment\n// another\n\nsfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n"), "db");
    assert_null(detect_text("c", "# only comments\n# nothing else\n"));
    assert_null(detect_text("d", "startpos moves 7g7f 3c3d\n"));
    assert_null(detect_text("e", "V2.2\nN+a\nN-b\nPI\n+\n+7776FU\n"));
    assert_null(detect_text("f", "sfenx\n"));
    char err[256];
    assert_null(book_format_detect_memory("empty", "", 0, 0, err, sizeof err));
    assert_non_null(strstr(err, "empty"));
}

/* Random bytes are no book: not even Apery, whose entries must be sorted by key with
 * moves on the board (an unknown binary was read as an empty Apery book). */
static void test_binary_evidence(void **state) {
    (void)state;
    uint8_t *buf = malloc(1 << 16);
    uint64_t x = 88172645463325252ull;
    for (int trial = 0; trial < 20; trial++) {
        for (size_t i = 0; i < 1 << 16; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        char err[512];
        assert_null(book_format_detect_memory("random", buf, 1 << 16, 1 << 16, err, sizeof err));
        assert_non_null(strstr(err, "not a book we know"));
    }
    /* Apery's own file, its entries out of order: refused */
    size_t len;
    uint8_t *apery = slurp(REF "apery/shogihome/apery.bin", &len);
    assert_true(len >= 32 && len % 16 == 0);
    memcpy(buf, apery + 16, 16);
    memcpy(buf + 16, apery, 16);
    char err[512];
    assert_null(book_format_detect_memory("swapped", buf, 32, 32, err, sizeof err));
    /* an SBK cut short: a length past the end of the file */
    uint8_t *sbk = slurp(REF "sbk/shogihome/shogigui01.sbk", &len);
    assert_non_null(book_format_detect_memory("whole.sbk", sbk, len, len, err, sizeof err));
    assert_null(book_format_detect_memory("cut.sbk", sbk, len / 2, len / 2, err, sizeof err));
    free(buf);
}

static void test_output_names(void **state) {
    (void)state;
    char err[256];
    assert_string_equal(book_format_id(book_format_for_output("x/out.sbk", err, sizeof err)), "sbk");
    assert_string_equal(book_format_id(book_format_for_output("out.SBK", err, sizeof err)), "sbk");
    assert_string_equal(book_format_id(book_format_for_output("out.db", err, sizeof err)), "db");
    assert_string_equal(book_format_id(book_format_for_output("out", err, sizeof err)), "db");
    assert_string_equal(book_format_id(book_format_for_output("dir.sbk/out", err, sizeof err)), "db");
    assert_null(book_format_for_output("out.ybb", err, sizeof err));
    assert_non_null(strstr(err, "not supported"));
    assert_null(book_format_for_output("book.bin", err, sizeof err));
    assert_true(book_format_is(book_format_by_id("db2016"), "db"));
    assert_true(book_format_is(book_format_by_id("bin"), "apery"));
    assert_true(book_format_is(book_format_by_id("osl"), "osl"));
    assert_null(book_format_by_id("gps"));
    assert_null(book_format_by_id("kif"));
    assert_null(book_format_for_output("joseki.dat", err, sizeof err)); /* OSL is read-only */
}

/* Reads refuse instead of returning an empty book: a file of DB2016 evidence whose every
 * line is bad, an Apery file of sorted entries none of which is reachable. */
static void test_refusals(void **state) {
    (void)state;
    char path[] = "/tmp/test_book_open_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "sfen this is not a position\n7g7f\nsfen neither\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char err[512];
    BookReadReport rep;
    assert_null(book_open_read(path, NULL, NULL, &rep, err, sizeof err));
    assert_non_null(strstr(err, "no position could be read"));
    /* two sorted entries with a legal-looking move, keys 1 and 2: nothing reachable */
    static const uint8_t apery[32] = {1, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0x06, 1, 0, 0, 0, 0, 0,
                                      2, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0x06, 1, 0, 0, 0, 0, 0};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(apery, 1, sizeof apery, f), sizeof apery);
    fclose(f);
    assert_string_equal(detect_file(path), "apery");
    assert_null(book_open_read(path, NULL, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "reachable"));
    assert_null(book_prober_open(path, NULL, false, NULL, NULL, err, sizeof err));
    unlink(path);
    /* and the real books read, the probers answer the start position */
    Book *b = book_open_read(REF "apery/shogihome/apery.bin", NULL, NULL, &rep, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(book_position_count(b), 19);
    book_free(b);
    BookProber *p = book_prober_open(REF "sbk/shogihome/shogigui01.sbk", NULL, true, NULL, &rep, err, sizeof err);
    assert_non_null(p);
    assert_true(book_prober_on_disk(p));
    book_prober_close(p);
}

/* A signal that ends the process removes its open temporary files, and leaves the target. */
static void test_atomic_signal_cleanup(void **state) {
    (void)state;
    char dir[] = "/tmp/test_atomic_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char target[256], cmd[512];
    snprintf(target, sizeof target, "%s/out.db", dir);
    FILE *f = fopen(target, "w");
    fputs("old\n", f);
    fclose(f);
    int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            AtomicFile a, b;
            char err[256];
            if (!atomic_file_open(&a, target, err, sizeof err) || !atomic_file_open(&b, target, err, sizeof err))
                _exit(3);
            fputs("new\n", a.f);
            fflush(a.f);
            raise(sigs[k]);
            _exit(4); /* not reached */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
        snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp", dir);
        FILE *ls = popen(cmd, "r");
        int n = -1;
        assert_int_equal(fscanf(ls, "%d", &n), 1);
        pclose(ls);
        assert_int_equal(n, 0);
        f = fopen(target, "r");
        char line[16] = "";
        assert_non_null(fgets(line, sizeof line, f));
        fclose(f);
        assert_string_equal(line, "old\n");
    }
    /* in this process: the registry lists the open temporary files that have a name (none
     * where the filesystem has unnamed ones, util/atomic_file.h), and only while open */
    AtomicFile a;
    char err[256];
    int before = interrupt_tracked_count();
    assert_true(atomic_file_open(&a, target, err, sizeof err));
    snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp", dir);
    FILE *named = popen(cmd, "r");
    int n_named = -1;
    assert_int_equal(fscanf(named, "%d", &n_named), 1);
    pclose(named);
    assert_int_equal(interrupt_tracked_count(), before + n_named);
    atomic_file_abort(&a);
    assert_int_equal(interrupt_tracked_count(), before);
    unlink(target);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files),      cmocka_unit_test(test_text_evidence),
        cmocka_unit_test(test_binary_evidence), cmocka_unit_test(test_output_names),
        cmocka_unit_test(test_refusals),        cmocka_unit_test(test_atomic_signal_cleanup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
