/* path.c - see path.h. */
#include "util/path.h"
#include "util/error.h"

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

/* One step of path_make_dirs: makes path (dir itself when last, else one of its parents)
 * a directory. */
static bool make_one(const char *path, const char *dir, bool last, bool *created, char *err, size_t err_len) {
    struct stat st;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                return true;
            /* mkdir's EEXIST would hide it: a file where a directory is asked for */
            if (last)
                return error_set(err, err_len, "%s: exists and is not a directory", dir);
            return error_set(err, err_len, "%s: %s exists and is not a directory", dir, path);
        }
        if (mkdir(path, 0777) == 0) {
            *created = true;
            return true;
        }
        if (errno != EEXIST) /* EEXIST: made meanwhile by another process, look again */
            return last ? error_set(err, err_len, "%s: %s", dir, strerror(errno))
                        : error_set(err, err_len, "%s: %s: %s", dir, path, strerror(errno));
    }
    return error_set(err, err_len, "%s: exists and is not a directory", dir); /* a dangling link */
}

bool path_make_dirs(const char *dir, bool *created, char *err, size_t err_len) {
    bool made = false, parent_made = false;
    if (created)
        *created = false;
    char path[PATH_MAX];
    if (!dir[0])
        return error_set(err, err_len, "an empty directory name");
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return error_set(err, err_len, "%s: %s", dir, strerror(ENAMETOOLONG));
    for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
        path[n - 1] = '\0';
    for (char *s = path + 1; *s; s++) {
        if (*s != '/' || s[-1] == '/')
            continue;
        *s = '\0';
        bool ok = make_one(path, dir, false, &parent_made, err, err_len);
        *s = '/';
        if (!ok)
            return false;
    }
    if (!make_one(path, dir, true, &made, err, err_len))
        return false;
    if (created)
        *created = made;
    return true;
}
