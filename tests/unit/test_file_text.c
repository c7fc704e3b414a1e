/* test_file_text.c - file_read_text (util/file_text.h): contents and length (NUL bytes
 * included), the size limit at its edge, a file larger than the first buffer, and the
 * messages for a missing file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/file_text.h"

static void write_file(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void test_contents_and_limit(void **state) {
    (void)state;
    char path[] = "/tmp/hayanagi_file_text_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_file(path, "ab\0cd\n", 6);
    char err[256];
    size_t len = 0;
    char *t = file_read_text(path, 0, &len, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(len, 6);
    assert_memory_equal(t, "ab\0cd\n", 6);
    assert_int_equal(t[6], '\0');
    free(t);
    /* exactly at the limit is read, one byte over is refused */
    t = file_read_text(path, 6, &len, err, sizeof err);
    assert_non_null(t);
    free(t);
    assert_null(file_read_text(path, 5, &len, err, sizeof err));
    char want[300];
    snprintf(want, sizeof want, "%s: larger than 5 bytes", path);
    assert_string_equal(err, want);
    /* larger than the first 64 KiB buffer */
    size_t big = 200000;
    char *data = malloc(big);
    for (size_t i = 0; i < big; i++)
        data[i] = (char)('a' + i % 26);
    write_file(path, data, big);
    t = file_read_text(path, 0, &len, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(len, big);
    assert_memory_equal(t, data, big);
    free(t);
    free(data);
    unlink(path);
    assert_null(file_read_text(path, 0, &len, err, sizeof err));
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(err, want);
    /* a directory opens but does not read: the message says what it is */
    assert_null(file_read_text("/", 0, &len, err, sizeof err));
    assert_string_equal(err, "/: Is a directory");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contents_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
