/* conn.h - the TCP connection to a CSA server: connect with a time limit, whole lines out
 * (LF-terminated), bounded lines in with deadlines, and the keep-alive.
 *
 * Lines in are at most CSA_LINE_MAX bytes (a longer one is an error, the server is not
 * trusted); a CR before the LF is dropped. Writes never raise SIGPIPE (MSG_NOSIGNAL).
 * The optional log gets every line both ways with a time stamp ("> " sent, "< " read);
 * the password of a LOGIN is written as "*".
 *
 * Ownership: a CsaConn owns its socket (csa_conn_close()); the log FILE is the caller's.
 */
#ifndef HAYANAGI_CSA_CONN_H
#define HAYANAGI_CSA_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csa/message.h"

typedef struct {
    int fd; /* -1 when closed */
    bool eof;
    size_t len;
    char buf[CSA_LINE_MAX * 4];
    int64_t last_send_us; /* clock_now_us() of the last line written */
    FILE *log;            /* may be NULL */
} CsaConn;

typedef enum {
    CSA_READ_OK,
    CSA_READ_TIMEOUT, /* no whole line by the deadline */
    CSA_READ_EOF,     /* the server closed the connection (or it broke) */
    CSA_READ_TOO_LONG /* a line longer than CSA_LINE_MAX: the connection is unusable */
} CsaRead;

/* Sets c to the closed state. */
void csa_conn_init(CsaConn *c, FILE *log);

/* Connects to host:port (a name or an address, IPv4 or IPv6) within timeout_ms. Returns
 * false with the reason in err. */
bool csa_conn_open(CsaConn *c, const char *host, int port, int64_t timeout_ms, char *err, size_t err_len);

/* Writes line and "\n". Returns false when the connection is gone. */
bool csa_conn_send(CsaConn *c, const char *line);

/* Reads one line (no newline) into line (at least CSA_LINE_MAX + 1 bytes), waiting until
 * deadline_us on clock_now_us()'s clock; deadline_us 0 takes only what has arrived. */
CsaRead csa_conn_read_line(CsaConn *c, char *line, int64_t deadline_us);

/* True when a whole line is already buffered (poll() on the socket would not show it). */
bool csa_conn_has_line(const CsaConn *c);

/* Sends an empty line when nothing was sent for interval_ms (0: never). Returns false
 * when the connection is gone. */
bool csa_conn_keepalive(CsaConn *c, int64_t interval_ms);

/* Closes the socket (safe on a closed connection). */
void csa_conn_close(CsaConn *c);

#endif
