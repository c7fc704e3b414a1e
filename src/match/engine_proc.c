/* engine_proc.c - a USI engine as a child process. */
#define _GNU_SOURCE /* pipe2 and O_CLOEXEC: no other thread's child may inherit our pipes */
#include "match/engine_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/log_file.h"

extern char **environ;

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Back to "no child": keeps the log, tag and abort flag the owner attached. */
static void reset_io(EngineProc *e) {
    e->pid = -1;
    e->to_engine = -1;
    e->from_engine = -1;
    e->from_stderr = -1;
    e->elen = 0;
    e->last_stderr[0] = '\0';
    e->eof = false;
    e->discarding = false;
    e->rlen = 0;
    e->name[0] = '\0';
    e->options = NULL;
    e->n_options = 0;
}

void engine_init(EngineProc *e) {
    memset(e, 0, sizeof *e);
    reset_io(e);
}

static void log_line(const EngineProc *e, char dir, const char *line) {
    if (!e->log || !e->log->file)
        return;
    char when[32];
    if (e->log->utc_time_of_day) {
        log_time_of_day(when, sizeof when);
    } else {
        int64_t us = engine_now_us() - e->log->start_us;
        snprintf(when, sizeof when, "%lld.%03lld", (long long)(us / 1000000), (long long)(us / 1000 % 1000));
    }
    pthread_mutex_lock(e->log->lock);
    fprintf(e->log->file, "%s %s %c %s\n", when, e->tag, dir, line);
    fflush(e->log->file);
    pthread_mutex_unlock(e->log->lock);
}

bool engine_cmd_needs_shell(const char *cmd) { return strpbrk(cmd, "'\"$`\\|&;<>(){}[]*?~#=") != NULL; }

/* Splits cmd on blanks into a NULL-terminated argv. One allocation holds the pointers
 * and a copy of the text; the caller frees the returned pointer. */
