/* test_progress.c - the progress line (util/progress.h): the plain lines of a file or a
 * pipe, the rate line with "before" and a caller's status, the time left, the bar on a
 * terminal (a pseudo-terminal here), quiet, the silence of a short job without a status,
 * and a message printed above the bar (progress_line). Rates and
 * times are read as numbers, never compared with the clock. */
#define _XOPEN_SOURCE 700 /* posix_openpt and friends */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/progress.h"

/* What f holds from its start. */
static void contents(FILE *f, char *buf, size_t len) {
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

static void engines(void *ctx, char *buf, size_t len) { snprintf(buf, len, "%s", (const char *)ctx); }

/* Checks that s starts at a number ("2.31" or "0") and returns the text after it. */
static const char *after_number(const char *s) {
    char *end;
    (void)strtod(s, &end);
    assert_true(end > s);
    return end;
}

static void test_plain_rate_line(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p = {.out = f, .quiet = false}; /* as a caller hands it to a job (progress.h) */
    progress_start(&p, p.out, "thinking", 4, p.quiet);
    assert_false(p.tty);
    progress_set_rate(&p, "pos", 6);
    progress_set_status(&p, engines, "engines #1 2 #2 1 (1 restart)");
    progress_update(&p, 3); /* within 5 s of the start: nothing drawn yet */
    char buf[512];
    contents(f, buf, sizeof buf);
    assert_string_equal(buf, "");
    /* a job with a status always draws its last line, however short */
    progress_finish(&p);
    contents(f, buf, sizeof buf);
    const char *head = "thinking 3/4 (6 before), ";
    assert_memory_equal(buf, head, strlen(head));
    /* the last line has no time left */
    assert_string_equal(after_number(buf + strlen(head)), " pos/s | engines #1 2 #2 1 (1 restart)\n");
    fclose(f);
}

/* A line before the end, a second or more into the job, says the time left. */
static void test_time_left(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "thinking", 4, false);
    progress_set_rate(&p, "pos", 0);
    p.start_ms -= 2000; /* as if the job had run for two seconds */
    p.last_ms -= 6000;  /* and drawn its last line six seconds ago */
    progress_update(&p, 3);
    char buf[256];
    contents(f, buf, sizeof buf);
    const char *head = "thinking 3/4, ";
    assert_memory_equal(buf, head, strlen(head));
    const char *rest = after_number(buf + strlen(head));
    assert_memory_equal(rest, " pos/s eta ", 11);
    rest = after_number(rest + 11);
    assert_string_equal(rest, "s\n");
    /* the default line has the same time left */
    rewind(f);
    assert_int_equal(ftruncate(fileno(f), 0), 0);
    progress_start(&p, f, "reading book", 8, false);
    p.start_ms -= 2000;
    p.last_ms -= 6000;
    progress_update(&p, 2);
    contents(f, buf, sizeof buf);
    head = "reading book: 2/8 (25.0%) ";
    assert_memory_equal(buf, head, strlen(head));
    rest = after_number(buf + strlen(head));
    assert_memory_equal(rest, "s eta ", 6);
    assert_string_equal(after_number(rest + 6), "s\n");
    fclose(f);
}

static void test_rate_without_total_or_status(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "games", 0, false);
    progress_set_rate(&p, "game", 0);
    progress_set_status(&p, engines, ""); /* an empty status adds no separator */
    progress_update(&p, 5);
    progress_finish(&p);
    char buf[256];
    contents(f, buf, sizeof buf);
    const char *head = "games 5, "; /* no total: no ETA; nothing before: no "(0 before)" */
    assert_memory_equal(buf, head, strlen(head));
    assert_string_equal(after_number(buf + strlen(head)), " game/s\n");
    fclose(f);
}

static void test_short_job_without_status_is_silent(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "reading book", 10, false);
    for (uint64_t i = 0; i <= 10; i++)
        progress_update(&p, i);
    progress_finish(&p);
    char buf[64];
    contents(f, buf, sizeof buf);
    assert_string_equal(buf, "");
    /* quiet draws nothing, status or not */
    progress_start(&p, f, "thinking", 3, true);
    progress_set_rate(&p, "pos", 1);
    progress_set_status(&p, engines, "engines #1 3");
    progress_update(&p, 3);
    progress_finish(&p);
    contents(f, buf, sizeof buf);
    assert_string_equal(buf, "");
    fclose(f);
}

/* A pseudo-terminal: its master side in *master, its other side as a FILE to write to, of
 * the given width (0: the width left unset, as a terminal that does not say). Skips the
 * test where the sandbox has no pseudo-terminals. */
static FILE *open_terminal(int *master, unsigned short columns) {
    *master = posix_openpt(O_RDWR | O_NOCTTY);
    if (*master < 0 || grantpt(*master) || unlockpt(*master)) {
        if (*master >= 0)
            close(*master);
        skip(); /* no pseudo-terminals in this sandbox */
    }
    int slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
    assert_true(slave >= 0);
    if (columns) {
        struct winsize ws = {.ws_row = 24, .ws_col = columns};
        assert_int_equal(ioctl(slave, TIOCSWINSZ, &ws), 0);
    }
    FILE *f = fdopen(slave, "w");
    assert_non_null(f);
    return f;
}

/* What the terminal shows after f is closed, NUL-terminated in buf; closes master. One
 * read() may return part of it (the line discipline hands the output over in pieces, later
 * on a loaded machine), so this reads until the closed slave's end: EIO on Linux. */
