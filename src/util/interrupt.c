/* interrupt.c - see interrupt.h. */
#include "util/interrupt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The module's singleton: all a signal handler may touch. */
static volatile sig_atomic_t interrupted;
static char remove_path[4096];
static volatile sig_atomic_t remove_armed;

/* The tracked files: slots are written under the lock with the flag clear and published
 * by setting the flag last; handlers only read flagged slots and call unlink(), which is
 * async-signal-safe. */
enum { TRACK_SLOTS = 16, TRACK_PATH = 4096 };
static struct {
    pthread_mutex_t lock;
    volatile sig_atomic_t used[TRACK_SLOTS];
    char path[TRACK_SLOTS][TRACK_PATH];
} tracked = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The outputs already in place (atomic_file_commit() notes each), named when a signal ends
 * the process; the newest WRITTEN_SLOTS, published like the tracked files. */
enum { WRITTEN_SLOTS = 4 };
static struct {
    pthread_mutex_t lock;
    volatile sig_atomic_t used[WRITTEN_SLOTS];
    char path[WRITTEN_SLOTS][TRACK_PATH];
    int next;
} written = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void say(const char *s) {
    if (write(STDERR_FILENO, s, strlen(s)) < 0) { /* nothing to do about a closed stderr */
    }
}

static const int FATAL_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};
enum { N_FATAL = sizeof FATAL_SIGNALS / sizeof FATAL_SIGNALS[0] };

/* Removes what must not outlive the process and dies of sig. */
static void die_clean(int sig) {
    for (int i = 0; i < TRACK_SLOTS; i++)
        if (tracked.used[i])
            unlink(tracked.path[i]);
    if (remove_armed)
        unlink(remove_path);
    for (int i = 0; i < WRITTEN_SLOTS; i++)
        if (written.used[i]) {
            say("hayanagi: interrupted; ");
            say(written.path[i]);
            say(" was written before the signal and is complete\n");
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The scope's handler: the first signal sets the flag (or, in remove-and-die mode, ends
 * the process); a second one ends it at once. */
static void on_signal(int sig) {
    if (interrupted || remove_armed)
        die_clean(sig);
    interrupted = 1;
}

/* Outside a scope, while files are tracked. */
static void on_fatal_signal(int sig) { die_clean(sig); }

static void install_fatal_handlers(void) {
    for (int i = 0; i < N_FATAL; i++) {
        struct sigaction old;
        if (sigaction(FATAL_SIGNALS[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO))
            continue;
        bool ignored_ok = FATAL_SIGNALS[i] != SIGHUP && old.sa_handler == SIG_IGN;
        if (old.sa_handler != SIG_DFL && !ignored_ok)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (int k = 0; k < N_FATAL; k++)
            sigaddset(&sa.sa_mask, FATAL_SIGNALS[k]);
        sigaction(FATAL_SIGNALS[i], &sa, NULL);
    }
}

bool interrupt_track_file(const char *path) {
    size_t n = strlen(path);
    bool listed = false;
    pthread_mutex_lock(&tracked.lock);
    install_fatal_handlers(); /* each time: a program may have put the default back since */
    for (int i = 0; i < TRACK_SLOTS && n < TRACK_PATH; i++)
        if (!tracked.used[i]) {
            memcpy(tracked.path[i], path, n + 1);
            atomic_signal_fence(memory_order_seq_cst); /* the path is complete before the flag */
            tracked.used[i] = 1;
            listed = true;
            break;
        }
    pthread_mutex_unlock(&tracked.lock);
    return listed;
}

void interrupt_install_handlers(void) {
    pthread_mutex_lock(&tracked.lock);
    install_fatal_handlers();
    pthread_mutex_unlock(&tracked.lock);
}

void interrupt_untrack_file(const char *path) {
    pthread_mutex_lock(&tracked.lock);
    for (int i = 0; i < TRACK_SLOTS; i++)
        if (tracked.used[i] && strcmp(tracked.path[i], path) == 0) {
            tracked.used[i] = 0;
            break;
        }
    pthread_mutex_unlock(&tracked.lock);
}

void interrupt_note_written(const char *path) {
    size_t n = strlen(path);
    if (n >= TRACK_PATH)
        return;
    pthread_mutex_lock(&written.lock);
    int i = written.next;
    written.next = (i + 1) % WRITTEN_SLOTS;
    written.used[i] = 0;
    atomic_signal_fence(memory_order_seq_cst);
    memcpy(written.path[i], path, n + 1);
    atomic_signal_fence(memory_order_seq_cst); /* the path is complete before the flag */
    written.used[i] = 1;
    pthread_mutex_unlock(&written.lock);
}

int interrupt_tracked_count(void) {
    int n = 0;
    pthread_mutex_lock(&tracked.lock);
    for (int i = 0; i < TRACK_SLOTS; i++)
        n += tracked.used[i] != 0;
    pthread_mutex_unlock(&tracked.lock);
    return n;
}

void interrupt_block(sigset_t *old) {
    sigset_t block;
    sigemptyset(&block);
    for (int k = 0; k < N_FATAL; k++)
        sigaddset(&block, FATAL_SIGNALS[k]);
    pthread_sigmask(SIG_BLOCK, &block, old);
}

void interrupt_unblock(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

void interrupt_begin(InterruptScope *scope, const char *remove_on_signal) {
    interrupted = 0;
    remove_armed = 0;
    if (remove_on_signal && strlen(remove_on_signal) < sizeof remove_path) {
        memcpy(remove_path, remove_on_signal, strlen(remove_on_signal) + 1);
        remove_armed = 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &scope->old_int);
    sigaction(SIGTERM, &sa, &scope->old_term);
}

/* True when a signal that ends the process has something to remove or to name. */
static bool anything_to_say(void) {
    for (int i = 0; i < TRACK_SLOTS; i++)
        if (tracked.used[i])
            return true;
    for (int i = 0; i < WRITTEN_SLOTS; i++)
        if (written.used[i])
            return true;
    return false;
}

void interrupt_end(InterruptScope *scope) {
    /* The signals wait while the old handlers come back: when those are the defaults and
     * an output was written (or a file is listed) during the scope, the handler that says
     * so replaces them, so a Ctrl-C just after the scope does not end the process
     * silently with its output in place. */
    sigset_t old;
    interrupt_block(&old);
    sigaction(SIGINT, &scope->old_int, NULL);
    sigaction(SIGTERM, &scope->old_term, NULL);
    remove_armed = 0;
    remove_path[0] = '\0';
    pthread_mutex_lock(&tracked.lock);
    pthread_mutex_lock(&written.lock);
    if (anything_to_say())
        install_fatal_handlers();
    pthread_mutex_unlock(&written.lock);
    pthread_mutex_unlock(&tracked.lock);
    interrupt_unblock(&old);
}

bool interrupt_requested(void) { return interrupted != 0; }

volatile sig_atomic_t *interrupt_flag(void) { return &interrupted; }
