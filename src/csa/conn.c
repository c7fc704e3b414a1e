/* conn.c - the TCP connection to a CSA server (conn.h). */
#define _DEFAULT_SOURCE /* getaddrinfo, MSG_NOSIGNAL */
#include "csa/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/error.h"
#include "util/log_file.h"

void csa_conn_init(CsaConn *c, FILE *log) {
    c->fd = -1;
    c->eof = true;
    c->len = 0;
    c->last_send_us = 0;
    c->log = log;
}

static void log_line(CsaConn *c, char dir, const char *line) {
    if (!c->log)
        return;
    char when[LOG_TIME_OF_DAY_MAX];
    log_time_of_day(when, sizeof when);
    if (dir == '>' && !strncmp(line, "LOGIN ", 6)) {
        /* LOGIN id password: the password (and a game name before it) stays out of logs */
        const char *sp = strchr(line + 6, ' ');
        fprintf(c->log, "%s > %.*s *\n", when, sp ? (int)(sp - line) : (int)strlen(line), line);
    } else {
        fprintf(c->log, "%s %c %s\n", when, dir, line);
    }
    fflush(c->log);
}

/* Waits until fd is writable (the non-blocking connect finished) or the deadline. */
static bool connect_wait(int fd, int64_t deadline_us, char *err, size_t err_len) {
    for (;;) {
        int64_t left = deadline_us - clock_now_us();
        if (left <= 0) {
            error_set(err, err_len, "connection timed out");
            return false;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int r = poll(&p, 1, (int)((left + 999) / 1000));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        int so = 0;
        socklen_t sl = sizeof so;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) < 0 || so) {
            error_set(err, err_len, "%s", strerror(so ? so : errno));
            return false;
        }
        return true;
    }
}

bool csa_conn_open(CsaConn *c, const char *host, int port, int64_t timeout_ms, char *err, size_t err_len) {
    csa_conn_close(c);
    char ports[16];
    snprintf(ports, sizeof ports, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
    struct addrinfo *res = NULL;
    int gr = getaddrinfo(host, ports, &hints, &res);
    if (gr) {
        error_set(err, err_len, "%s: %s", host, gai_strerror(gr));
        return false;
    }
    int64_t deadline = clock_now_us() + timeout_ms * 1000;
    bool ok = false;
    char why[128] = "no address";
    for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            error_set(why, sizeof why, "%s", strerror(errno));
            continue;
        }
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        int r = connect(fd, a->ai_addr, a->ai_addrlen);
        if (r == 0 || (errno == EINPROGRESS && connect_wait(fd, deadline, why, sizeof why))) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
            c->fd = fd;
            ok = true;
        } else {
            if (r < 0 && errno != EINPROGRESS)
                error_set(why, sizeof why, "%s", strerror(errno));
            close(fd);
        }
    }
    freeaddrinfo(res);
    if (!ok) {
        error_set(err, err_len, "%s:%d: %s", host, port, why);
        return false;
    }
    c->eof = false;
    c->len = 0;
    c->last_send_us = clock_now_us();
    return true;
}

bool csa_conn_send(CsaConn *c, const char *line) {
    if (c->fd < 0)
        return false;
    log_line(c, '>', line);
    size_t n = strlen(line);
    char buf[CSA_LINE_MAX * 2];
    if (n + 1 > sizeof buf)
        return false;
    memcpy(buf, line, n);
    buf[n++] = '\n';
    size_t off = 0;
    int64_t deadline = clock_now_us() + 10 * 1000000LL; /* a server that stops reading */
    while (off < n) {
        ssize_t w = send(c->fd, buf + off, n - off, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && clock_now_us() < deadline) {
            struct pollfd p = {.fd = c->fd, .events = POLLOUT};
            poll(&p, 1, 100);
            continue;
        }
        c->eof = true;
        return false;
    }
    c->last_send_us = clock_now_us();
    return true;
}

bool csa_conn_has_line(const CsaConn *c) { return memchr(c->buf, '\n', c->len) != NULL; }

static bool take_line(CsaConn *c, char *line, CsaRead *st) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (!nl) {
        if (c->len > CSA_LINE_MAX + 1) {
            *st = CSA_READ_TOO_LONG;
            return true;
        }
        return false;
    }
    size_t n = (size_t)(nl - c->buf);
    size_t keep = n;
    if (keep && c->buf[keep - 1] == '\r')
        keep--;
    if (keep > CSA_LINE_MAX) {
        *st = CSA_READ_TOO_LONG;
        return true;
    }
    memcpy(line, c->buf, keep);
    line[keep] = 0;
    /* a NUL inside a line would cut it silently: show it instead */
    for (size_t i = 0; i < keep; i++)
        if (line[i] == 0)
            line[i] = '?';
    memmove(c->buf, nl + 1, c->len - n - 1);
    c->len -= n + 1;
    log_line(c, '<', line);
    *st = CSA_READ_OK;
    return true;
}

CsaRead csa_conn_read_line(CsaConn *c, char *line, int64_t deadline_us) {
    for (;;) {
        CsaRead st;
        if (take_line(c, line, &st))
            return st;
        if (c->eof || c->fd < 0)
            return CSA_READ_EOF;
        int timeout = 0;
        if (deadline_us > 0) {
            int64_t left = deadline_us - clock_now_us();
            timeout = left <= 0 ? 0 : (int)(left > 1000000000 ? 1000000 : (left + 999) / 1000);
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int r = poll(&p, 1, timeout);
        if (r < 0 && errno == EINTR)
            return CSA_READ_TIMEOUT; /* a signal: let the caller look at its flags */
        if (r <= 0)
            return CSA_READ_TIMEOUT;
        ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0) {
            c->eof = true;
            continue; /* hand out whole lines still buffered first */
        }
        c->len += (size_t)n;
    }
}

bool csa_conn_keepalive(CsaConn *c, int64_t interval_ms) {
    if (interval_ms <= 0 || c->fd < 0)
        return c->fd >= 0;
    if (clock_now_us() - c->last_send_us < interval_ms * 1000)
        return true;
    return csa_conn_send(c, "");
}

void csa_conn_close(CsaConn *c) {
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->eof = true;
    c->len = 0;
}