static void read_terminal(int master, char *buf, size_t len) {
    size_t got = 0;
    while (got < len - 1) {
        ssize_t n = read(master, buf + got, len - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(master);
    assert_true(got > 0);
    buf[got] = '\0';
}

/* A terminal: the bar, \r before and the erase-to-end after each redraw, one \n at the end. */
static void test_terminal_bar(void **state) {
    (void)state;
    int master;
    FILE *f = open_terminal(&master, 0);
    Progress p;
    progress_start(&p, f, "thinking", 4, false);
    assert_true(p.tty);
    progress_set_rate(&p, "pos", 0);
    progress_set_status(&p, engines, "engines #1 4");
    progress_update(&p, 2);
    progress_finish(&p);
    fclose(f);
    char buf[512];
    read_terminal(master, buf, sizeof buf);
    /* the terminal turns \n into \r\n */
    const char *head = "\rthinking [###############...............] 2/4, ";
    assert_memory_equal(buf, head, strlen(head));
    const char *tail = " | engines #1 4\x1b[K\r\n";
    assert_true(strlen(buf) > strlen(tail));
    assert_string_equal(buf + strlen(buf) - strlen(tail), tail);
    assert_non_null(strstr(buf, " pos/s | engines #1 4"));
}

/* On a terminal 40 columns wide a long line redrawn in place is cut to 39 characters
 * (a multi-byte character kept whole), the last line is drawn whole. */
static void test_terminal_width(void **state) {
    (void)state;
    int master;
    FILE *f = open_terminal(&master, 40);
    Progress p;
    progress_start(&p, f, "grow \xc3\xa9", 4, false); /* "grow é": 6 characters, 7 bytes */
    progress_set_rate(&p, "games", 0);
    progress_set_status(&p, engines, "vs a-very-long-opponent-name +1 =0 -1 and more text");
    p.last_ms -= 1000;
    progress_update(&p, 2);
    progress_finish(&p);
    fclose(f);
    char buf[1024];
    read_terminal(master, buf, sizeof buf);
    /* the redrawn line: "\r" + 39 characters (40 bytes) + "\x1b[K" */
    assert_memory_equal(buf, "\rgrow \xc3\xa9 [", 10);
    char *clear = strstr(buf, "\x1b[K");
    assert_non_null(clear);
    assert_int_equal(clear - (buf + 1), 40);
    /* the last line: whole, the status included */
    assert_non_null(strstr(clear, "| vs a-very-long-opponent-name +1 =0 -1 and more text\x1b[K\r\n"));
}

/* The last line without a rate: count, share and time, no time left. */
static void test_plain_line_unchanged(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "reading book", 8, false);
    p.start_ms -= 2000; /* as if the job had run for two seconds */
    progress_update(&p, 2);
    progress_finish(&p);
    char buf[256];
    contents(f, buf, sizeof buf);
    const char *head = "reading book: 2/8 (25.0%) ";
    assert_memory_equal(buf, head, strlen(head));
    assert_string_equal(after_number(buf + strlen(head)), "s\n");
    fclose(f);
}

/* progress_line() on a terminal (a file that the Progress takes for one): the bar's line
 * is cleared, the message printed on a line of its own, the bar drawn again below it; no
 * line of the screen (the text cut at \r and \n) holds both. */
static void test_line_above_the_bar(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "grow", 4, false);
    p.tty = true;      /* as if f were a terminal */
    p.last_ms -= 1000; /* the next update draws */
    progress_update(&p, 1);
    progress_line(&p, "game %d/%d: %s", 1, 4, "a draw");
    progress_finish(&p);
    char buf[1024];
    contents(f, buf, sizeof buf);
    assert_memory_equal(buf, "\rgrow [#######", 14);
    assert_non_null(strstr(buf, "\r\x1b[Kgame 1/4: a draw\n\rgrow [#######"));
    assert_int_equal(buf[strlen(buf) - 1], '\n');
    int games = 0;
    for (char *line = strtok(buf, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        bool game = strstr(line, "game 1/4") != NULL;
        games += game;
        assert_false(game && strstr(line, "grow ["));
    }
    assert_int_equal(games, 1);
    fclose(f);
}

/* Without a bar on the screen (a file or a pipe, nothing drawn yet, quiet, after the
 * end) the message is just a line. */
static void test_line_without_a_bar(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    Progress p;
    progress_start(&p, f, "grow", 4, false);
    progress_line(&p, "first");
    p.start_ms -= 2000;
    p.last_ms -= 6000;
    progress_update(&p, 2); /* a plain line, ended */
    progress_line(&p, "second");
    char buf[512];
    contents(f, buf, sizeof buf);
    assert_memory_equal(buf, "first\ngrow: 2/4 (50.0%) ", 24);
    assert_non_null(strstr(buf, "\nsecond\n"));
    assert_null(strchr(buf, '\r'));
    fclose(f);

    f = tmpfile();
    progress_start(&p, f, "grow", 4, true);
    p.tty = true; /* quiet draws nothing, even on a terminal */
    p.last_ms -= 1000;
    progress_update(&p, 1);
    progress_line(&p, "said anyway");
    progress_finish(&p);
    contents(f, buf, sizeof buf);
    assert_string_equal(buf, "said anyway\n");
    fclose(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_rate_line),
        cmocka_unit_test(test_time_left),
        cmocka_unit_test(test_rate_without_total_or_status),
        cmocka_unit_test(test_short_job_without_status_is_silent),
        cmocka_unit_test(test_terminal_bar),
        cmocka_unit_test(test_terminal_width),
        cmocka_unit_test(test_plain_line_unchanged),
        cmocka_unit_test(test_line_above_the_bar),
        cmocka_unit_test(test_line_without_a_bar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
