/* test_interrupt.c - util/interrupt.h: SIGINT and SIGTERM set the same flag, the old
 * handlers come back, a second signal takes the default action, and the remove-and-die
 * mode unlinks its temporary file and ends the process by the signal, and a signal after
 * a scope in which an output was written names it. */
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

#include "util/interrupt.h"

static volatile sig_atomic_t old_handler_calls;
static void old_handler(int sig) {
    (void)sig;
    old_handler_calls++;
}

static void test_both_signals_set_the_flag(void **state) {
    (void)state;
    int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        signal(sigs[i], old_handler);
        old_handler_calls = 0;
        InterruptScope scope;
        interrupt_begin(&scope, NULL);
        assert_false(interrupt_requested());
        assert_int_equal(*interrupt_flag(), 0);
        raise(sigs[i]);
        assert_true(interrupt_requested());
        assert_int_equal(old_handler_calls, 0);
        interrupt_end(&scope);
        /* The flag survives the scope; the old handler is back. */
        assert_true(interrupt_requested());
        raise(sigs[i]);
        assert_int_equal(old_handler_calls, 1);
        signal(sigs[i], SIG_DFL);
    }
}

/* Runs body in a child and returns its wait status. */
static int in_child(void (*body)(const char *), const char *arg) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        body(arg);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void second_signal(const char *arg) {
    (void)arg;
    InterruptScope scope;
    interrupt_begin(&scope, NULL);
    raise(SIGINT); /* the flag */
    if (!interrupt_requested())
        _exit(3);
    raise(SIGINT); /* the default action: the process ends */
    _exit(4);
}

static void remove_and_die(const char *path) {
    InterruptScope scope;
    interrupt_begin(&scope, path);
    raise(SIGTERM);
    _exit(5);
}

static void test_second_signal_ends_the_process(void **state) {
    (void)state;
    int status = in_child(second_signal, NULL);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
}

/* Creates an empty file from the template path (its XXXXXX replaced) and runs body in a
 * child with its name; asserts that the child died of sig. */
static void in_child_with_file(char *path, void (*body)(const char *), int sig) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    int status = in_child(body, path);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);
}

static void test_remove_on_signal(void **state) {
    (void)state;
    char path[] = "/tmp/hayanagi_interrupt_XXXXXX";
    in_child_with_file(path, remove_and_die, SIGTERM);
    assert_int_not_equal(access(path, F_OK), 0); /* gone */
    unlink(path);
}

/* An output noted written inside a scope begun over the default handler, then SIGINT
 * after the scope: the process dies of it, saying the output was written. */
static void written_then_signal(const char *err_path) {
    signal(SIGINT, SIG_DFL);
    if (!freopen(err_path, "w", stderr))
        _exit(6);
    InterruptScope scope;
    interrupt_begin(&scope, NULL);
    interrupt_note_written("/some/dir/out.db");
    interrupt_end(&scope);
    raise(SIGINT);
    _exit(7);
}

static void test_signal_after_the_scope_names_the_output(void **state) {
    (void)state;
    char path[] = "/tmp/hayanagi_interrupt_err_XXXXXX";
    in_child_with_file(path, written_then_signal, SIGINT);
    char text[512] = {0};
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[n] = '\0';
    assert_non_null(strstr(text, "/some/dir/out.db was written before the signal and is complete"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_signals_set_the_flag),
        cmocka_unit_test(test_second_signal_ends_the_process),
        cmocka_unit_test(test_remove_on_signal),
        cmocka_unit_test(test_signal_after_the_scope_names_the_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
