/* file_text.c - see file_text.h. */
#include "util/file_text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

char *file_read_text(const char *path, size_t max, size_t *len, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        error_set(err, err_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    bool oom = !buf, too_large = false;
    int read_errno = 0; /* why fread failed (a directory: EISDIR) */
    while (!oom && !too_large) {
        if (n + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                oom = true;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        too_large = max && n > max;
        if (got == 0) {
            read_errno = ferror(f) ? errno : 0;
            break;
        }
    }
    bool read_error = ferror(f);
    fclose(f);
    if (oom || too_large || read_error) {
        if (too_large)
            error_set(err, err_len, "%s: larger than %zu bytes", path, max);
        else
            error_set(err, err_len, "%s: %s", path,
                      oom          ? "out of memory"
                      : read_errno ? strerror(read_errno)
                                   : "read error");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
