/* secret_file.c - see secret_file.h. */
#include "util/secret_file.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads from fd up to the first newline (or the end) into out; returns the line's length
 * (the newline not counted), -1 on a read error (errno set), -2 when it does not fit. */
static long read_line(int fd, char *out, size_t out_len) {
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1); /* byte by byte: a pipe's later lines stay unread */
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0 || c == '\n')
            break;
        if (n + 1 >= out_len)
            return -2;
        out[n++] = c;
    }
    out[n] = '\0';
    return (long)n;
}

bool secret_read_file(const char *path, char *out, size_t out_len, char *err, size_t err_len) {
    if (out_len)
        out[0] = '\0';
    if (out_len < 2)
        return error_set(err, err_len, "%s: no room for a secret", path);
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return error_set(err, err_len, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return error_set(err, err_len, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
        close(fd);
        return error_set(err, err_len, "%s: is %s, not a file holding the password", path,
                         S_ISDIR(st.st_mode) ? "a directory" : "a socket");
    }
    if (S_ISREG(st.st_mode) && (st.st_mode & 077)) {
        close(fd);
        return error_set(err, err_len,
                         "%s: permissions %04o are too open: group or others may read or change the password "
                         "(chmod 600 %s)",
                         path, (unsigned)(st.st_mode & 07777), path);
    }
    long n = read_line(fd, out, out_len);
    int e = errno;
    close(fd);
    const char *why = n == -1 ? strerror(e) : n == -2 ? "the first line is too long for a password" : NULL;
    if (!why) {
        if (n > 0 && out[n - 1] == '\r')
            out[--n] = '\0';
        if (n == 0)
            why = "the first line is empty: no password";
        else if (strlen(out) != (size_t)n)
            why = "the first line holds a NUL byte";
    }
    if (why) {
        memset(out, 0, out_len);
        return error_set(err, err_len, "%s: %s", path, why);
    }
    return true;
}
