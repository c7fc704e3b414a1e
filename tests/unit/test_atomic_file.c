/* test_atomic_file.c - util/atomic_file.h: what sits at the output path decides how it is
 * written. A regular file is replaced keeping its mode; a symlink stays a symlink and its
 * target is replaced; a FIFO, a character device and "-" are streamed into; directories
 * and sockets are refused; the temporary file has no name while it is written, so SIGKILL
 * leaves nothing. Each case is checked on the filesystem with lstat/readlink, not through
 * the module. */
#define _GNU_SOURCE /* O_TMPFILE, to ask whether the test's filesystem has unnamed files */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/atomic_file.h"

typedef struct {
    char dir[256];
} Tmp;

static int setup(void **state) {
    Tmp *t = calloc(1, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/hayanagi_atomic_XXXXXX");
    if (!mkdtemp(t->dir))
        return -1;
    *state = t;
    return 0;
}

static int teardown(void **state) {
    Tmp *t = *state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    if (system(cmd) != 0)
        return -1;
    free(t);
    return 0;
}

static void path_in(const Tmp *t, const char *name, char *out, size_t n) { snprintf(out, n, "%s/%s", t->dir, name); }

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The whole file as a string (caller frees). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool write_text(const char *path, const char *text, char *err, size_t err_len) {
    AtomicFile af;
    if (!atomic_file_open(&af, path, err, err_len))
        return false;
    fputs(text, af.f);
    return atomic_file_commit(&af, err, err_len);
}

/* Number of entries in dir besides . and .. (a temporary file left behind shows here). */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_regular_file_keeps_its_mode(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "real.db", p, sizeof p);
    put(p, "old\n");
    assert_int_equal(chmod(p, 0600), 0);
    assert_true(write_text(p, "new\n", err, sizeof err));
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    char *s = slurp(p);
    assert_string_equal(s, "new\n");
    free(s);
    assert_int_equal(entries(t->dir), 1);
}

/* As root, the replaced file's owner and group stay (a book in another user's home keeps
 * belonging to them). Skipped, not passed, when the test cannot chown. */
static void test_owner_is_kept_as_root(void **state) {
    Tmp *t = *state;
    if (geteuid() != 0)
        skip();
    char p[512], err[512];
    path_in(t, "theirs.db", p, sizeof p);
    put(p, "old\n");
    assert_int_equal(chown(p, 65534, 65534), 0);
    assert_true(write_text(p, "new\n", err, sizeof err));
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_int_equal(st.st_uid, 65534);
    assert_int_equal(st.st_gid, 65534);
}

