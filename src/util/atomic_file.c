/* atomic_file.c - see atomic_file.h. */
#include "util/atomic_file.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

/* ---- the registry of open temporary files (see the header) ----
 * Slots are written under the lock with the flag cleared, and published by setting the
 * flag last; the handler only reads flagged slots and calls unlink(), which is
 * async-signal-safe. More files than slots are still written atomically, only without
 * the cleanup on a signal. */
enum { REG_SLOTS = 16, REG_PATH = 4096 };
static struct {
    pthread_mutex_t lock;
    volatile sig_atomic_t used[REG_SLOTS];
    char path[REG_SLOTS][REG_PATH];
} registry = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const int CLEANUP_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};

static void on_fatal_signal(int sig) {
    for (int i = 0; i < REG_SLOTS; i++)
        if (registry.used[i])
            unlink(registry.path[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installs on_fatal_signal for each signal whose disposition is still the default. SIGINT
 * and SIGTERM are also taken over when ignored (a shell starts background jobs with
 * SIGINT ignored, and the CLI always honoured Ctrl-C and kill); an ignored SIGHUP (nohup)
 * stays ignored. */
static void install_handlers(void) {
    for (size_t i = 0; i < sizeof CLEANUP_SIGNALS / sizeof CLEANUP_SIGNALS[0]; i++) {
        struct sigaction old;
        if (sigaction(CLEANUP_SIGNALS[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO))
            continue;
        bool ignored_ok = CLEANUP_SIGNALS[i] != SIGHUP && old.sa_handler == SIG_IGN;
        if (old.sa_handler != SIG_DFL && !ignored_ok)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof CLEANUP_SIGNALS / sizeof CLEANUP_SIGNALS[0]; k++)
            sigaddset(&sa.sa_mask, CLEANUP_SIGNALS[k]);
        sigaction(CLEANUP_SIGNALS[i], &sa, NULL);
    }
}

/* Lists tmp; returns the slot, or -1 when every slot is taken or the path is too long. */
static int registry_add(const char *tmp) {
    int slot = -1;
    pthread_mutex_lock(&registry.lock);
    install_handlers(); /* each time: a program may have put the default back since */
    size_t n = strlen(tmp);
    for (int i = 0; i < REG_SLOTS && n < REG_PATH; i++)
        if (!registry.used[i]) {
            memcpy(registry.path[i], tmp, n + 1);
            atomic_signal_fence(memory_order_seq_cst); /* the path is complete before the flag */
            registry.used[i] = 1;
            slot = i;
            break;
        }
    pthread_mutex_unlock(&registry.lock);
    return slot;
}

static void registry_remove(const char *tmp) {
    pthread_mutex_lock(&registry.lock);
    for (int i = 0; i < REG_SLOTS; i++)
        if (registry.used[i] && strcmp(registry.path[i], tmp) == 0) {
            registry.used[i] = 0;
            break;
        }
    pthread_mutex_unlock(&registry.lock);
}

int atomic_file_open_count(void) {
    int n = 0;
    pthread_mutex_lock(&registry.lock);
    for (int i = 0; i < REG_SLOTS; i++)
        n += registry.used[i] != 0;
    pthread_mutex_unlock(&registry.lock);
    return n;
}

static void release(AtomicFile *af) {
    if (af->tmp_path)
        registry_remove(af->tmp_path);
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
        sigset_t block, old;
        sigemptyset(&block);
        for (size_t k = 0; k < sizeof CLEANUP_SIGNALS / sizeof CLEANUP_SIGNALS[0]; k++)
            sigaddset(&block, CLEANUP_SIGNALS[k]);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        int fd = open(af->tmp_path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            registry_add(af->tmp_path);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
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
