/* atomic_file.c - see atomic_file.h. */
#define _GNU_SOURCE /* O_TMPFILE and linkat's AT_EMPTY_PATH (Linux) */
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

/* As the kernel's own limit on a path's symbolic links (Linux MAXSYMLINKS). */
enum { MAX_LINKS = 40 };

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
    free(af->name);
    free(af->path);
    free(af->tmp_path);
    af->name = af->path = af->tmp_path = NULL;
    af->f = NULL;
    af->unnamed = false;
}

/* The file a write to path lands on: path itself, or the end of its chain of symbolic
 * links, a relative link read from the link's own directory. *st and *exists describe that
 * file (exists false when lstat fails: a missing target is created, and any other reason
 * is reported by the open that follows). Returns a malloc'ed path, or NULL with the reason
 * in err (a loop of links, an unreadable link, out of memory). */
static char *follow_links(const char *path, struct stat *st, bool *exists, char *err, size_t err_len) {
    char *cur = dup_string(path);
    for (int hops = 0; cur; hops++) {
        if (lstat(cur, st) != 0) {
            *exists = false;
            return cur;
        }
        *exists = true;
        if (!S_ISLNK(st->st_mode))
            return cur;
        if (hops == MAX_LINKS) {
            free(cur);
            error_set(err, err_len, "%s: too many levels of symbolic links", path);
            return NULL;
        }
        char target[4096];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            int e = errno;
            free(cur);
            error_set(err, err_len, "%s: cannot read the symbolic link: %s", path, strerror(e));
            return NULL;
        }
        target[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dir_len = target[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        char *next = malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir_len);
            memcpy(next + dir_len, target, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    error_set(err, err_len, "%s: out of memory", path);
    return NULL;
}

/* The kinds of file written by streaming into them (the header's rule). */
static bool streamed_kind(mode_t m) { return S_ISFIFO(m) || S_ISCHR(m); }

/* What a special file at path is, for the refusal. */
static const char *kind_of(mode_t m) {
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISBLK(m))
        return "a block device";
    return "not a regular file";
}

/* Opens the stream case: "-" (a copy of the standard output, so closing it leaves fd 1
 * open) or a FIFO or character device, opened without creating or truncating. */
static bool open_stream(AtomicFile *af, char *err, size_t err_len) {
    int fd = strcmp(af->name, "-") == 0 ? dup(STDOUT_FILENO) : open(af->path, O_WRONLY | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        error_set(err, err_len, "%s: cannot open for writing: %s", af->name, strerror(e));
        release(af);
        return false;
    }
    af->f = fdopen(fd, "w");
    if (!af->f) {
        close(fd);
        error_set(err, err_len, "%s: out of memory", af->name);
        release(af);
        return false;
    }
    return true;
}

/* Gives the temporary file the replaced file's owner, group and mode. The owner only as
 * root (chown first: it may clear set-id bits that the chmod then puts back); a group we
 * belong to is kept as any user. Best effort: a file we may not chown keeps ours. */
static void copy_attributes(int fd, const struct stat *old) {
    if (geteuid() == 0) {
        if (fchown(fd, old->st_uid, old->st_gid) != 0) { /* e.g. a filesystem without owners */
        }
    } else if (old->st_gid != getegid()) {
        if (fchown(fd, (uid_t)-1, old->st_gid) != 0) { /* not one of our groups */
        }
    }
    if (fchmod(fd, old->st_mode & 07777) != 0) { /* the 0644 of the create stays */
    }
}

/* The directory holding path: a malloc'ed copy ("." when path has none), or NULL when
 * memory runs out. */
static char *dir_of(const char *path) {
    char *dir = dup_string(path);
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    return dir;
}

/* An unnamed temporary file in dir (O_TMPFILE, Linux 3.11 on): it gets a name only at the
 * commit, so a process killed while writing (SIGKILL, a crash) leaves nothing behind.
 * Returns the descriptor, or -1 with errno; -1 with EOPNOTSUPP, EISDIR or EINVAL means
 * this filesystem or kernel has no unnamed files (NFS, FAT, older overlayfs and FUSE;
 * EISDIR from a kernel that predates the flag) and the caller takes a named one. The
 * commit links it through /proc/self/fd, so without /proc it is refused the same way.
 * The mode is open's 0644 less the umask, as for the named file. */
static int open_unnamed(const char *dir) {
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (lstat(proc, &st) != 0) {
        close(fd);
        errno = EOPNOTSUPP;
        return -1;
    }
    return fd;
#else
    (void)dir;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* The filesystem refuses unnamed files (open_unnamed()): take a named one instead. */
static bool no_unnamed_files(int e) { return e == EOPNOTSUPP || e == EISDIR || e == EINVAL; }

/* Fills af->f from fd (a new temporary file), giving it the replaced file's attributes
 * when there is one. Returns false (fd closed, af untouched otherwise) when memory runs
 * out. */
static bool adopt_temporary(AtomicFile *af, int fd, bool exists, const struct stat *st) {
    if (exists)
        copy_attributes(fd, st);
    af->f = fdopen(fd, "w");
    if (!af->f) {
        close(fd);
        return false;
    }
    /* Large buffer: book writers emit many short lines. */
    setvbuf(af->f, NULL, _IOFBF, 1 << 20);
    return true;
}

bool atomic_file_streams(const char *path) {
    if (strcmp(path, "-") == 0)
        return true;
    struct stat st;
    bool exists = false;
    char err[8];
    char *end = follow_links(path, &st, &exists, err, sizeof err);
    bool followed = end != NULL;
    free(end);
    return followed && exists && streamed_kind(st.st_mode);
}

bool atomic_file_open(AtomicFile *af, const char *path, char *err, size_t err_len) {
    memset(af, 0, sizeof *af);
    af->name = dup_string(path);
    if (!af->name)
        return error_set(err, err_len, "%s: out of memory", path);
    struct stat st;
    bool exists = false;
    if (strcmp(path, "-") == 0) {
        af->path = dup_string(path);
        if (!af->path) {
            release(af);
            return error_set(err, err_len, "%s: out of memory", path);
        }
        return open_stream(af, err, err_len);
    }
    af->path = follow_links(path, &st, &exists, err, err_len);
    if (!af->path) {
        release(af);
        return false;
    }
    if (exists && streamed_kind(st.st_mode))
        return open_stream(af, err, err_len);
    if (exists && !S_ISREG(st.st_mode)) {
        error_set(err, err_len, "%s: is %s; an output must be a regular file, a FIFO, a character device or -", path,
                  kind_of(st.st_mode));
        release(af);
        return false;
    }
    size_t n = strlen(af->path) + 64;
    af->tmp_path = malloc(n);
    if (!af->tmp_path) {
        release(af);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    char *dir = dir_of(af->path);
    if (!dir) {
        release(af);
        return error_set(err, err_len, "%s: out of memory", path);
    }
    int ufd = open_unnamed(dir);
    int ue = errno;
    free(dir);
    if (ufd >= 0) {
        af->unnamed = true;
        af->tmp_path[0] = '\0'; /* the name comes at the commit */
        /* No file to list, but the handlers that say an output was written (interrupt.h) */
        interrupt_install_handlers();
        if (!adopt_temporary(af, ufd, exists, &st)) {
            release(af);
            return error_set(err, err_len, "%s: out of memory", path);
        }
        return true;
    }
    if (!no_unnamed_files(ue)) {
        release(af);
        return error_set(err, err_len, "%s: cannot create a temporary file: %s", path, strerror(ue));
    }
    /* O_EXCL with a counter: never clobber another writer's temporary file. */
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(af->tmp_path, n, "%s.tmp.%ld.%u", af->path, (long)getpid(), attempt);
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
        if (!adopt_temporary(af, fd, exists, &st)) {
            unlink(af->tmp_path);
            release(af);
            return error_set(err, err_len, "%s: out of memory", path);
        }
        return true;
    }
    release(af);
    return error_set(err, err_len, "%s: cannot find a free temporary name", path);
}

static void sync_directory(const char *path) {
    char *dir = dir_of(path);
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd); /* best effort: some filesystems refuse fsync on directories */
        close(fd);
    }
    free(dir);
}

