/* path.c - see path.h. */
#include "util/path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool put(char *out, size_t out_len, const char *a, const char *b, const char *c) {
    int n = snprintf(out, out_len, "%s%s%s", a, b, c);
    return n >= 0 && (size_t)n < out_len;
}

bool path_resolve(const char *dir, const char *file, char *out, size_t out_len) {
    if (file[0] == '/')
        return put(out, out_len, file, "", "");
    if (!dir[0])
        return put(out, out_len, "./", file, "");
    if (dir[0] == '/')
        return put(out, out_len, dir, "/", file);
    bool ok = put(out, out_len, dir, "/", file); /* relative to the working directory */
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = NULL;
    if (n > 0) {
        exe[n] = '\0';
        slash = strrchr(exe, '/');
    }
    if (slash) {
        slash[1] = '\0';
        char beside[8192];
        int k = snprintf(beside, sizeof beside, "%s%s/%s", exe, dir, file);
        bool fits = k >= 0 && (size_t)k < sizeof beside;
        if (fits && (access(beside, F_OK) == 0 || !ok || access(out, F_OK) != 0))
            ok = put(out, out_len, beside, "", "");
    }
    return ok;
}

bool path_make_dirs(const char *dir) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return false;
    }
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return false;
        *s = '/';
    }
    return mkdir(path, 0777) == 0;
}
