/* atomic_file.c - see atomic_file.h. */
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void release(AtomicFile *af) {
    if (af->listed)
        interrupt_untrack_file(af->tmp_path);
    af->listed = false;
    free(af->path);
    free(af->tmp_path);
    af->path = af->tmp_path = NULL;
    af->f = NULL;
}

bool atomic_file_open(AtomicFile *af, const char *path, char *err, size_t err_len) {
    memset(af, 0, sizeof *af);
    size_t n = strlen(path) + 64;
    af->path = dup_string(path);
    af->tmp_path = malloc(n);
    if (!af->path || !af->tmp_path) {
        release(af);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    /* O_EXCL with a counter: never clobber another writer's temporary file. */
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(af->tmp_path, n, "%s.tmp.%ld.%u", path, (long)getpid(), attempt);
        /* The signals wait while the file is created and listed: none can leave it unlisted. */
        sigset_t old;
        interrupt_block(&old);
        int fd = open(af->tmp_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            af->listed = interrupt_track_file(af->tmp_path);
        interrupt_unblock(&old);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            int e = errno;
            release(af);
            return error_set(err, err_len, "%s: cannot create a temporary file: %s", path, strerror(e));
        }
        af->f = fdopen(fd, "w");
        if (!af->f) {
            close(fd);
            unlink(af->tmp_path);
            release(af);
            return error_set(err, err_len, "%s: out of memory", path);
        }
        /* Large buffer: book writers emit many short lines. */
        setvbuf(af->f, NULL, _IOFBF, 1 << 20);
        return true;
    }
    release(af);
    return error_set(err, err_len, "%s: cannot find a free temporary name", path);
}

static void sync_directory(const char *path) {
    char *dir = dup_string(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd); /* best effort: some filesystems refuse fsync on directories */
        close(fd);
    }
    free(dir);
}

bool atomic_file_commit(AtomicFile *af, char *err, size_t err_len) {
    bool ok = true;
    char reason[256] = "";
    if (fflush(af->f) != 0 || ferror(af->f)) {
        snprintf(reason, sizeof reason, "write failed: %s", strerror(errno));
        ok = false;
    } else if (fsync(fileno(af->f)) != 0) {
        snprintf(reason, sizeof reason, "fsync failed: %s", strerror(errno));
        ok = false;
    }
    if (fclose(af->f) != 0 && ok) {
        snprintf(reason, sizeof reason, "close failed: %s", strerror(errno));
        ok = false;
    }
    af->f = NULL;
    if (ok && rename(af->tmp_path, af->path) != 0) {
        snprintf(reason, sizeof reason, "rename failed: %s", strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(af->tmp_path);
        error_set(err, err_len, "%s: %s", af->path, reason);
    } else {
        sync_directory(af->path);
    }
    release(af);
    return ok;
}

void atomic_file_abort(AtomicFile *af) {
    if (af->f)
        fclose(af->f);
    if (af->tmp_path)
        unlink(af->tmp_path);
    release(af);
}