static bool commit_stream(AtomicFile *af, char *err, size_t err_len) {
    char reason[256] = "";
    if (fflush(af->f) != 0 || ferror(af->f))
        snprintf(reason, sizeof reason, "write failed: %s", strerror(errno));
    if (fclose(af->f) != 0 && !reason[0])
        snprintf(reason, sizeof reason, "close failed: %s", strerror(errno));
    af->f = NULL;
    if (reason[0])
        error_set(err, err_len, "%s: %s", af->name, reason);
    release(af);
    return !reason[0];
}

/* Gives the unnamed temporary file (af->f) its name, "<target>.tmp.<pid>.<n>" beside the
 * target, for the rename that follows (a rename needs a name; linkat cannot replace).
 * Through /proc/self/fd, or AT_EMPTY_PATH where that is allowed. Returns false with errno
 * when neither links it. */
static bool link_unnamed(AtomicFile *af, size_t cap) {
    int fd = fileno(af->f);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(af->tmp_path, cap, "%s.tmp.%ld.%u", af->path, (long)getpid(), attempt);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp_path, AT_SYMLINK_FOLLOW) == 0)
            return true;
        int e = errno;
        if (e != EEXIST && linkat(fd, "", AT_FDCWD, af->tmp_path, AT_EMPTY_PATH) == 0)
            return true;
        if (e != EEXIST) {
            errno = e;
            return false;
        }
    }
    errno = EEXIST;
    return false;
}

bool atomic_file_commit(AtomicFile *af, char *err, size_t err_len) {
    if (!af->tmp_path)
        return commit_stream(af, err, err_len);
    bool ok = true;
    char reason[256] = "";
    if (fflush(af->f) != 0 || ferror(af->f)) {
        snprintf(reason, sizeof reason, "write failed: %s", strerror(errno));
        ok = false;
    } else if (fsync(fileno(af->f)) != 0) {
        snprintf(reason, sizeof reason, "fsync failed: %s", strerror(errno));
        ok = false;
    }
    /* Signals wait across the naming, the rename and the bookkeeping: one that comes now
     * finds either the temporary file listed or unnamed and the target untouched, or the
     * target noted as written. An unnamed file has a name only from the link to the rename
     * (or the unlink of a failure), the one moment a SIGKILL could leave it behind. */
    sigset_t old;
    interrupt_block(&old);
    bool named = !af->unnamed;
    if (ok && af->unnamed) {
        if (link_unnamed(af, strlen(af->path) + 64))
            named = true;
        else {
            snprintf(reason, sizeof reason, "cannot name the temporary file: %s", strerror(errno));
            ok = false;
        }
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
    if (ok) {
        interrupt_untrack_file(af->tmp_path);
        af->listed = false;
        interrupt_note_written(af->name);
    } else if (named) {
        unlink(af->tmp_path);
    }
    interrupt_unblock(&old);
    if (!ok)
        error_set(err, err_len, "%s: %s", af->name, reason);
    else
        sync_directory(af->path);
    release(af);
    return ok;
}

void atomic_file_abort(AtomicFile *af) {
    if (af->f)
        fclose(af->f);
    if (af->tmp_path && !af->unnamed) /* an unnamed one is gone with its descriptor */
        unlink(af->tmp_path);
    release(af);
}
