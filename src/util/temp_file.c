/* temp_file.c - see temp_file.h. */
#include "util/temp_file.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/interrupt.h"

bool temp_file_create(TempFile *t, const char *dir, const char *near, char *err, size_t err_len) {
    t->path = NULL;
    t->f = NULL;
    char neardir[4096];
    if (!dir) {
        const char *slash = near ? strrchr(near, '/') : NULL;
        if (!slash)
            snprintf(neardir, sizeof neardir, ".");
        else if (slash == near)
            snprintf(neardir, sizeof neardir, "/");
        else
            snprintf(neardir, sizeof neardir, "%.*s", (int)(slash - near), near);
        dir = neardir;
    }
    size_t len = strlen(dir) + 32;
    char *path = malloc(len);
    if (!path)
        return error_set(err, err_len, "out of memory");
    snprintf(path, len, "%s/.hayanagi-sort-XXXXXX", dir);
    sigset_t old;
    interrupt_block(&old);
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    interrupt_unblock(&old);
    if (fd < 0) {
        error_set(err, err_len, "cannot create a temporary file in %s: %s", dir, strerror(errno));
        free(path);
        return false;
    }
    t->path = path;
    t->f = fdopen(fd, "w+");
    if (!t->f) {
        error_set(err, err_len, "%s: %s", path, strerror(errno));
        close(fd);
        temp_file_remove(t);
        return false;
    }
    return true;
}

void temp_file_remove(TempFile *t) {
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    free(t->path);
    t->path = NULL;
}
