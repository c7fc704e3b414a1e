/* test_path.c - util/path.h: the one rule for BookDir/BookFile and EvalDir/EvalFile. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "usi/engine_book.h"
#include "util/path.h"

static char exe_dir[4096];

static int setup(void **state) {
    (void)state;
    ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
    if (n <= 0)
        return -1;
    exe_dir[n] = '\0';
    *strrchr(exe_dir, '/') = '\0';
    return 0;
}

static void test_absolute_and_empty(void **state) {
    (void)state;
    char out[512];
    assert_true(path_resolve("book", "/abs/x.db", out, sizeof out));
    assert_string_equal(out, "/abs/x.db");
    assert_true(path_resolve("/data/book", "x.db", out, sizeof out));
    assert_string_equal(out, "/data/book/x.db");
    assert_true(path_resolve("", "x.db", out, sizeof out));
    assert_string_equal(out, "./x.db");
    char small[8];
    assert_false(path_resolve("/data/book", "x.db", small, sizeof small));
}

/* A relative dir: beside the executable unless only the working directory has the file. */
static void test_relative_dir(void **state) {
    (void)state;
    char tmp[] = "/tmp/hayanagi_path_XXXXXX", cwd[4096], out[8192], want[8192];
    assert_non_null(mkdtemp(tmp));
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmp), 0);
    /* Neither exists: beside the executable (where the error message should point). */
    assert_true(path_resolve("nodir_here", "f.bin", out, sizeof out));
    snprintf(want, sizeof want, "%s/nodir_here/f.bin", exe_dir);
    assert_string_equal(out, want);
    /* Only the working directory has it: that one. */
    assert_int_equal(mkdir("nodir_here", 0700), 0);
    FILE *f = fopen("nodir_here/f.bin", "w");
    assert_non_null(f);
    fclose(f);
    assert_true(path_resolve("nodir_here", "f.bin", out, sizeof out));
    assert_string_equal(out, "nodir_here/f.bin");
    /* Book and eval options resolve the same way. */
    char book[8192];
    assert_true(engine_book_resolve("nodir_here", "f.bin", book, sizeof book));
    assert_string_equal(book, out);
    assert_false(engine_book_resolve("nodir_here", "no_book", book, sizeof book));
    assert_false(engine_book_resolve("nodir_here", "", book, sizeof book));
    unlink("nodir_here/f.bin");
    rmdir("nodir_here");
    assert_int_equal(chdir(cwd), 0);
    rmdir(tmp);
}

/* mkdir -p: made, already there, and a file where a directory is asked for (mkdir's
 * EEXIST must not pass for a directory) */
static void test_make_dirs(void **state) {
    (void)state;
    char tmp[] = "/tmp/test_path_dirs.XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char dir[128], file[128], under[192], err[512];
    snprintf(dir, sizeof dir, "%s/a/b/c", tmp);
    bool created = false;
    assert_true(path_make_dirs(dir, &created, err, sizeof err));
    assert_true(created);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_true(path_make_dirs(dir, &created, err, sizeof err)); /* there already */
    assert_false(created);
    snprintf(under, sizeof under, "%s/", dir); /* a trailing slash names the same */
    assert_true(path_make_dirs(under, NULL, err, sizeof err));

    snprintf(file, sizeof file, "%s/f", tmp);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    created = true;
    assert_false(path_make_dirs(file, &created, err, sizeof err));
    assert_false(created);
    char want[640];
    snprintf(want, sizeof want, "%s: exists and is not a directory", file);
    assert_string_equal(err, want);
    snprintf(under, sizeof under, "%s/sub", file); /* a parent is the file */
    assert_false(path_make_dirs(under, NULL, err, sizeof err));
    snprintf(want, sizeof want, "%s: %s exists and is not a directory", under, file);
    assert_string_equal(err, want);

    unlink(file);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/a/b", tmp);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/a", tmp);
    rmdir(dir);
    rmdir(tmp);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absolute_and_empty),
        cmocka_unit_test(test_relative_dir),
        cmocka_unit_test(test_make_dirs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
