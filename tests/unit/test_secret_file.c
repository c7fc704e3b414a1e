/* test_secret_file.c - util/secret_file.h: the first line of a file as a password, its line
 * end stripped, and ssh's mode rule (a regular file with any group or other permission is
 * refused; a FIFO is read without it). The files are written here byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/secret_file.h"

static char dir[] = "/tmp/test_secret_file.XXXXXX";
static char path[128];

static int setup(void **state) {
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/pw", dir);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

/* Writes len bytes of text to path with the given mode. */
static void put(const char *text, size_t len, mode_t mode) {
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_first_line(void **state) {
    (void)state;
    char pw[16], err[256];
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"trip123\n", "trip123"},
        {"trip123", "trip123"}, /* no line end */
        {"trip123\r\nnext\n", "trip123"},
        {"trip123\r", "trip123"},
        {"a b\n", "a b"},                         /* blanks are the caller's business */
        {"123456789012345\n", "123456789012345"}, /* 15 bytes: the most pw holds */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put(cases[i].text, strlen(cases[i].text), 0600);
        assert_true(secret_read_file(path, pw, sizeof pw, err, sizeof err));
        assert_string_equal(pw, cases[i].want);
    }
    put("trip\n", 5, 0400); /* read-only for the owner: fine */
    assert_true(secret_read_file(path, pw, sizeof pw, err, sizeof err));
    assert_string_equal(pw, "trip");
}

static void test_refusals(void **state) {
    (void)state;
    char pw[16], err[256], want[256];
    /* any group or other bit, as ssh: read, write or execute */
    static const mode_t open_modes[] = {0644, 0640, 0604, 0620, 0602, 0610, 0601, 0666};
    for (size_t i = 0; i < sizeof open_modes / sizeof open_modes[0]; i++) {
        put("trip\n", 5, open_modes[i]);
        assert_false(secret_read_file(path, pw, sizeof pw, err, sizeof err));
        snprintf(want, sizeof want, "%s: permissions %04o are too open", path, (unsigned)open_modes[i]);
        assert_memory_equal(err, want, strlen(want));
        assert_string_equal(pw, "");
    }
    static const struct {
        const char *text;
        size_t len;
        const char *why;
    } bad[] = {
        {"", 0, "the first line is empty: no password"},
        {"\nsecond\n", 8, "the first line is empty: no password"},
        {"\r\n", 2, "the first line is empty: no password"},
        {"tr\0ip\n", 6, "the first line holds a NUL byte"},
        {"1234567890123456\n", 17, "the first line is too long for a password"}, /* 16 > 15 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(bad[i].text, bad[i].len, 0600);
        assert_false(secret_read_file(path, pw, sizeof pw, err, sizeof err));
        snprintf(want, sizeof want, "%s: %s", path, bad[i].why);
        assert_string_equal(err, want);
        assert_string_equal(pw, "");
    }
    assert_false(secret_read_file(dir, pw, sizeof pw, err, sizeof err));
    snprintf(want, sizeof want, "%s: is a directory, not a file holding the password", dir);
    assert_string_equal(err, want);
    unlink(path);
    assert_false(secret_read_file(path, pw, sizeof pw, err, sizeof err));
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(err, want);
}

/* A FIFO has no mode worth checking (0666 here): read as it is */
static void test_fifo(void **state) {
    (void)state;
    unlink(path);
    assert_int_equal(mkfifo(path, 0666), 0);
    assert_int_equal(chmod(path, 0666), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(path, "w");
        if (f)
            fputs("piped\nrest\n", f);
        _exit(f && fclose(f) == 0 ? 0 : 1);
    }
    char pw[16], err[256];
    bool ok = secret_read_file(path, pw, sizeof pw, err, sizeof err);
    int status;
    waitpid(pid, &status, 0);
    assert_true(ok);
    assert_string_equal(pw, "piped");
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_line),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_fifo),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