static char **split_argv(const char *cmd, int *argc_out) {
    size_t len = strlen(cmd);
    size_t max_args = len / 2 + 2;
    char **argv = malloc(max_args * sizeof *argv + len + 1);
    if (!argv)
        return NULL;
    char *text = (char *)(argv + max_args);
    memcpy(text, cmd, len + 1);
    int argc = 0;
    for (char *p = text; *p;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    argv[argc] = NULL;
    *argc_out = argc;
    return argv;
}

bool engine_start(EngineProc *e, const char *cmd, bool inherit_stderr, char *err, size_t err_len) {
    return engine_start_ex(e, cmd, inherit_stderr ? ENGINE_STDERR_INHERIT : ENGINE_STDERR_NULL, err, err_len);
}

/* Reads what the engine wrote to stderr without blocking; keeps its last non-empty line. */
static void read_stderr(EngineProc *e) {
    while (e->from_stderr >= 0) {
        struct pollfd p = {.fd = e->from_stderr, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            return;
        char buf[1024];
        ssize_t n = read(e->from_stderr, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            close(e->from_stderr);
            e->from_stderr = -1;
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            char c = buf[i];
            if (c == '\n') {
                while (e->elen && (e->ebuf[e->elen - 1] == '\r' || e->ebuf[e->elen - 1] == ' '))
                    e->elen--;
                if (e->elen) {
                    memcpy(e->last_stderr, e->ebuf, e->elen);
                    e->last_stderr[e->elen] = '\0';
                }
                e->elen = 0;
            } else if (e->elen < sizeof e->ebuf - 1)
                e->ebuf[e->elen++] = (c >= 32 && c < 127) || (unsigned char)c >= 128 || c == '\t' ? c : '?';
        }
    }
    if (e->elen) { /* a last line without its newline */
        memcpy(e->last_stderr, e->ebuf, e->elen);
        e->last_stderr[e->elen] = '\0';
        e->elen = 0;
    }
}

bool engine_start_ex(EngineProc *e, const char *cmd, EngineStderr mode, char *err, size_t err_len) {
    if (e->pid > 0 || e->to_engine >= 0 || e->from_engine >= 0)
        engine_close(e, 0);
    int in_pipe[2], out_pipe[2], err_pipe[2] = {-1, -1};
    if (mode == ENGINE_STDERR_CAPTURE && pipe2(err_pipe, O_CLOEXEC) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        return false;
    }
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        if (err_pipe[0] >= 0) {
            close(err_pipe[0]);
            close(err_pipe[1]);
        }
        return false;
    }
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
        snprintf(err, err_len, "pipe: %s", strerror(errno));
        close(in_pipe[0]);
        close(in_pipe[1]);
        if (err_pipe[0] >= 0) {
            close(err_pipe[0]);
            close(err_pipe[1]);
        }
        return false;
    }
    bool shell = engine_cmd_needs_shell(cmd);
    int argc = 0;
    char **argv = NULL;
    char *sh_argv[4] = {"/bin/sh", "-c", (char *)cmd, NULL};
    if (!shell) {
        argv = split_argv(cmd, &argc);
        if (!argv || argc == 0) {
            snprintf(err, err_len, argv ? "empty engine command" : "out of memory");
            free(argv);
            close(in_pipe[0]);
            close(in_pipe[1]);
            close(out_pipe[0]);
            close(out_pipe[1]);
            if (err_pipe[0] >= 0) {
                close(err_pipe[0]);
                close(err_pipe[1]);
            }
            return false;
        }
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    if (mode == ENGINE_STDERR_NULL)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    else if (mode == ENGINE_STDERR_CAPTURE)
        posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    /* Own process group (so a hung engine and its children can be killed together, and
     * a Ctrl-C at the terminal reaches only us); default dispositions for the signals we
     * ignore or catch, since ignored signals would otherwise stay ignored across exec. */
    sigset_t def, mask;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigemptyset(&mask);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = shell ? posix_spawn(&pid, "/bin/sh", &fa, &attr, sh_argv, environ)
                   : posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (err_pipe[1] >= 0)
        close(err_pipe[1]);
    if (rc != 0) {
        snprintf(err, err_len, "cannot start '%s': %s", shell ? "/bin/sh" : argv[0], strerror(rc));
        free(argv);
        close(in_pipe[1]);
        close(out_pipe[0]);
        if (err_pipe[0] >= 0)
            close(err_pipe[0]);
        return false;
    }
    free(argv);
    e->from_stderr = err_pipe[0];
    e->pid = pid;
    e->to_engine = in_pipe[1];
    e->from_engine = out_pipe[0];
    return true;
}

bool engine_send(EngineProc *e, const char *line) {
    if (e->to_engine < 0)
        return false;
    log_line(e, '>', line);
    size_t len = strlen(line);
    /* One write for line and newline keeps the pipe writes whole. */
    char stackbuf[1024];
    char *buf = len + 1 <= sizeof stackbuf ? stackbuf : malloc(len + 1);
    if (!buf)
        return false;
    memcpy(buf, line, len);
    buf[len] = '\n';
    size_t done = 0;
    bool ok = true;
    while (done < len + 1) {
        ssize_t n = write(e->to_engine, buf + done, len + 1 - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ok = false;
            break;
        }
        done += (size_t)n;
    }
    if (buf != stackbuf)
        free(buf);
    if (!ok) {
        close(e->to_engine);
        e->to_engine = -1;
    }
    return ok;
}

/* Moves the first complete line of the buffer into line; returns false when there is
 * none yet. A buffer full of one line is cut there, and the rest of that line dropped. */
static bool take_line(EngineProc *e, char *line, size_t cap) {
    for (;;) {
        char *nl = memchr(e->rbuf, '\n', e->rlen);
        if (!nl) {
            if (e->rlen < sizeof e->rbuf)
                return false;
            bool deliver = !e->discarding;
            if (deliver) {
                size_t n = e->rlen < cap - 1 ? e->rlen : cap - 1;
                memcpy(line, e->rbuf, n);
                line[n] = '\0';
            }
            e->rlen = 0;
            e->discarding = true;
            if (deliver)
                return true;
            continue;
        }
        size_t n = (size_t)(nl - e->rbuf);
        bool deliver = !e->discarding;
        if (deliver) {
            size_t k = n < cap - 1 ? n : cap - 1;
            memcpy(line, e->rbuf, k);
            if (k > 0 && line[k - 1] == '\r')
                k--;
            line[k] = '\0';
        }
        e->rlen -= n + 1;
        memmove(e->rbuf, nl + 1, e->rlen);
        e->discarding = false;
        if (deliver)
            return true;
    }
}

EngineRead engine_read_line(EngineProc *e, char *line, size_t cap, int64_t deadline_us) {
    for (;;) {
        if (take_line(e, line, cap)) {
            log_line(e, '<', line);
            return ENGINE_READ_OK;
        }
        if (e->eof || e->from_engine < 0)
            return ENGINE_READ_EOF;
        if (e->abort_flag && *e->abort_flag)
            return ENGINE_READ_ABORTED;
        int timeout_ms = 0;
        if (deadline_us > 0) {
            int64_t left = deadline_us - engine_now_us();
            if (left > 0) {
                int64_t ms = (left + 999) / 1000;
                /* Wake up now and then to notice the abort flag. */
                timeout_ms = ms > 50 ? 50 : (int)ms;
            }
        }
        struct pollfd p[2] = {{.fd = e->from_engine, .events = POLLIN}, {.fd = e->from_stderr, .events = POLLIN}};
        int r = poll(p, e->from_stderr >= 0 ? 2 : 1, timeout_ms);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            e->eof = true;
            continue;
        }
        if (r > 0 && e->from_stderr >= 0 && p[1].revents) {
            read_stderr(e);
            if (!p[0].revents)
                r = 0;
        }
        if (r == 0) {
            if (deadline_us <= 0 || engine_now_us() >= deadline_us)
                return ENGINE_READ_TIMEOUT;
            continue;
        }
        ssize_t n = read(e->from_engine, e->rbuf + e->rlen, sizeof e->rbuf - e->rlen);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            e->eof = true;
        } else if (n == 0) {
            e->eof = true;
        } else {
            e->rlen += (size_t)n;
        }
    }
}

