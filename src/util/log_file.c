/* log_file.c - see log_file.h. */
#include "util/log_file.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

FILE *log_file_open(const char *path, char *err, size_t err_len) {
    if (strcmp(path, "-") == 0) {
        /* "w", not "a": fdopen's "a" would set O_APPEND on stderr's shared open file */
        int fd = dup(STDERR_FILENO);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            error_set(err, err_len, "-: the standard error: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
        }
        return f;
    }
    FILE *f = fopen(path, "a"); /* O_APPEND: each line lands at the end, whatever else writes there */
    if (!f)
        error_set(err, err_len, "%s: %s", path, strerror(errno));
    return f;
}

char *log_time_of_day(char *buf, size_t len) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, len, "%H:%M:%S", &tm);
    snprintf(buf + n, len - n, ".%03ld", ts.tv_nsec / 1000000);
    return buf;
}
