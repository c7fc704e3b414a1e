/* progress.c - see progress.h. */
#include "util/progress.h"

#include "util/clock.h"

#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void progress_start(Progress *p, FILE *out, const char *label, uint64_t total, bool quiet) {
    memset(p, 0, sizeof *p);
    p->out = out ? out : stderr;
    snprintf(p->label, sizeof p->label, "%s", label);
    p->total = total;
    p->quiet = quiet;
    p->tty = !quiet && isatty(fileno(p->out));
    p->start_ms = p->last_ms = clock_now_ms();
    p->last_permille = -1;
}

void progress_set_rate(Progress *p, const char *unit, uint64_t before) {
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->before = before;
}

void progress_set_status(Progress *p, ProgressStatusFn fn, void *ctx) {
    p->status = fn;
    p->status_ctx = ctx;
}

/* " eta 12s": the rest at the mean rate so far, once there is a rate to go by. */
static void eta_text(const Progress *p, double secs, bool final, char *buf, size_t len) {
    buf[0] = '\0';
    if (final || !p->total || !p->done || p->done >= p->total || secs < 1.0)
        return;
    double rest = secs * (double)(p->total - p->done) / (double)p->done;
    if (rest < 120.0)
        snprintf(buf, len, " eta %.0fs", rest);
    else if (rest < 7200.0)
        snprintf(buf, len, " eta %ldm%02lds", (long)(rest + 0.5) / 60, (long)(rest + 0.5) % 60);
    else
        snprintf(buf, len, " eta %.1fh", rest / 3600.0);
}

/* "[####......] " for done of total, 30 wide. */
static void bar_text(const Progress *p, char *bar) {
    int width = 30, filled = (int)(width * (double)p->done / (double)p->total);
    if (filled > width)
        filled = width;
    bar[0] = '[';
    memset(bar + 1, '#', (size_t)filled);
    memset(bar + 1 + filled, '.', (size_t)(width - filled));
    bar[width + 1] = ']';
    bar[width + 2] = '\0';
}

/* Appends printf text to line (len bytes, always NUL-terminated; cut when full). */
__attribute__((format(printf, 3, 4))) static void append(char *line, size_t len, const char *fmt, ...) {
    size_t used = strlen(line);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + used, len - used, fmt, ap);
    va_end(ap);
}

/* The line with the rate (progress.h): count, before, units per second, time left. */
static void rate_text(const Progress *p, double secs, const char *eta, char *line, size_t len) {
    double rate = secs > 0 ? (double)p->done / secs : 0;
    char before[40] = "", count[48], bar[40] = "";
    if (p->before)
        snprintf(before, sizeof before, " (%llu before)", (unsigned long long)p->before);
    if (p->total)
        snprintf(count, sizeof count, "%llu/%llu", (unsigned long long)p->done, (unsigned long long)p->total);
    else
        snprintf(count, sizeof count, "%llu", (unsigned long long)p->done);
    if (p->tty && p->total) {
        bar_text(p, bar);
        strcat(bar, " ");
    }
    append(line, len, "%s %s%s%s, %.2f %s/s%s", p->label, bar, count, before, rate, p->unit, eta);
}

/* The terminal's width in columns, 0 when it does not say. */
static int terminal_columns(FILE *out) {
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) != 0)
        return 0;
    return ws.ws_col;
}

/* Cuts line to at most columns - 1 characters (UTF-8 sequences kept whole, each counted as
 * one column), so that a redrawn line never wraps: a wrapped line's first part would stay
 * on the screen at every redraw. */
static void fit_width(char *line, int columns) {
    if (columns < 2)
        return;
    int chars = 0;
    for (char *c = line; *c; c++) {
        if (((unsigned char)*c & 0xC0) == 0x80)
            continue; /* a continuation byte: part of the character before */
        if (++chars > columns - 1) {
            *c = '\0';
            return;
        }
    }
}

static void draw(Progress *p, double t, bool final) {
    double secs = (t - p->start_ms) / 1000.0;
    char eta[32], status[512] = "", line[1024] = "";
    eta_text(p, secs, final, eta, sizeof eta);
    if (p->status)
        p->status(p->status_ctx, status, sizeof status);
    if (p->unit[0]) {
        rate_text(p, secs, eta, line, sizeof line);
    } else if (p->tty) {
        if (p->total) {
            char bar[40];
            bar_text(p, bar);
            append(line, sizeof line, "%s %s %5.1f%% %.1fs%s  ", p->label, bar,
                   100.0 * (double)p->done / (double)p->total, secs, eta);
        } else {
            append(line, sizeof line, "%s %llu %.1fs", p->label, (unsigned long long)p->done, secs);
        }
    } else if (p->total) {
        append(line, sizeof line, "%s: %llu/%llu (%.1f%%) %.1fs%s", p->label, (unsigned long long)p->done,
               (unsigned long long)p->total, 100.0 * (double)p->done / (double)p->total, secs, eta);
    } else {
        append(line, sizeof line, "%s: %llu %.1fs", p->label, (unsigned long long)p->done, secs);
    }
    if (status[0])
        append(line, sizeof line, " | %s", status);
    /* a bar redrawn in place fits the terminal's width; the last line is a report, whole */
    if (p->tty && !final)
        fit_width(line, terminal_columns(p->out));
    fprintf(p->out, "%s%s", p->tty ? "\r" : "", line);
    /* a line that may get shorter (the rate, a status) clears what the last one left */
    if (p->tty && (p->unit[0] || p->status))
        fputs("\x1b[K", p->out);
    if (!p->tty || final)
        fputc('\n', p->out);
    p->drawn = p->tty && !final;
    fflush(p->out);
}

void progress_line(Progress *p, const char *fmt, ...) {
    FILE *out = p->out ? p->out : stderr;
    if (p->drawn)
        fputs("\r\x1b[K", out); /* the bar's line, cleared for the message */
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    if (p->drawn)
        draw(p, clock_now_ms(), false);
    fflush(out);
}

void progress_update(Progress *p, uint64_t done) {
    p->done = done;
    if (p->quiet)
        return;
    /* Cheap early exit: only look at the clock when the visible state may change (a rate
     * or a status changes with time alone). */
    if (!p->unit[0] && !p->status) {
        if (p->total) {
            int permille = (int)(1000.0 * (double)done / (double)p->total);
            if (permille == p->last_permille && p->tty)
                return;
            p->last_permille = permille;
        } else if ((done & 1023) != 0) {
            return;
        }
    }
    double t = clock_now_ms();
    if (t - p->last_ms < (p->tty ? 100.0 : 5000.0))
        return;
    p->last_ms = t;
    draw(p, t, false);
}

void progress_finish(Progress *p) {
    /* A job that ended within a second without drawing anything stays silent, unless its
     * status is a report (progress_set_status). */
    if (p->quiet || (!p->status && p->last_ms == p->start_ms && clock_now_ms() - p->start_ms < 1000.0))
        return;
    draw(p, clock_now_ms(), true);
}