void engine_drain(EngineProc *e) {
    char line[ENGINE_LINE_MAX];
    while (engine_read_line(e, line, sizeof line, 0) == ENGINE_READ_OK) {
    }
}

/* The word after "name " up to " type " in an option line, into out. */
static bool parse_option_name(const char *line, char *out, size_t cap) {
    const char *p = strstr(line, " name ");
    if (!p)
        return false;
    p += 6;
    while (*p == ' ')
        p++;
    const char *end = strstr(p, " type ");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    while (n > 0 && p[n - 1] == ' ')
        n--;
    if (n == 0)
        return false;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

static bool add_option(EngineProc *e, const char *name) {
    char **grown = realloc(e->options, (size_t)(e->n_options + 1) * sizeof *grown);
    if (!grown)
        return false;
    e->options = grown;
    size_t len = strlen(name);
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, name, len + 1);
    e->options[e->n_options++] = copy;
    return true;
}

static const char *read_failure(EngineRead r) {
    switch (r) {
    case ENGINE_READ_TIMEOUT: return "timed out";
    case ENGINE_READ_EOF: return "engine exited or closed its output";
    case ENGINE_READ_ABORTED: return "interrupted";
    default: return "?";
    }
}

bool engine_usi(EngineProc *e, int64_t timeout_ms, char *err, size_t err_len) {
    if (!engine_send(e, "usi")) {
        snprintf(err, err_len, "cannot write 'usi' to the engine (it exited at once?)");
        return false;
    }
    int64_t deadline = engine_now_us() + timeout_ms * 1000;
    char line[ENGINE_LINE_MAX];
    for (;;) {
        EngineRead r = engine_read_line(e, line, sizeof line, deadline);
        if (r != ENGINE_READ_OK) {
            snprintf(err, err_len, "waiting for usiok: %s", read_failure(r));
            return false;
        }
        if (strcmp(line, "usiok") == 0)
            return true;
        if (strncmp(line, "id name ", 8) == 0) {
            size_t n = strnlen(line + 8, sizeof e->name - 1);
            memcpy(e->name, line + 8, n);
            e->name[n] = '\0';
        } else if (strncmp(line, "option ", 7) == 0) {
            char name[256];
            if (parse_option_name(line, name, sizeof name) && !add_option(e, name)) {
                snprintf(err, err_len, "out of memory");
                return false;
            }
        }
    }
}