static void test_symlink_stays_and_target_is_replaced(void **state) {
    Tmp *t = *state;
    char sub[512], real[512], link[512], err[512];
    path_in(t, "sub", sub, sizeof sub);
    assert_int_equal(mkdir(sub, 0755), 0);
    path_in(t, "sub/real.db", real, sizeof real);
    path_in(t, "link.db", link, sizeof link);
    put(real, "x\n");
    assert_int_equal(chmod(real, 0600), 0);
    assert_int_equal(symlink("sub/real.db", link), 0); /* relative to the link's directory */
    assert_true(write_text(link, "book\n", err, sizeof err));
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char target[512];
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = '\0';
    assert_string_equal(target, "sub/real.db");
    assert_int_equal(lstat(real, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    char *s = slurp(real);
    assert_string_equal(s, "book\n");
    free(s);
    /* No temporary file left in either directory. */
    assert_int_equal(entries(t->dir), 2);
    assert_int_equal(entries(sub), 1);
}

static void test_dangling_symlink_creates_its_target(void **state) {
    Tmp *t = *state;
    char real[512], link[512], err[512];
    path_in(t, "new.db", real, sizeof real);
    path_in(t, "link.db", link, sizeof link);
    assert_int_equal(symlink("new.db", link), 0);
    assert_true(write_text(link, "made\n", err, sizeof err));
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *s = slurp(real);
    assert_string_equal(s, "made\n");
    free(s);
}

static void test_symlink_loop_is_refused(void **state) {
    Tmp *t = *state;
    char a[512], b[512], err[512] = "";
    path_in(t, "a", a, sizeof a);
    path_in(t, "b", b, sizeof b);
    assert_int_equal(symlink("b", a), 0);
    assert_int_equal(symlink("a", b), 0);
    assert_false(write_text(a, "x\n", err, sizeof err));
    assert_non_null(strstr(err, "symbolic link"));
}

static void test_fifo_is_streamed(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "fifo", p, sizeof p);
    assert_int_equal(mkfifo(p, 0600), 0);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the reader: copies what comes through the FIFO to the pipe */
        close(pipefd[0]);
        int fd = open(p, O_RDONLY);
        char buf[256];
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
            if (write(pipefd[1], buf, (size_t)n) != n)
                _exit(2);
        _exit(fd >= 0 ? 0 : 1);
    }
    close(pipefd[1]);
    assert_true(write_text(p, "through the fifo\n", err, sizeof err));
    char got[256] = "";
    size_t have = 0;
    ssize_t n;
    while ((n = read(pipefd[0], got + have, sizeof got - 1 - have)) > 0)
        have += (size_t)n;
    got[have] = '\0';
    close(pipefd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(got, "through the fifo\n");
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(entries(t->dir), 1);
}

static void test_dev_null_stays_a_device(void **state) {
    (void)state;
    char err[512];
    assert_true(write_text("/dev/null", "nothing\n", err, sizeof err));
    struct stat st;
    assert_int_equal(lstat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

static void test_dash_is_stdout(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "captured", p, sizeof p);
    fflush(stdout);
    int saved = dup(1);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    bool ok = write_text("-", "to stdout\n", err, sizeof err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_true(ok);
    char *s = slurp(p);
    assert_string_equal(s, "to stdout\n");
    free(s);
    assert_int_equal(entries(t->dir), 1); /* no file named "-" anywhere */
    assert_int_equal(access("-", F_OK), -1);
}

static void test_directory_and_socket_are_refused(void **state) {
    Tmp *t = *state;
    char d[512], s[512], err[512] = "";
    path_in(t, "adir", d, sizeof d);
    assert_int_equal(mkdir(d, 0755), 0);
    assert_false(write_text(d, "x\n", err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
    struct stat st;
    assert_int_equal(lstat(d, &st), 0);
    assert_true(S_ISDIR(st.st_mode));

    path_in(t, "sock", s, sizeof s);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    assert_true(strlen(s) < sizeof sa.sun_path);
    memcpy(sa.sun_path, s, strlen(s) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    err[0] = '\0';
    assert_false(write_text(s, "x\n", err, sizeof err));
    assert_non_null(strstr(err, "socket"));
    assert_int_equal(lstat(s, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    close(fd);
    assert_int_equal(entries(t->dir), 2);
}

static void test_abort_leaves_the_target(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "keep.db", p, sizeof p);
    put(p, "old\n");
    AtomicFile af;
    assert_true(atomic_file_open(&af, p, err, sizeof err));
    fputs("half", af.f);
    atomic_file_abort(&af);
    char *s = slurp(p);
    assert_string_equal(s, "old\n");
    free(s);
    assert_int_equal(entries(t->dir), 1);
}

/* Whether dir's filesystem has unnamed files (O_TMPFILE); where it has none the module
 * names its temporary file from the start and the two tests below do not apply. */
static bool has_unnamed_files(const char *dir) {
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
#else
    (void)dir;
    return false;
#endif
}

/* While the output is written the directory holds nothing new: the temporary file has no
 * name until the commit (the header, "O_TMPFILE"). */
static void test_nothing_named_while_writing(void **state) {
    Tmp *t = *state;
    if (!has_unnamed_files(t->dir))
        skip();
    char p[512], err[512];
    path_in(t, "out.db", p, sizeof p);
    put(p, "old\n");
    AtomicFile af;
    assert_true(atomic_file_open(&af, p, err, sizeof err));
    fputs("new\n", af.f);
    assert_int_equal(fflush(af.f), 0);
    assert_int_equal(entries(t->dir), 1);
    assert_true(atomic_file_commit(&af, err, sizeof err));
    assert_int_equal(entries(t->dir), 1);
    char *s = slurp(p);
    assert_string_equal(s, "new\n");
    free(s);
}

/* SIGKILL in the middle of a write (no handler can run) leaves the old output and no
 * temporary file: the child writes, flushes and kills itself before committing. */
static void test_sigkill_while_writing_leaves_nothing(void **state) {
    Tmp *t = *state;
    if (!has_unnamed_files(t->dir))
        skip();
    char p[512];
    path_in(t, "out.db", p, sizeof p);
    put(p, "old\n");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[512];
        AtomicFile af;
        if (!atomic_file_open(&af, p, err, sizeof err))
            _exit(3);
        for (int i = 0; i < 100000; i++)
            fputs("half a book\n", af.f);
        fflush(af.f);
        raise(SIGKILL);
        _exit(4);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    char *s = slurp(p);
    assert_string_equal(s, "old\n");
    free(s);
    assert_int_equal(entries(t->dir), 1);
}

/* A new file is 0644 less the umask, whichever kind of temporary file wrote it. */
static void test_new_file_mode_follows_the_umask(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "fresh.db", p, sizeof p);
    mode_t old = umask(027);
    bool ok = write_text(p, "x\n", err, sizeof err);
    umask(old);
    assert_true(ok);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
}

/* A signal that ends the process once the output has been renamed into place says so on
 * stderr (util/interrupt.h): the child commits, then takes SIGINT. */
static void test_signal_after_commit_says_written(void **state) {
    Tmp *t = *state;
    char p[512], err[512];
    path_in(t, "done.db", p, sizeof p);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], 2);
        if (!write_text(p, "whole\n", err, sizeof err))
            _exit(3);
        raise(SIGINT);
        _exit(4);
    }
    close(pipefd[1]);
    char got[1024] = "";
    size_t have = 0;
    ssize_t n;
    while ((n = read(pipefd[0], got + have, sizeof got - 1 - have)) > 0)
        have += (size_t)n;
    got[have] = '\0';
    close(pipefd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    assert_non_null(strstr(got, p));
    assert_non_null(strstr(got, "was written"));
    char *s = slurp(p);
    assert_string_equal(s, "whole\n");
    free(s);
}

/* atomic_file_streams() answers as atomic_file_open() behaves: streamed for "-", a FIFO, a
 * character device and a link to one; replaced for a regular file, a missing one and a
 * link to a file */
static void test_streams_says_which(void **state) {
    Tmp *t = *state;
    char fifo[512], reg[512], link_fifo[512], link_reg[512], missing[512];
    path_in(t, "f", fifo, sizeof fifo);
    path_in(t, "r", reg, sizeof reg);
    path_in(t, "lf", link_fifo, sizeof link_fifo);
    path_in(t, "lr", link_reg, sizeof link_reg);
    path_in(t, "none", missing, sizeof missing);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(reg, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(symlink("f", link_fifo), 0);
    assert_int_equal(symlink("r", link_reg), 0);
    assert_true(atomic_file_streams("-"));
    assert_true(atomic_file_streams(fifo));
    assert_true(atomic_file_streams(link_fifo));
    assert_true(atomic_file_streams("/dev/null"));
    assert_false(atomic_file_streams(reg));
    assert_false(atomic_file_streams(link_reg));
    assert_false(atomic_file_streams(missing));
    assert_false(atomic_file_streams(t->dir)); /* refused by the open, not streamed */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_regular_file_keeps_its_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owner_is_kept_as_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_stays_and_target_is_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dangling_symlink_creates_its_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_loop_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_is_streamed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dev_null_stays_a_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dash_is_stdout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_and_socket_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_the_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_after_commit_says_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streams_says_which, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_named_while_writing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigkill_while_writing_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_file_mode_follows_the_umask, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
