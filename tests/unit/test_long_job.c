/* test_long_job.c - the long job's scope, side files and message (util/long_job.h): inside
 * the scope SIGPIPE is ignored and a SIGINT only sets the flag; after it both are as they
 * were; OUT.journal is named or refused when too long, never cut; the interrupted message
 * and its status. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/long_job.h"

static void (*handler_of(int sig))(int) {
    struct sigaction sa;
    assert_int_equal(sigaction(sig, NULL, &sa), 0);
    return sa.sa_handler;
}

static void test_scope(void **state) {
    (void)state;
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    LongJob job;
    long_job_begin(&job);
    assert_true(handler_of(SIGPIPE) == SIG_IGN);
    assert_false(interrupt_requested());
    /* a write to a pipe nobody reads fails instead of killing the process */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    assert_int_equal(write(fds[1], "x", 1), -1);
    close(fds[1]);
    /* Ctrl-C: the flag, not the death of the process */
    raise(SIGINT);
    assert_true(interrupt_requested());
    assert_int_equal(*interrupt_flag(), 1);
    long_job_end(&job);
    assert_true(handler_of(SIGPIPE) == SIG_DFL);
    assert_true(handler_of(SIGINT) == SIG_DFL);
    assert_true(interrupt_requested()); /* the job can still ask */
    /* a second job starts with the flag cleared */
    long_job_begin(&job);
    assert_false(interrupt_requested());
    long_job_end(&job);
}

static void test_side_path(void **state) {
    (void)state;
    char buf[16];
    assert_true(long_job_side_path("out.db", ".journal", buf, sizeof buf));
    assert_string_equal(buf, "out.db.journal");
    /* 15 bytes and the NUL fit; one more is refused, not cut into another name */
    assert_true(long_job_side_path("out1.db", ".journal", buf, sizeof buf));
    assert_string_equal(buf, "out1.db.journal");
    assert_false(long_job_side_path("out12.db", ".journal", buf, sizeof buf));
    assert_string_equal(buf, "");
}

static void test_interrupted_message(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
    int rc = long_job_interrupted("hayanagi book think", "%d positions; %s keeps them", 6, "t.db.journal");
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    assert_int_equal(rc, 130);
    assert_int_equal(rc, INTERRUPT_EXIT_STATUS);
    char buf[256];
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_string_equal(buf, "hayanagi book think: interrupted after 6 positions; t.db.journal keeps them, run the "
                             "same command again to resume\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scope),
        cmocka_unit_test(test_side_path),
        cmocka_unit_test(test_interrupted_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