const char *engine_option_name(const EngineProc *e, const char *name) {
    for (int i = 0; i < e->n_options; i++)
        if (strcasecmp(e->options[i], name) == 0)
            return e->options[i];
    return NULL;
}

bool engine_setoption(EngineProc *e, const char *name, const char *value) {
    const char *own = engine_option_name(e, name);
    if (!own)
        return false;
    size_t len = strlen(own) + (value ? strlen(value) : 0) + 32;
    char *line = malloc(len);
    if (!line)
        return false;
    if (value)
        snprintf(line, len, "setoption name %s value %s", own, value);
    else
        snprintf(line, len, "setoption name %s", own);
    engine_send(e, line);
    free(line);
    return true;
}

bool engine_isready(EngineProc *e, int64_t timeout_ms, char *err, size_t err_len) {
    if (!engine_send(e, "isready")) {
        snprintf(err, err_len, "cannot write 'isready': engine gone");
        return false;
    }
    int64_t deadline = engine_now_us() + timeout_ms * 1000;
    char line[ENGINE_LINE_MAX];
    for (;;) {
        EngineRead r = engine_read_line(e, line, sizeof line, deadline);
        if (r != ENGINE_READ_OK) {
            snprintf(err, err_len, "waiting for readyok: %s", read_failure(r));
            return false;
        }
        if (strcmp(line, "readyok") == 0)
            return true;
    }
}

/* True once the child has exited; leaves it unreaped so that its pid (and so its
 * process group id) cannot be reused while we still signal the group. */
static bool child_exited(pid_t pid) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == pid;
}

static bool wait_exit(EngineProc *e, int64_t wait_ms) {
    int64_t deadline = engine_now_us() + wait_ms * 1000;
    char line[ENGINE_LINE_MAX];
    for (;;) {
        if (child_exited(e->pid))
            return true;
        if (engine_now_us() >= deadline)
            return false;
        /* Keep reading so an engine blocked on a full stdout pipe can finish. */
        if (e->from_engine >= 0 && !e->eof)
            while (engine_read_line(e, line, sizeof line, 0) == ENGINE_READ_OK) {
            }
        read_stderr(e);
        sleep_ms(5);
    }
}

void engine_close(EngineProc *e, int64_t wait_ms) {
    if (e->pid > 0) {
        const volatile sig_atomic_t *flag = e->abort_flag;
        e->abort_flag = NULL;
        if (e->to_engine >= 0 && !child_exited(e->pid))
            engine_send(e, "quit");
        if (e->to_engine >= 0) {
            close(e->to_engine); /* end of input is a second way of saying quit */
            e->to_engine = -1;
        }
        if (!wait_exit(e, wait_ms)) {
            kill(-e->pid, SIGTERM);
            if (!wait_exit(e, 500))
                kill(-e->pid, SIGKILL);
        }
        /* The leader is a zombie now (or about to be): sweep the rest of its group. */
        kill(-e->pid, SIGKILL);
        int status;
        while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR) {
        }
        e->abort_flag = flag;
    }
    if (e->to_engine >= 0)
        close(e->to_engine);
    if (e->from_engine >= 0)
        close(e->from_engine);
    read_stderr(e);
    if (e->from_stderr >= 0)
        close(e->from_stderr);
    char keep[sizeof e->last_stderr];
    memcpy(keep, e->last_stderr, sizeof keep);
    for (int i = 0; i < e->n_options; i++)
        free(e->options[i]);
    free(e->options);
    reset_io(e);
    memcpy(e->last_stderr, keep, sizeof keep); /* the last words of a dead engine stay readable */
}

char *engine_self_command(void) {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return NULL;
    path[n] = '\0';
    if (!engine_cmd_needs_shell(path) && !strpbrk(path, " \t\n"))
        return strdup(path);
    char *cmd = malloc((size_t)n * 4 + 3);
    if (!cmd)
        return NULL;
    char *o = cmd;
    *o++ = '\'';
    for (const char *c = path; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else
            *o++ = *c;
    }
    *o++ = '\'';
    *o = '\0';
    return cmd;
}
